import { Either } from "effect"
import { countyFromNuts } from "../Counties.js"
import { bucharestLocalToIso } from "../LocalTime.js"
import { recordValueFields, type TenderRecordInput } from "../TenderRecord.js"
import { emptyToNull, numberOrNull, readCsv } from "./Csv.js"
import { type ParsedItem, parsed, parseJson, skipped } from "./ParsedItem.js"

/**
 * The Romanian SEAP/SICAP public API (e-licitatie.ro): list items, full notices (with their
 * contracts and winners when the award's contract list is given beside the notice) and the CSV export
 * of direct awards. Every record is keyed by its notice number (CN…, CAN…, DAN…), which list items and
 * full notices share, so importing both updates one tender.
 */

type Json = Record<string, any>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const str = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== ""
    ? value.trim()
    : typeof value === "number"
      ? String(value)
      : undefined

/** "77211100-3 - Servicii de exploatare forestiera (Rev.2)" or "33100000-1 Echipamente…" → "77211100-3". */
const cpvOf = (value: unknown): string | undefined => /^\s*([0-9]{8}(?:-[0-9])?)/.exec(str(value) ?? "")?.[1]

/** Award notices are CAN… (after a competition) and DAN… (direct awards); SICAP notice type 3 is an award. */
const noticeTypeOf = (noticeNo: string, typeId: unknown): "contract" | "award" =>
  /^(CAN|DAN)/i.test(noticeNo) || typeId === 3 ? "award" : "contract"

const noticeUrl = (type: "contract" | "award", id: unknown) =>
  id === undefined || id === null
    ? ""
    : type === "award"
      ? `https://e-licitatie.ro/pub/notices/ca-notices/view-c/${id}`
      : `https://e-licitatie.ro/pub/notices/c-notice/v2/view/${id}`

const directAwardUrl = (id: string | null) =>
  id === null ? "" : `https://e-licitatie.ro/pub/direct-acquisitions/view/${id}`

/** "12130675,84 RON" → {amount, currency}. */
const parseExportValue = (value: unknown) => {
  const match = /^([0-9.,\s]+)\s*([A-Z]{3})$/.exec(str(value) ?? "")
  if (match === null) return undefined
  const amount = Number(match[1]!.replace(/[\s.]/g, "").replace(",", "."))
  return Number.isFinite(amount) ? { amount, currency: match[2]! } : undefined
}

/** A row of a notice list (`/api-pub/NoticeCommon/GetCNoticeList`, `…/GetCANoticeList`). */
const fromListItem = (item: Json): TenderRecordInput => {
  const noticeNo = str(item.noticeNo) ?? ""
  const type = noticeTypeOf(noticeNo, item.sysNoticeTypeId)
  // "RO1590120 - REGIA NATIONALA A PADURILOR - ROMSILVA RA": fiscal code, then the name.
  const authority = /^\s*((?:RO)?\s*[0-9]{2,10})\s+-\s+(.+)$/i.exec(str(item.contractingAuthorityNameAndFN) ?? "")
  const exported = parseExportValue(item.estimatedValueExport)
  const ron = typeof item.ronContractValue === "number" && item.ronContractValue > 0 ? item.ronContractValue : undefined
  return {
    source: "sicap",
    source_id: noticeNo,
    notice_type: type,
    title: str(item.contractTitle) ?? "",
    description: "",
    cpv_codes: [cpvOf(item.cpvCodeAndName) ?? str(item.cpvCodeAndName) ?? ""],
    contracting_authority: {
      name: authority?.[2] ?? str(item.contractingAuthorityNameAndFN) ?? "",
      fiscal_code: authority?.[1] ?? null,
      county: null
    },
    deadline: str(item.maxTenderReceiptDeadline) ?? str(item.minTenderReceiptDeadline) ?? null,
    ...(ron !== undefined ? recordValueFields(ron, "RON") : recordValueFields(exported?.amount, exported?.currency)),
    publish_date: str(item.noticeStateDate) ?? "",
    source_url: noticeUrl(type, type === "award" ? item.caNoticeId : (item.cNoticeId ?? item.noticeId))
  }
}

