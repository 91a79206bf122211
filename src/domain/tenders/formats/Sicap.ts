import { Either } from "effect"
import { countyFromNuts } from "../Counties.js"
import { bucharestLocalToIso, END_OF_DAY } from "../LocalTime.js"
import { recordValueFields, type TenderRecordInput } from "../TenderRecord.js"
import { parseExportedAmount } from "./Amount.js"
import { emptyToNull, readCsv } from "./Csv.js"
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

/** SICAP's award notice types (`sysNoticeTypeId`): CAN, SCAN, PCAN, RFQ award, DCAN. The poller's award list asks for these. */
export const SEAP_AWARD_NOTICE_TYPES: ReadonlyArray<number> = [3, 8, 13, 16, 18]

/** Award notices are CAN… (after a competition) and DAN… (direct awards), or of an award notice type. */
const noticeTypeOf = (noticeNo: string, typeId: unknown): "contract" | "award" =>
  /^(CAN|DAN)/i.test(noticeNo) || (typeof typeId === "number" && SEAP_AWARD_NOTICE_TYPES.includes(typeId))
    ? "award"
    : "contract"

const noticeUrl = (type: "contract" | "award", id: unknown) =>
  id === undefined || id === null
    ? ""
    : type === "award"
      ? `https://e-licitatie.ro/pub/notices/ca-notices/view-c/${id}`
      : `https://e-licitatie.ro/pub/notices/c-notice/v2/view/${id}`

/** A direct award notice of SEAP's export (`item.daAwardNoticeId`): its public page. */
const directAwardUrl = (id: string | null) =>
  id === null ? "" : `https://e-licitatie.ro/pub/direct-acquisition/award-notice/view/${id}`

/** "12130675,84 RON" → {amount, currency}; the amount in either number format (parseExportedAmount). */
const parseExportValue = (value: unknown) => {
  const match = /^([0-9.,\s]+)\s*([A-Z]{3})$/.exec(str(value) ?? "")
  const amount = match === null ? undefined : parseExportedAmount(match[1]!)
  return amount === undefined ? undefined : { amount, currency: match![2]! }
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
    // Times without an offset are Bucharest time, whatever the machine's zone (as the poller reads them).
    deadline:
      sicapDeadline(item.maxTenderReceiptDeadline) ??
      sicapDeadline(item.minTenderReceiptDeadline) ??
      sicapDeadline(item.tenderReceiptDeadlineExport) ??
      null,
    ...(ron !== undefined ? recordValueFields(ron, "RON") : recordValueFields(exported?.amount, exported?.currency)),
    publish_date: sicapInstant(item.noticeStateDate) ?? str(item.noticeStateDate) ?? "",
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
  // Only lots that are objects: SEAP has answered `descriptionList: [null]`.
  const listed: unknown = edit.section2_New?.section2_2_New?.descriptionList
  const lots: Array<Json> = Array.isArray(listed) ? listed.filter(isObject) : []
  const address: Json = edit.section1_New?.section1_1?.caAddress ?? {}
  const noticeNo = str(notice.noticeNumber) ?? str(edit.publicationDetailsModel?.noticeNo) ?? ""
  const type = noticeTypeOf(noticeNo, notice.sysNoticeType?.id)
  const lotCpvs = lots.flatMap((lot) => [
    cpvOf(lot.mainCPVCodes?.text),
    ...(Array.isArray(lot.secondaryCPVCodes) ? lot.secondaryCPVCodes.map((c: Json) => cpvOf(c?.text)) : [])
  ])
  // The buyer's county: its address names it, or its NUTS code does (the real notices leave `county`
  // null and give "RO223 Constanta"); the first lot's place of performance only as a last resort.
  const nutsOf = (item: Json) => countyFromNuts(/^(RO[0-9]+)/.exec(str(item?.text) ?? "")?.[1])
  const county =
    str(isObject(address.county) ? address.county.text : address.county) ??
    nutsOf(address.nutsCodeItem) ??
    nutsOf(lots[0]?.nutsCode)
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
    deadline: sicapDeadline(findKey(edit, "tenderReceiptDeadline")) ?? null,
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
        // "630.25" as exported, "630,25" once a Romanian spreadsheet saved it; 0 is no value.
        ...recordValueFields(parseExportedAmount(v["item.awardedValue"] ?? ""), "RON"),
        publish_date: bucharestLocalToIso(v["item.publicationDate"] ?? "") ?? v["item.publicationDate"] ?? "",
        source_url: directAwardUrl(emptyToNull(v["item.daAwardNoticeId"])),
        winner_fiscal_codes: winner === null ? [] : [winner]
      }
      return parsed(`line ${line}`, record)
    })
  ]
}

