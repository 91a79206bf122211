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

/** The longest notice number taken (SEAP's are about 10 characters; an index entry holds about 2.7 kB). */
const MAX_REF = 100

/** The highest erratum number taken (SEAP's notices have a handful; a version must fit an integer column). */
const MAX_ERRATA = 10_000

/**
 * The notice number an item is known by (CN…, CAN…, DA…) and its version: two per erratum, plus one
 * once its procedure is cancelled, so that an erratum or a cancellation reads a seen notice again.
 * A reason instead when the item cannot be keyed: no notice number, or one or an `errataNo` no
 * notice has (the page's statements would fail on them, and with them every later poll of the page).
 */
export const seapItemRef = (list: SeapList, item: unknown): { ref: string; version: number } | string => {
  if (typeof item !== "object" || item === null) return "a list item without a notice number"
  const json = item as Json
  const raw = list === "da" ? json.uniqueIdentificationCode : json.noticeNo
  if (typeof raw !== "string" || raw.trim() === "") return "a list item without a notice number"
  const ref = raw.trim()
  if (ref.length > MAX_REF)
    return `a notice number of ${ref.length} characters (at most ${MAX_REF}): ${ref.slice(0, 20)}…`
  const errata = json.errataNo ?? 0
  if (typeof errata !== "number" || !Number.isInteger(errata) || errata < 0 || errata > MAX_ERRATA) {
    return `${ref}: errataNo ${JSON.stringify(errata).slice(0, 40)} is not a whole number from 0 to ${MAX_ERRATA}`
  }
  return { ref, version: errata * 2 + (seapCancelled(item) ? 1 : 0) }
}

/** The same-site Referer SEAP requires on every api-pub call (403 without it). */
export const seapReferer = (baseUrl: string) => `${baseUrl}/pub/notices/contract-notices/list/0/0`