/** The first value of a key named `key` anywhere below `value` (deadlines live in different sections per form version). */
const findKey = (value: unknown, key: string): unknown => {
  if (Array.isArray(value)) {
    for (const entry of value) {
      const found = findKey(entry, key)
      if (found !== undefined) return found
    }
  } else if (isObject(value)) {
    if (value[key] !== undefined && value[key] !== null) return value[key]
    for (const entry of Object.values(value)) {
      const found = findKey(entry, key)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/** A full notice (`/api-pub/C_PUBLIC_CANotice/get/{id}` and the contract-notice equivalent), winners from its contracts. */
const fromNotice = (notice: Json, contracts: ReadonlyArray<Json>): TenderRecordInput => {
  const editKey = Object.keys(notice).find((key) => /NoticeEdit/i.test(key) && isObject(notice[key]))
  const edit: Json = editKey === undefined ? {} : notice[editKey]
  const section2: Json = edit.section2_New?.section2_1_New ?? {}
  const lots: Array<Json> = edit.section2_New?.section2_2_New?.descriptionList ?? []
  const address: Json = edit.section1_New?.section1_1?.caAddress ?? {}
  const noticeNo = str(notice.noticeNumber) ?? str(edit.publicationDetailsModel?.noticeNo) ?? ""
  const type = noticeTypeOf(noticeNo, notice.sysNoticeType?.id)
  const lotCpvs = lots.flatMap((lot) => [
    cpvOf(lot.mainCPVCodes?.text),
    ...(Array.isArray(lot.secondaryCPVCodes) ? lot.secondaryCPVCodes.map((c: Json) => cpvOf(c?.text)) : [])
  ])
  const county =
    str(isObject(address.county) ? address.county.text : address.county) ??
    countyFromNuts(/^(RO[0-9]+)/.exec(str(lots[0]?.nutsCode?.text) ?? "")?.[1])
  const winners = contracts.flatMap((contract) => [
    ...(Array.isArray(contract.winners) ? contract.winners.map((w: Json) => str(w?.fiscalNumber)) : []),
    str(contract.winner?.fiscalNumber)
  ])
  const currency = str(section2.currency?.localeKey) ?? str(notice.paapModel?.currency) ?? "RON"
  const amount = typeof section2.totalAcquisitionValue === "number" ? section2.totalAcquisitionValue : undefined
  return {
    source: "sicap",
    source_id: noticeNo,
    notice_type: type,
    title: str(section2.contractTitle) ?? str(notice.title) ?? "",
    description: str(section2.shortDescription) ?? "",
    cpv_codes: [
      str(section2.mainCPVCode?.localeKey) ?? cpvOf(section2.mainCPVCode?.text) ?? "",
      ...lotCpvs.filter((code): code is string => code !== undefined)
    ],
    contracting_authority: {
      name: str(address.officialName) ?? "",
      fiscal_code: str(address.nationalIDNumber) ?? null,
      county
    },
    deadline: str(findKey(edit, "tenderReceiptDeadline")) ?? null,
    ...recordValueFields(amount, currency),
    publish_date: str(notice.publicationDate) ?? str(edit.publicationDetailsModel?.caPublicationDate) ?? "",
    source_url: noticeUrl(type, type === "award" ? (notice.caNoticeID ?? notice.caNoticeId) : notice.cNoticeId),
    winner_fiscal_codes: [...new Set(winners.filter((code): code is string => code !== undefined))]
  }
}

const looksLikeNotice = (value: Json) => Object.keys(value).some((key) => /NoticeEdit/i.test(key))
const looksLikeListItem = (value: Json) => "noticeNo" in value && "contractTitle" in value

/** Every tender record in a SICAP JSON document, whatever shape it was saved in. */
const collect = (value: unknown, out: Array<{ ref: string; record: TenderRecordInput | string }>): void => {
  if (Array.isArray(value)) {
    for (const entry of value) collect(entry, out)
    return
  }
  if (!isObject(value)) return
  if (isObject(value.notice) || isObject(value.item)) {
    // A saved bundle: a list item, and/or a notice with its contract list.
    if (isObject(value.item)) collect(value.item, out)
    if (isObject(value.notice)) {
      const contracts = Array.isArray(value.contracts?.items) ? value.contracts.items : []
      const record = fromNotice(value.notice, contracts)
      out.push({ ref: `notice ${record.source_id || "?"}`, record })
    }
  } else if (looksLikeNotice(value)) {
    const record = fromNotice(value, [])
    out.push({ ref: `notice ${record.source_id || "?"}`, record })
  } else if (looksLikeListItem(value)) {
    const record = fromListItem(value)
    out.push({ ref: `notice ${record.source_id || "?"}`, record })
  } else if (Array.isArray(value.items)) {
    collect(value.items, out)
  } else {
    out.push({ ref: `record ${out.length + 1}`, record: "not a SICAP list item or notice" })
  }
}

export const parseSicapJson = (text: string): ReadonlyArray<ParsedItem> => {
  const file = parseJson("file", text)
  if (Either.isLeft(file)) return [file.left]
  const document = file.right
  const out: Array<{ ref: string; record: TenderRecordInput | string }> = []
  collect(document, out)
  return out.map(({ ref, record }) => (typeof record === "string" ? skipped(ref, record) : parsed(ref, record)))
}

/** The header that identifies SEAP's CSV export of direct awards. */
export const SICAP_DIRECT_AWARDS_HEADER = "item.daAwardNoticeId"

/**
 * SEAP's CSV export of direct awards (one row per award; `item.awardedValue` in RON; the winner in
 * `details.noticeEntityAddress.*`).
 */
export const parseSicapDirectAwardsCsv = (text: string): ReadonlyArray<ParsedItem> => {
  const { rows, skips } = readCsv(text)
  return [
    ...skips,
    ...rows.map(({ line, values: v }) => {
      const noticeNo = v["item.noticeNo"] ?? ""
      const winner = emptyToNull(v["details.noticeEntityAddress.fiscalNumber"])
      const record: TenderRecordInput = {
        source: "sicap",
        source_id: noticeNo,
        notice_type: "award",
        title: v["item.contractObject"] ?? "",
        description: "",
        cpv_codes: [cpvOf(v["item.cpvCode"]) ?? v["item.cpvCode"] ?? ""],
        contracting_authority: {
          name: v["authority.entityName"] ?? "",
          fiscal_code: emptyToNull(v["authority.fiscalNumber"]),
          county: emptyToNull(v["authority.county"])
        },
        deadline: null,
        estimated_value_ron: numberOrNull(v["item.awardedValue"]) as number | null,
        publish_date: bucharestLocalToIso(v["item.publicationDate"] ?? "") ?? v["item.publicationDate"] ?? "",
        source_url: directAwardUrl(emptyToNull(v["item.daAwardNoticeId"])),
        winner_fiscal_codes: winner === null ? [] : [winner]
      }
      return parsed(`line ${line}`, record)
    })
  ]
}