/* ------------------------------------------------------------------------------------------------
 * One polled notice (the SEAP poller): a list item with the details it fetched beside it.
 * ---------------------------------------------------------------------------------------------- */

/**
 * An API timestamp as an instant: the API writes Romania-local times with their offset
 * ("2020-04-04T01:54:35+03:00"), kept as they are; one without an offset ("2019-04-08T14:17:43", or
 * the export's "09.05.2019 15:00") is read as Bucharest wall-clock time.
 */
const sicapInstant = (value: unknown, dayTime?: string): string | undefined => {
  const text = str(value)
  if (text === undefined) return undefined
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/i.test(text)) return text
  const iso = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{1,2}:\d{2}(?::\d{2})?)(?:\.\d+)?)?$/.exec(text)
  if (iso !== null) return bucharestLocalToIso(iso[1]!, iso[2] ?? dayTime) ?? undefined
  const export_ = /^(\d{2})\.(\d{2})\.(\d{4})(?:\s+(\d{1,2}:\d{2}(?::\d{2})?))?$/.exec(text)
  if (export_ !== null) {
    return bucharestLocalToIso(`${export_[3]}-${export_[2]}-${export_[1]}`, export_[4] ?? dayTime) ?? undefined
  }
  return undefined
}

/** A deadline as sicapInstant reads it; one given as a day only ("18.01.2019") is that day's end. */
const sicapDeadline = (value: unknown): string | undefined => sicapInstant(value, END_OF_DAY)

/**
 * A party as the lists write it, fiscal code first: "RO1590120 - REGIA NATIONALA …" (notice lists),
 * "RO 6865630 DELTA PLUS TRADING S.R.L." and "4317975 Unitatea Militara 01714" (direct acquisitions,
 * no dash). A text without a leading code is all name.
 */
const splitParty = (value: unknown): { readonly fiscalCode: string | null; readonly name: string } | undefined => {
  const text = str(value)
  if (text === undefined) return undefined
  const match = /^((?:RO)?\s*[0-9]{2,10})\s+(?:-\s+)?(\S.*)$/i.exec(text)
  return match === null ? { fiscalCode: null, name: text } : { fiscalCode: match[1]!.trim(), name: match[2]!.trim() }
}

const positive = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined

/** The public page of a participation notice: SCN (type 17) have their own route; both take the list's `noticeId`. */
const contractNoticeUrl = (item: Json) => {
  const id = item.noticeId ?? item.cNoticeId
  if (id === undefined || id === null) return ""
  return item.sysNoticeTypeId === 17
    ? `https://e-licitatie.ro/pub/notices/simplified-notice/v2/view/${id}`
    : `https://e-licitatie.ro/pub/notices/c-notice/v2/view/${id}`
}

const directAcquisitionUrl = (id: unknown) =>
  id === undefined || id === null ? "" : `https://e-licitatie.ro/pub/direct-acquisition/view/${id}`

/** CN: the participation list item (`GetCNoticeList`, keyed `cNoticeId`), enriched by a full notice when one is given. */
const cnRecord = (item: Json, detail: unknown): TenderRecordInput | string => {
  if (!looksLikeListItem(item)) return "not a SICAP list item"
  const noticeNo = str(item.noticeNo) ?? ""
  if (/^(CAN|DAN|DA)\d/i.test(noticeNo) || ("caNoticeId" in item && !("cNoticeId" in item))) {
    return `${noticeNo || "the item"} is not a participation notice`
  }
  const base = fromListItem(item)
  const exported = parseExportValue(item.estimatedValueExport)
  // Participation rows carry `estimatedValueRon`; award rows `ronContractValue`; both the export text.
  const ron = positive(item.estimatedValueRon) ?? positive(item.ronContractValue)
  const value =
    ron !== undefined ? recordValueFields(ron, "RON") : recordValueFields(exported?.amount, exported?.currency)
  const record: TenderRecordInput = {
    ...base,
    notice_type: "contract",
    deadline:
      sicapDeadline(item.maxTenderReceiptDeadline) ??
      sicapDeadline(item.minTenderReceiptDeadline) ??
      sicapDeadline(item.tenderReceiptDeadlineExport) ??
      null,
    ...value,
    // List items carry no publication date: the state date is the nearest (it never precedes publication).
    publish_date: sicapInstant(item.noticeStateDate) ?? base.publish_date,
    source_url: contractNoticeUrl(item)
  }
  if (!isObject(detail) || !looksLikeNotice(detail)) return record
  const full = fromNotice(detail, [])
  if (full.source_id !== "" && full.source_id !== noticeNo) return `the detail is of ${full.source_id}, not ${noticeNo}`
  return {
    ...record,
    description: full.description || record.description,
    cpv_codes: [...new Set([...record.cpv_codes, ...full.cpv_codes.filter((code) => code !== "")])] as [
      string,
      ...Array<string>
    ],
    contracting_authority: {
      name: record.contracting_authority.name || full.contracting_authority.name,
      fiscal_code: record.contracting_authority.fiscal_code ?? full.contracting_authority.fiscal_code ?? null,
      county: full.contracting_authority.county ?? null
    },
    deadline: record.deadline ?? sicapInstant(full.deadline) ?? null,
    publish_date: sicapInstant(detail.publicationDate) ?? record.publish_date
  }
}

