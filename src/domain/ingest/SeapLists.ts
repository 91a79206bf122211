import { SEAP_AWARD_NOTICE_TYPES } from "../tenders/formats/Sicap.js"

/**
 * SEAP/SICAP's public lists as the SEAP poller reads them (../shared/sources/README.md, section 2):
 * contract notices, award notices and direct acquisitions, each asked one publication day at a
 * time (SEAP caps a list's total and marks the cut with `searchTooLong`; a day is the narrowest
 * window its filters allow).
 */
export const SEAP_LISTS = ["cn", "can", "da"] as const
export type SeapList = (typeof SEAP_LISTS)[number]

/** Participation notices: CN, SCN (simplified), RFQ and the other calls for competition. */
const PARTICIPATION_TYPES = [2, 6, 7, 12, 17, 19]

const noticeFilters = {
  sysNoticeStateId: null,
  contractingAuthorityId: null,
  winnerId: null,
  cPVCategoryId: null,
  cPVId: null,
  sysAcquisitionContractTypeId: null,
  sysContractAssigmentTypeId: null,
  assignedUserId: null
}

export const seapListPath: Record<SeapList, string> = {
  cn: "/api-pub/NoticeCommon/GetCNoticeList/",
  can: "/api-pub/NoticeCommon/GetCANoticeList/",
  da: "/api-pub/DirectAcquisitionCommon/GetDirectAcquisitionList/"
}

/**
 * The body asking for one page of a list on one day. Direct acquisitions are asked by the day they
 * were finalised (awarded): the live list ignores its publication-date filter, and a direct
 * acquisition has a winner only once finalised.
 */
export const seapListBody = (list: SeapList, day: string, pageIndex: number, pageSize: number) =>
  list === "da"
    ? {
        pageSize,
        pageIndex,
        showOngoingDa: false,
        cookieContext: null,
        sysDirectAcquisitionStateId: null,
        publicationDateStart: null,
        publicationDateEnd: null,
        finalizationDateStart: day,
        finalizationDateEnd: day,
        cpvCategoryId: null,
        cpvCodeId: null,
        contractingAuthorityId: null,
        supplierId: null
      }
    : {
        sysNoticeTypeIds: list === "cn" ? PARTICIPATION_TYPES : SEAP_AWARD_NOTICE_TYPES,
        sortProperties: [],
        pageSize,
        pageIndex,
        startPublicationDate: day,
        endPublicationDate: day,
        ...noticeFilters
      }

type Json = Record<string, unknown>

/** Whether SEAP lists the item's procedure as cancelled (state "Anulata" / "Anulată"). */
export const seapCancelled = (item: unknown): boolean => {
  const state = (item as Json | null)?.sysProcedureState as Json | null | undefined
  return typeof state?.text === "string" && /^anulat/i.test(state.text.normalize("NFD").replace(/\p{M}+/gu, ""))
}

/**
 * The notice number an item is known by (CN…, CAN…, DA…) and its version: two per erratum, plus one
 * once its procedure is cancelled, so that an erratum or a cancellation reads a seen notice again.
 */
export const seapItemRef = (list: SeapList, item: unknown): { ref: string; version: number } | undefined => {
  if (typeof item !== "object" || item === null) return undefined
  const json = item as Json
  const ref = list === "da" ? json.uniqueIdentificationCode : json.noticeNo
  if (typeof ref !== "string" || ref.trim() === "") return undefined
  const errata = typeof json.errataNo === "number" ? json.errataNo : 0
  return { ref: ref.trim(), version: errata * 2 + (seapCancelled(item) ? 1 : 0) }
}

/** The same-site Referer SEAP requires on every api-pub call (403 without it). */
export const seapReferer = (baseUrl: string) => `${baseUrl}/pub/notices/contract-notices/list/0/0`