/** CAN: the award list item (`GetCANoticeList`, keyed `caNoticeId`), the CA notice and its contracts (the winners). */
const canRecord = (item: Json, detail: unknown, contracts: ReadonlyArray<Json>): TenderRecordInput | string => {
  if (!looksLikeListItem(item)) return "not a SICAP list item"
  const noticeNo = str(item.noticeNo) ?? ""
  if (!("caNoticeId" in item)) return `${noticeNo || "the item"} is not an award notice (no caNoticeId)`
  const listed = fromListItem(item)
  const winners = fromNotice({}, contracts).winner_fiscal_codes ?? []
  if (detail === undefined || detail === null) {
    return { ...listed, notice_type: "award", winner_fiscal_codes: winners }
  }
  if (!isObject(detail) || !looksLikeNotice(detail)) return `the detail of ${noticeNo} is not a SICAP award notice`
  const full = fromNotice(detail, contracts)
  if (full.source_id !== "" && full.source_id !== noticeNo) return `the detail is of ${full.source_id}, not ${noticeNo}`
  const hasValue = full.estimated_value_ron !== null || full.estimated_value_eur !== null
  return {
    ...full,
    source_id: noticeNo,
    notice_type: "award",
    title: full.title || listed.title,
    cpv_codes: full.cpv_codes[0] === "" ? listed.cpv_codes : full.cpv_codes,
    contracting_authority: {
      name: full.contracting_authority.name || listed.contracting_authority.name,
      fiscal_code: full.contracting_authority.fiscal_code ?? listed.contracting_authority.fiscal_code ?? null,
      county: full.contracting_authority.county ?? null
    },
    ...(hasValue
      ? {}
      : {
          estimated_value_ron: listed.estimated_value_ron ?? null,
          estimated_value_eur: listed.estimated_value_eur ?? null
        }),
    deadline: sicapInstant(full.deadline) ?? null,
    publish_date: sicapInstant(full.publish_date) ?? listed.publish_date,
    source_url: full.source_url || listed.source_url
  }
}

/**
 * DA: the direct-acquisition list item (`GetDirectAcquisitionList`) and its `PublicDirectAcquisition/getView`
 * detail. The winner's fiscal code is only in the item's `supplier` ("RO 6865630 DELTA …"; the detail
 * has SEAP's entity id `supplierId`, not the code), the authority only in its `contractingAuthority`.
 */
const daRecord = (item: Json, detail: unknown): TenderRecordInput | string => {
  if (!("directAcquisitionId" in item) || str(item.uniqueIdentificationCode) === undefined) {
    return "not a SICAP direct acquisition list item"
  }
  const noticeNo = str(item.uniqueIdentificationCode)!
  const view: Json = isObject(detail) ? detail : {}
  if (detail !== undefined && detail !== null && !isObject(detail)) {
    return `the detail of ${noticeNo} is not a SICAP direct acquisition`
  }
  const viewId = view.directAcquisitionID ?? view.directAcquisitionId
  if (viewId !== undefined && viewId !== null && String(viewId) !== String(item.directAcquisitionId)) {
    return `the detail is of direct acquisition ${viewId}, not ${item.directAcquisitionId}`
  }
  const supplier = splitParty(item.supplier)
  if (supplier?.fiscalCode == null) return `${noticeNo} has no supplier yet (not finalised)`
  const authority = splitParty(item.contractingAuthority)
  const itemCpvs: Array<unknown> = Array.isArray(view.directAcquisitionItems)
    ? view.directAcquisitionItems.map((line: Json) => str(line?.cpvCode?.localeKey) ?? cpvOf(line?.cpvCode?.text))
    : []
  const mainCpv = str(view.cpvCode?.localeKey) ?? cpvOf(view.cpvCode?.text) ?? cpvOf(item.cpvCode) ?? str(item.cpvCode)
  const cpvs = [...new Set([mainCpv ?? "", ...itemCpvs.filter((code): code is string => typeof code === "string")])]
  const value = positive(view.closingValue) ?? positive(item.closingValue) ?? positive(item.estimatedValueRon)
  return {
    source: "sicap",
    source_id: noticeNo,
    notice_type: "award",
    title: str(item.directAcquisitionName) ?? str(view.directAcquisitionName) ?? "",
    description: str(view.directAcquisitionDescription) ?? "",
    cpv_codes: cpvs as [string, ...Array<string>],
    contracting_authority: { name: authority?.name ?? "", fiscal_code: authority?.fiscalCode ?? null, county: null },
    deadline: null,
    ...recordValueFields(value, "RON"),
    publish_date: sicapInstant(item.publicationDate) ?? sicapInstant(view.publicationDate) ?? "",
    source_url: directAcquisitionUrl(item.directAcquisitionId),
    winner_fiscal_codes: [supplier.fiscalCode]
  }
}

/**
 * The tender record of one polled SEAP notice, or the reason it is skipped. `cn`: a participation
 * list item (a full notice beside it adds description, county, lot CPVs); `can`: an award list item,
 * its `C_PUBLIC_CANotice/get` detail and its `GetCANoticeContracts` items (winners); `da`: a
 * direct-acquisition list item and its `PublicDirectAcquisition/getView` detail (an award).
 */
export const sicapRecord = (
  kind: "cn" | "can" | "da",
  parts: { readonly item: unknown; readonly detail?: unknown; readonly contracts?: ReadonlyArray<unknown> }
): TenderRecordInput | string => {
  const item = parts.item
  if (!isObject(item)) return "not a SICAP list item"
  switch (kind) {
    case "cn":
      return cnRecord(item, parts.detail)
    case "can":
      return canRecord(item, parts.detail, (parts.contracts ?? []).filter(isObject))
    case "da":
      return daRecord(item, parts.detail)
  }
}

/**
 * A TED publication number as "<number>-<year>" without leading zeros: "2020/S 064-154324" (OJ S
 * reference), "00154324-2020" and "154324-2020" (TED / eForms) all give "154324-2020". Undefined
 * when the text holds no such number.
 */
export const normalizeTedPublicationNumber = (s: string): string | undefined => {
  const text = s.trim()
  const make = (number: string, year: string) => {
    const n = number.replace(/^0+/, "")
    const y = Number(year)
    return n === "" || y < 1990 || y > 2100 ? undefined : `${n}-${year}`
  }
  const ojs = /^(?:OJ\s*)?(\d{4})\s*\/\s*S\s*\d{1,3}\s*-\s*(\d{1,10})$/i.exec(text)
  if (ojs !== null) return make(ojs[2]!, ojs[1]!)
  const ted = /(?:^|[^\d])(\d{1,10})\s*-\s*(\d{4})(?!\d)/.exec(text)
  return ted === null ? undefined : make(ted[1]!, ted[2]!)
}

/**
 * The TED publication number an award notice detail carries (`section0_New.tedNoticeNo`,
 * `publicationDetailsModel.jouePublicationNumber`, the top-level `tedNoticeNo`, or the OJ S parts of
 * `completeTedModel`), normalised; undefined when the notice was not sent to JOUE.
 */
export const sicapTedPublicationNumber = (detail: unknown): string | undefined => {
  if (!isObject(detail)) return undefined
  const editKey = Object.keys(detail).find((key) => /NoticeEdit/i.test(key) && isObject(detail[key]))
  const edit: Json = editKey === undefined ? {} : detail[editKey]
  const section0Key = Object.keys(edit).find((key) => /^section0/i.test(key) && isObject(edit[key]))
  const section0: Json = section0Key === undefined ? {} : edit[section0Key]
  const ted: Json = isObject(section0.completeTedModel) ? section0.completeTedModel : {}
  const parts =
    str(ted.ojeuNoticeNoYear) !== undefined && str(ted.ojeuNoticeNoThirdPart) !== undefined
      ? `${str(ted.ojeuNoticeNoThirdPart)}-${str(ted.ojeuNoticeNoYear)}`
      : undefined
  for (const candidate of [
    section0.tedNoticeNo,
    edit.publicationDetailsModel?.jouePublicationNumber,
    detail.tedNoticeNo,
    parts
  ]) {
    const text = str(candidate)
    const normalised = text === undefined ? undefined : normalizeTedPublicationNumber(text)
    if (normalised !== undefined) return normalised
  }
  return undefined
}
