/**
 * A fake of SEAP/SICAP's public API (e-licitatie.ro `api-pub`) for the SEAP poller's tests: node:http
 * on 127.0.0.1, answering with the shapes the real API answers with.
 *
 * What it is built on, and where each shape comes from:
 *
 * - Award notices (CAN): the list item, the `C_PUBLIC_CANotice/get/{caNoticeId}` detail and the
 *   `GetCANoticeContracts` items are clones of the real sample (test/fixtures/sicap/
 *   sicap_api_samples.json = /work/shared/data/samples/sicap, keys item / notice / contracts; the same
 *   data as github:ciocan/sicap-parser lib/test/test-data.js). The sample's `item` (CAN1031498) and its
 *   `notice`/`contracts` (CAN1008830) are two different notices; the builder re-keys all three to one.
 *   Endpoints, request bodies and the `Referer` sicap-parser sends: ciocan/sicap-parser lib/sicap-api.js
 *   and data/postman-collection.json (read at 80b1b6f).
 * - Contract notices (CN, `GetCNoticeList`): no sample here; the item's keys follow live captures
 *   published as test fixtures in public repositories (a "romania-intel-engine" test of its
 *   notice_scraper, captured 2026-09-08: items keyed `cNoticeId` with `noticeId`, `procedureId`,
 *   `noticeNo` "CN1010402" / "SCN1040692", `sysNoticeTypeId` 2 / 17, `contractingAuthorityNameAndFN`
 *   "4374873 - SPITALUL …" or "RO 14056826 - …", `cpvCodeAndName`, `estimatedValueRon` (not
 *   `ronContractValue`, which award items carry), `hasLots`, `noticeStateDate`, `min/maxTenderReceiptDeadline`
 *   with offset, `tenderReceiptDeadlineExport` "09.05.2019 15:00", `estimatedValueExport` "14867462 RON"
 *   / "1021908,27 RON", `sadId`, `hasAppeal`; enum objects `{id, text, localeKey, apiActionResult}`).
 *   No `publicationDate` on notice list items (also the README's and a 2026 live study's finding), so
 *   the fake keeps the publication date beside the item, hidden, and filters on it.
 * - Direct acquisitions (DA): list item keys from the same repository's live DA fixtures (captured
 *   2026-08-31) and the `DirectAcquisitionContract` entity of the "cineseuita" Java project:
 *   `directAcquisitionId, directAcquisitionName, sysDirectAcquisitionState{id,text,localeKey},
 *   uniqueIdentificationCode "DA22780457", cpvCode "34351100-3 - Pneuri … (Rev.2)", publicationDate,
 *   finalizationDate, caDecisionDeadline, supplierDecisionDeadline, supplier "RO 6865630 DELTA PLUS
 *   TRADING S.R.L." (fiscal code then name, no dash; null until finalised), contractingAuthority
 *   "4317975 Unitatea Militara 01714", estimatedValueRon, estimatedValueOtherCurrency, closingValue,
 *   isOpenForCorrection, isOpenForContractCorrection`. The `PublicDirectAcquisition/getView/{id}` detail
 *   follows the cineseuita project's recorded response (FetchDirectAcquisitionContractDetails mock) and
 *   its DirectAcquisitionContractDetails entity: `estimatedValue, secondCurrencyEstimatedValue,
 *   closingValue, secondCurrencyClosingValue, economy…/loss…, publicationDate, supplierDecisionDate,
 *   caDecisionDate, finalizationDate, uniqueIdentificationCode, correctionReason, directAcquisitionID
 *   (capital ID), directAcquisitionName, directAcquisitionDescription, cpvCode{id,text,localeKey =
 *   the CPV code}, deliveryCondition, paymentCondition, supplierId, contractingAuthorityID (SEAP entity
 *   ids — for getSUEntityView / getCAEntityView — not fiscal codes), documents, directAcquisitionItems[
 *   {directAcquisitionItemID, catalogItem…, itemClosingPrice, itemQuantity, itemMeasureUnit, cpvCode{…},
 *   assignedUserEmail …}], supplierRejectionReason, caRejectionReason, isOpenForCorrection,
 *   isOpenForContractCorrection, daAwardNoticeID, assignedCAUser, assignedSupplierUser,
 *   financingType, sysAcquisitionContractType, sysEuropeanFund, sysDirectAcquisitionState, isExpired`.
 *   So a DA's winner fiscal code is only in the list item's `supplier`, and neither DA shape has a
 *   county (the authority's county is in `Entity/getCAEntityView`, not faked here).
 * - Behaviour: `{total, items, searchTooLong}` with `total` capped and `searchTooLong: true` past the
 *   cap, items past the cap unreachable; 403 `{"message":"Access Denied: Referrer cannot be null."}`
 *   without a same-site Referer; 200 text/html during maintenance; 429 (+ Retry-After) — from
 *   /work/shared/sources/README.md §2 and a 2026 study of the live API ("bronze-layer" research note).
 *   That study also reports that the real DA list IGNORES `publicationDateStart/End` (only
 *   `finalizationDateStart/End` filter); this fake filters on both, as its brief asks — a poller must
 *   not rely on the publication-date filter of the DA list in production.
 *
 * Choices of the fake where the real API is not documented: unknown ids answer 404 `{"message"}`;
 * `pageSize` defaults to 20 and is clamped to 1..2000, `take` to 1..200; items are served in
 * publication-date order, then publish order; routes match case-insensitively with or without a
 * trailing slash; unreadable date bounds are ignored like unknown fields; a same-site Referer is any
 * URL on e-licitatie.ro (www., istoric.) or on the fake's own host.
 */

import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { bucharestOffsetMinutes, bucharestWallClockToInstant } from "../../src/domain/BucharestTime.js"
import { countyFromNuts } from "../../src/domain/tenders/Counties.js"

export type SeapJson = Record<string, any>

/** A participation notice as published: its `GetCNoticeList` item, and the publication day the list filters on. */
export interface SeapContractNotice {
  readonly publicationDate: string
  readonly item: SeapJson
}

/** An award notice as published: its `GetCANoticeList` item, `C_PUBLIC_CANotice/get` detail and contracts. */
export interface SeapAwardNotice {
  readonly publicationDate: string
  readonly item: SeapJson
  readonly detail: SeapJson
  readonly contracts: ReadonlyArray<SeapJson>
}

/** A direct acquisition: its `GetDirectAcquisitionList` item and `PublicDirectAcquisition/getView` detail. */
export interface SeapDirectAcquisition {
  readonly publicationDate: string
  readonly finalizationDate: string
  readonly item: SeapJson
  readonly detail: SeapJson
}

export interface SeapParty {
  /** As SEAP writes it: "RO 22505268", "22505268". */
  readonly fiscalCode: string
  readonly name?: string
}

/** What a test sets on a notice; everything else comes from the real sample. */
export interface SeapNoticeOptions {
  /** The hidden publication day, `YYYY-MM-DD` (Bucharest); the lists filter on it. */
  readonly publicationDate: string
  /** cNoticeId / caNoticeId / directAcquisitionId (default: a fresh one). */
  readonly id?: number
  /** "CN1012345", "CAN1012345", "DA22780457" (default: from the id). */
  readonly noticeNo?: string
  readonly title?: string
  /** "NNNNNNNN-D - label". */
  readonly cpv?: string
  /** "RO123 - NAME" (fiscal code, then name). */
  readonly authority?: string
  /** The authority's county (CAN detail only: the DA shapes have none, CN list items neither). */
  readonly county?: string
  /** RON. */
  readonly value?: number
  readonly errataNo?: number
  /** The list item's `noticeStateDate` (default: the publication day at 10:00 Bucharest). */
  readonly noticeStateDate?: string
}

export interface SeapContractNoticeOptions extends SeapNoticeOptions {
  /** Tender deadline, Bucharest `YYYY-MM-DD` or `YYYY-MM-DDTHH:mm` (default: 20 days after publication, 15:00). */
  readonly deadline?: string
  /** 2 = CN (default), 17 = SCN, 7 = RFQ … */
  readonly sysNoticeTypeId?: number
}

export interface SeapAwardNoticeOptions extends SeapNoticeOptions {
  /** One contract per winner (default: the sample's two winners). */
  readonly winners?: ReadonlyArray<SeapParty & { readonly value?: number }>
  /** The TED publication number as SEAP would carry it ("2020/S 064-154324"); default none (not sent to JOUE). */
  readonly tedNoticeNo?: string
  /** 3 = CAN (default), 13 = SCAN, 18 = PCAN … */
  readonly sysNoticeTypeId?: number
}

export interface SeapDirectAcquisitionOptions extends SeapNoticeOptions {
  /** The supplier; null: not finalised yet. Default "RO 6865630 DELTA PLUS TRADING S.R.L.". */
  readonly supplier?: SeapParty | null
  /** `YYYY-MM-DD` (default: the publication day). */
  readonly finalizationDate?: string
}

/* ------------------------------------------------------------------------------------------------
 * Builders
 * ---------------------------------------------------------------------------------------------- */

const SAMPLE: { item: SeapJson; notice: SeapJson; contracts: { total: number; items: Array<SeapJson> } } = JSON.parse(
  fs.readFileSync(new URL("../fixtures/sicap/sicap_api_samples.json", import.meta.url), "utf8")
)
const SAMPLE_CA_NOTICE_ID: number = SAMPLE.notice.caNoticeID

const clone = <A>(value: A): A => structuredClone(value)

let nextId = 100_500_000
const freshId = () => nextId++

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/** "2024-03-01" + "10:00:00" (Bucharest) → "2024-03-01T10:00:00+02:00", the API's way. */
export const seapLocalTimestamp = (date: string, time = "10:00:00"): string => {
  const d = DAY.exec(date)
  const t = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(time)
  if (d === null || t === null) throw new Error(`not a day and time: ${date} ${time}`)
  const wall = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]), Number(t[3] ?? 0))
  const offset = bucharestOffsetMinutes(bucharestWallClockToInstant(wall))
  const hh = String(Math.floor(offset / 60)).padStart(2, "0")
  const mm = String(offset % 60).padStart(2, "0")
  return `${date}T${t[1]!.padStart(2, "0")}:${t[2]}:${t[3] ?? "00"}+${hh}:${mm}`
}

const addDays = (date: string, days: number) => {
  const d = new Date(`${date}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

/** "RO123 - NAME" → { code: "RO123", name: "NAME" }. */
const authorityParts = (authority: string) => {
  const match = /^\s*((?:RO)?\s*\d{2,10})\s*-\s*(.+)$/i.exec(authority)
  return match === null ? { code: "", name: authority.trim() } : { code: match[1]!.trim(), name: match[2]!.trim() }
}

/** "77211100-3 - Servicii …" → { code, label }. */
const cpvParts = (cpv: string) => {
  const match = /^\s*(\d{8}-\d)\s*(?:-\s*)?(.*)$/.exec(cpv)
  return match === null ? { code: cpv.trim(), label: "" } : { code: match[1]!, label: match[2]!.trim() }
}

/** The export's value: "12130675,84 RON", "14867462 RON" (Romanian decimal comma, no grouping). */
const exportValue = (value: number) =>
  `${Number.isInteger(value) ? String(value) : value.toFixed(2).replace(".", ",")} RON`

const fold = (s: string) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()

/** The NUTS 3 code of a county name ("Cluj" → "RO113"), found through the project's own table. */
const nutsOfCounty = (county: string): string | undefined => {
  for (let a = 1; a <= 4; a++)
    for (let b = 1; b <= 2; b++)
      for (let c = 1; c <= 7; c++) {
        const code = `RO${a}${b}${c}`
        const name = countyFromNuts(code)
        if (name !== null && fold(name) === fold(county)) return code
      }
  return undefined
}

const enumItem = (id: number, text: string) => ({ id, text, localeKey: null, apiActionResult: null })

/** Every `caNoticeId` / `caNoticeID` in a cloned payload that still holds the sample's id, set to `id`. */
const rekey = (value: unknown, id: number): void => {
  if (Array.isArray(value)) {
    for (const entry of value) rekey(entry, id)
  } else if (typeof value === "object" && value !== null) {
    const object = value as SeapJson
    for (const key of Object.keys(object)) {
      if (/^caNoticeId$/i.test(key) && object[key] === SAMPLE_CA_NOTICE_ID) object[key] = id
      else rekey(object[key], id)
    }
  }
}

/** A participation notice (`GetCNoticeList` item). */
export const seapContractNotice = (options: SeapContractNoticeOptions): SeapContractNotice => {
  const id = options.id ?? freshId()
  const typeId = options.sysNoticeTypeId ?? 2
  const noticeNo = options.noticeNo ?? `${typeId === 17 ? "SCN" : "CN"}${1_000_000 + (id % 1_000_000)}`
  const authority = authorityParts(options.authority ?? "4374873 - SPITALUL DE URGENTA PETROSANI")
  const cpv = options.cpv ?? "33652100-6 - Antineoplazice (Rev.2)"
  const value = options.value ?? 14_867_462
  const deadlineLocal = options.deadline ?? `${addDays(options.publicationDate, 20)}T15:00`
  const [deadlineDay, deadlineTime] = deadlineLocal.split("T") as [string, string | undefined]
  const deadline = seapLocalTimestamp(deadlineDay, deadlineTime ?? "15:00")
  const [y, m, d] = deadlineDay.split("-")
  return {
    publicationDate: options.publicationDate,
    item: {
      cNoticeId: id,
      noticeId: id + 105_000,
      procedureId: id + 14_000,
      noticeNo,
      sysNoticeTypeId: typeId,
      sysNoticeState: enumItem(2, "Publicat"),
      sysProcedureState: enumItem(2, "In desfasurare"),
      contractingAuthorityNameAndFN: `${authority.code} - ${authority.name}`,
      contractTitle: options.title ?? "Furnizare medicamente oncologice",
      sysAcquisitionContractType: enumItem(1, "Furnizare"),
      sysProcedureType: typeId === 17 ? enumItem(20, "Procedura simplificata") : enumItem(1, "Licitatie deschisa"),
      sysContractAssigmentType: enumItem(1, "Contract de achizitii publice"),
      cpvCodeAndName: cpv,
      estimatedValueRon: value,
      isOnline: true,
      hasLots: false,
      noticeStateDate: options.noticeStateDate ?? seapLocalTimestamp(options.publicationDate),
      minTenderReceiptDeadline: deadline,
      maxTenderReceiptDeadline: deadline,
      errataNo: options.errataNo ?? 0,
      sysNoticeVersionId: 2,
      tenderReceiptDeadlineExport: `${d}.${m}.${y} ${(deadlineTime ?? "15:00").slice(0, 5)}`,
      estimatedValueExport: exportValue(value),
      sadId: null,
      hasAppeal: false
    }
  }
}

/** An award notice: `GetCANoticeList` item, `C_PUBLIC_CANotice/get` detail and contracts, from the real sample. */
export const seapAwardNotice = (options: SeapAwardNoticeOptions): SeapAwardNotice => {
  const id = options.id ?? freshId()
  const noticeNo = options.noticeNo ?? `CAN${1_000_000 + (id % 1_000_000)}`
  const published = seapLocalTimestamp(options.publicationDate, "09:24:07")
  const authority = authorityParts(
    options.authority ?? "RO4301103 - SPITALUL CLINIC JUDETEAN DE URGENTA SF. APOSTOL ANDREI"
  )
  const cpv = cpvParts(options.cpv ?? "33100000-1 - Echipamente medicale (Rev.2)")
  const title = options.title ?? SAMPLE.notice.title
  const value = options.value ?? 477_200
  const ted = options.tedNoticeNo
  const winners = options.winners ?? [
    { fiscalCode: "RO 22505268", name: "KARL STORZ ENDOSCOPIA ROMANIA", value: 319_800 },
    { fiscalCode: "RO 24205100", name: "MEDIST IMAGING & P.O.C. S.R.L.", value: 157_400 }
  ]

  const item = clone(SAMPLE.item)
  Object.assign(item, {
    caNoticeId: id,
    noticeId: id + 107_000,
    procedureId: id + 33_000,
    noticeNo,
    sysNoticeTypeId: options.sysNoticeTypeId ?? 3,
    contractingAuthorityNameAndFN: `${authority.code} - ${authority.name}`,
    contractTitle: title,
    cpvCodeAndName: `${cpv.code} - ${cpv.label}`,
    ronContractValue: value,
    noticeStateDate: options.noticeStateDate ?? published,
    errataNo: options.errataNo ?? 0,
    estimatedValueExport: exportValue(value),
    currencyCode: "RON"
  })

  const detail = clone(SAMPLE.notice)
  rekey(detail, id)
  const edit = detail.caNoticeEdit_New
  const address = edit.section1_New.section1_1.caAddress
  const nuts = options.county === undefined ? undefined : nutsOfCounty(options.county)
  Object.assign(detail, {
    caNoticeID: id,
    noticeID: id + 107_000,
    procedureId: id + 33_000,
    noticeNumber: noticeNo,
    title,
    publicationDate: published,
    sentToJOUE: ted !== undefined,
    tedNoticeNo: ted ?? null
  })
  Object.assign(edit.publicationDetailsModel, { caPublicationDate: published, jouePublicationNumber: ted ?? "" })
  Object.assign(edit.section0_New, { sentToJOUE: ted !== undefined, tedNoticeNo: ted ?? null })
  Object.assign(address, {
    officialName: authority.name,
    nationalIDNumber: authority.code.replace(/^RO\s*/i, "")
  })
  if (options.county !== undefined) {
    address.county = { id: 1, text: options.county, localeKey: null }
    address.city = options.county
    if (nuts !== undefined) address.nutsCodeItem = { id: 1, text: `${nuts} ${options.county}`, localeKey: null }
  }
  Object.assign(edit.section2_New.section2_1_New, {
    contractTitle: title,
    mainCPVCode: { id: 12677, text: cpv.label, localeKey: cpv.code },
    shortDescription: title,
    totalAcquisitionValue: value,
    totalRONAcquisitionValueForPAAP: value
  })
  for (const lot of edit.section2_New.section2_2_New.descriptionList as Array<SeapJson>) {
    lot.mainCPVCodes = { id: 12677, text: `${cpv.code} ${cpv.label}`, localeKey: null }
    if (nuts !== undefined) lot.nutsCode = { id: 1, text: `${nuts} ${options.county}`, localeKey: null }
  }
  edit.section6_New.section6_5_New.noticeSendDate = published
  detail.paapModel.contractAcquisitionValue = value

  const contracts = winners.map((winner, index) => {
    const contract = clone(SAMPLE.contracts.items[index % SAMPLE.contracts.items.length]!)
    const name = winner.name ?? `OFERTANT ${index + 1} S.R.L.`
    const party = clone(contract.winner)
    Object.assign(party, { caNoticeId: id, name, fiscalNumber: winner.fiscalCode })
    Object.assign(party.address, { officialName: name, nationalIDNumber: winner.fiscalCode })
    const contractValue = winner.value ?? Math.round((value / winners.length) * 100) / 100
    Object.assign(contract, {
      caNoticeContractId: id * 10 + index,
      caNoticeId: id,
      noticeNo,
      contractNo: String(46_000 + index),
      contractDate: seapLocalTimestamp(options.publicationDate, "00:00:00"),
      winnerCaption: name,
      winner: party,
      winners: [clone(party)],
      contractValue,
      defaultCurrencyContractValue: contractValue
    })
    return contract
  })
  return { publicationDate: options.publicationDate, item, detail, contracts }
}

/** A direct acquisition: `GetDirectAcquisitionList` item and `PublicDirectAcquisition/getView` detail. */
export const seapDirectAcquisition = (options: SeapDirectAcquisitionOptions): SeapDirectAcquisition => {
  const id = options.id ?? freshId()
  const noticeNo = options.noticeNo ?? `DA${22_000_000 + (id % 1_000_000)}`
  const published = seapLocalTimestamp(options.publicationDate, "14:17:43")
  const finalizationDay = options.finalizationDate ?? options.publicationDate
  const finalized = seapLocalTimestamp(finalizationDay, "01:30:00")
  const authority = authorityParts(options.authority ?? "4317975 - Unitatea Militara 01714")
  const cpv = cpvParts(options.cpv ?? "34351100-3 - Pneuri pentru autovehicule (Rev.2)")
  const title = options.title ?? "Anvelopa 185/65R15 88T vara Matador MP47"
  const value = options.value ?? 1000
  const supplier =
    options.supplier === undefined ? { fiscalCode: "RO 6865630", name: "DELTA PLUS TRADING S.R.L." } : options.supplier
  const state =
    supplier === null
      ? { id: 5, text: "Publicat", localeKey: null }
      : { id: 7, text: "Oferta acceptata", localeKey: null }
  const cpvObject = { id: 12_353, text: cpv.label, localeKey: cpv.code }
  const estimated = Math.round(value * 1.13216 * 100) / 100
  const item = {
    directAcquisitionId: id,
    directAcquisitionName: title,
    sysDirectAcquisitionState: state,
    uniqueIdentificationCode: noticeNo,
    cpvCode: `${cpv.code} - ${cpv.label}`,
    publicationDate: published,
    finalizationDate: supplier === null ? null : finalized,
    caDecisionDeadline: seapLocalTimestamp(addDays(options.publicationDate, 5), "17:00:00"),
    supplierDecisionDeadline: seapLocalTimestamp(addDays(options.publicationDate, 9), "17:00:00"),
    supplier: supplier === null ? null : `${supplier.fiscalCode} ${supplier.name ?? "FURNIZOR S.R.L."}`,
    contractingAuthority: `${authority.code.replace(/^RO\s*/i, "")} ${authority.name}`,
    estimatedValueRon: estimated,
    estimatedValueOtherCurrency: Math.round((estimated / 4.75) * 100) / 100,
    closingValue: supplier === null ? null : value,
    isOpenForCorrection: null,
    isOpenForContractCorrection: false
  }
  const detail = {
    estimatedValue: estimated,
    secondCurrencyEstimatedValue: item.estimatedValueOtherCurrency,
    closingValue: item.closingValue,
    secondCurrencyClosingValue: supplier === null ? null : Math.round((value / 4.75) * 100) / 100,
    economyValue: null,
    economySecondCurrencyValue: null,
    economyPercent: null,
    lossValue: null,
    lossSecondCurrencyValue: null,
    lossPercent: null,
    publicationDate: published,
    supplierDecisionDate: supplier === null ? null : finalized,
    caDecisionDate: supplier === null ? null : finalized,
    finalizationDate: item.finalizationDate,
    uniqueIdentificationCode: noticeNo,
    correctionReason: null,
    directAcquisitionID: id,
    directAcquisitionName: title,
    directAcquisitionDescription: `${title}\tMarfa\tBUCATA\t4.\t${value}`,
    cpvCode: cpvObject,
    deliveryCondition: "FRANCO DEPOZIT FURNIZOR",
    paymentCondition: "PLATA LA 15 ZILE",
    supplierId: supplier === null ? null : 50_710,
    supplierDecisionDeadline: item.supplierDecisionDeadline,
    caDecisionDeadline: item.caDecisionDeadline,
    contractingAuthorityID: 6026,
    documents: [],
    directAcquisitionItems: [
      {
        directAcquisitionItemID: id + 1_400_000,
        catalogItemID: 100_957_326,
        catalogItemHistoryID: 108_606_331,
        sysCatalogItemStateID: 2,
        catalogItemCode: `LC-${noticeNo}/1`,
        catalogItemName: title,
        catalogItemDescription: title,
        catalogItemPrice: value,
        itemClosingPrice: item.closingValue,
        itemEstimatedPrice: estimated,
        secondCurrencyEstimatedPrice: item.estimatedValueOtherCurrency,
        itemQuantity: 1.0,
        itemRequestedQuantity: 1.0,
        itemMeasureUnit: "bucata",
        isRejectedBySupplier: false,
        hasQuantityCorrection: false,
        imageUrl: null,
        imageThumbUrl: null,
        associatedPaapDetailName: null,
        assignedUserEmail: "xxx@xxx.ro",
        cpvCode: cpvObject,
        isExpired: null,
        itemHistory: null
      }
    ],
    supplierRejectionReason: null,
    caRejectionReason: null,
    isOpenForCorrection: null,
    isOpenForContractCorrection: false,
    daAwardNoticeID: null,
    assignedCAUser: { id: 101_187, text: "xxx", localeKey: "xxx" },
    assignedSupplierUser: null,
    financingType: false,
    sysAcquisitionContractType: {
      id: 1,
      text: "Furnizare",
      localeKey: "Common.Clasiff.SysAcquisitionContractType.Supply"
    },
    sysAcquisitionContractTypeID: 1,
    sysEuropeanFund: null,
    sysEuropeanFundID: null,
    sysDirectAcquisitionState: state,
    sysDirectAcquisitionStateID: state.id,
    isExpired: null
  }
  return { publicationDate: options.publicationDate, finalizationDate: finalizationDay, item, detail }
}

/* ------------------------------------------------------------------------------------------------
 * The server
 * ---------------------------------------------------------------------------------------------- */

export interface FakeSeapRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: unknown
}

export interface FakeSeap {
  /** Base, e.g. http://127.0.0.1:PORT (the poller appends /api-pub/...). */
  readonly url: string
  publishContractNotice(n: SeapContractNotice): void
  publishAwardNotice(n: SeapAwardNotice): void
  publishDirectAcquisition(n: SeapDirectAcquisition): void
  /** Every request answers 200 text/html (a maintenance page), as SEAP does. */
  setMaintenance(on: boolean): void
  /** The next `times` requests answer 429 (+ Retry-After when given). */
  rateLimit(times: number, retryAfterSeconds?: number): void
  /** The next `times` detail requests of notice `noticeNo` (CAN detail, DA getView) answer `status` (default 500). */
  failDetail(noticeNo: string, times: number, status?: number): void
  readonly requests: ReadonlyArray<FakeSeapRequest>
  close(): Promise<void>
}

const JSON_TYPE = "application/json; charset=utf-8"

const MAINTENANCE_PAGE = `<!DOCTYPE html>
<html lang="ro"><head><meta charset="utf-8"><title>SEAP - Lucrari de mentenanta</title></head>
<body><h1>Sistemul Electronic de Achizitii Publice este in mentenanta</h1>
<p>Va rugam reveniti mai tarziu.</p></body></html>
`

/** `YYYY-MM-DD` of a body's date bound (also the date part of an ISO timestamp); undefined when absent or unreadable. */
const dayBound = (value: unknown): string | undefined =>
  typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined

const within = (day: string | undefined, start: string | undefined, end: string | undefined) =>
  (start === undefined || (day !== undefined && day >= start)) &&
  (end === undefined || (day !== undefined && day <= end))

const integer = (value: unknown, fallback: number) =>
  typeof value === "number" && Number.isInteger(value) ? value : fallback

const SAME_SITE = new Set(["e-licitatie.ro", "www.e-licitatie.ro", "istoric.e-licitatie.ro"])

export const startFakeSeap = async (options?: { readonly listCap?: number }): Promise<FakeSeap> => {
  const listCap = options?.listCap ?? 2000
  const contractNotices = new Map<number, SeapContractNotice>()
  const awardNotices = new Map<number, SeapAwardNotice>()
  const directAcquisitions = new Map<number, SeapDirectAcquisition>()
  const order = new Map<SeapJson, number>()
  let published = 0
  let maintenance = false
  let limited = { times: 0, retryAfter: undefined as number | undefined }
  const failures = new Map<string, { times: number; status: number }>()
  const requests: Array<FakeSeapRequest> = []
  let ownHost = ""

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "Content-Type": JSON_TYPE, ...headers })
    res.end(JSON.stringify(body))
  }

  const page = <A extends { readonly publicationDate: string }>(
    all: ReadonlyArray<A>,
    body: SeapJson,
    keep: (entry: A) => boolean,
    itemOf: (entry: A) => SeapJson
  ) => {
    const matched = all
      .filter(keep)
      .sort((a, b) =>
        a.publicationDate === b.publicationDate
          ? order.get(itemOf(a))! - order.get(itemOf(b))!
          : a.publicationDate < b.publicationDate
            ? -1
            : 1
      )
    const reachable = matched.slice(0, listCap)
    const pageSize = Math.min(Math.max(integer(body.pageSize, 20), 1), 2000)
    const pageIndex = Math.max(integer(body.pageIndex, 0), 0)
    return {
      total: reachable.length,
      items: reachable.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize).map((entry) => clone(itemOf(entry))),
      searchTooLong: matched.length > listCap
    }
  }

  const noticeList = <A extends { readonly publicationDate: string; readonly item: SeapJson }>(
    store: Map<number, A>,
    body: SeapJson
  ) => {
    const types: ReadonlyArray<unknown> = Array.isArray(body.sysNoticeTypeIds) ? body.sysNoticeTypeIds : []
    const start = dayBound(body.startPublicationDate)
    const end = dayBound(body.endPublicationDate)
    return page(
      [...store.values()],
      body,
      (notice) =>
        within(notice.publicationDate, start, end) &&
        (types.length === 0 || types.includes(notice.item.sysNoticeTypeId)),
      (notice) => notice.item
    )
  }

  const directAcquisitionList = (body: SeapJson) => {
    const publicationStart = dayBound(body.publicationDateStart)
    const publicationEnd = dayBound(body.publicationDateEnd)
    const finalizationStart = dayBound(body.finalizationDateStart)
    const finalizationEnd = dayBound(body.finalizationDateEnd)
    return page(
      [...directAcquisitions.values()],
      body,
      (da) =>
        within(da.publicationDate, publicationStart, publicationEnd) &&
        within(da.item.finalizationDate === null ? undefined : da.finalizationDate, finalizationStart, finalizationEnd),
      (da) => da.item
    )
  }

  /** A planned failure of this notice's detail, if one is left. */
  const failure = (noticeNo: string) => {
    const planned = failures.get(noticeNo)
    if (planned === undefined || planned.times <= 0) return undefined
    planned.times -= 1
    return planned.status
  }

  const refererAllowed = (referer: string | undefined) => {
    if (referer === undefined || referer.trim() === "") return false
    try {
      const url = new URL(referer)
      return SAME_SITE.has(url.hostname.toLowerCase()) || url.host === ownHost
    } catch {
      return false
    }
  }

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, raw: string) => {
    const method = (req.method ?? "GET").toUpperCase()
    const path = req.url ?? "/"
    let body: unknown
    let invalidBody = false
    if (raw.trim() !== "") {
      try {
        body = JSON.parse(raw)
      } catch {
        body = raw
        invalidBody = true
      }
    }
    requests.push({ method, path, headers: { ...req.headers }, body })

    if (maintenance) {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" })
      res.end(MAINTENANCE_PAGE)
      return
    }
    if (limited.times > 0) {
      limited.times -= 1
      const headers: Record<string, string> =
        limited.retryAfter === undefined ? {} : { "Retry-After": String(limited.retryAfter) }
      send(res, 429, { message: "Too many requests." }, headers)
      return
    }
    const referer = req.headers.referer
    if (!refererAllowed(Array.isArray(referer) ? referer[0] : referer)) {
      send(res, 403, { message: "Access Denied: Referrer cannot be null." })
      return
    }

    const route = (new URL(path, "http://fake").pathname.replace(/\/+$/, "") || "/").toLowerCase()
    const json: SeapJson | undefined =
      typeof body === "object" && body !== null && !Array.isArray(body) ? (body as SeapJson) : undefined
    const postBody = () => {
      if (invalidBody || json === undefined) {
        send(res, 400, { message: "The request is invalid." })
        return undefined
      }
      return json
    }

    if (method === "POST" && route === "/api-pub/noticecommon/getcnoticelist") {
      const b = postBody()
      if (b !== undefined) send(res, 200, noticeList(contractNotices, b))
      return
    }
    if (method === "POST" && route === "/api-pub/noticecommon/getcanoticelist") {
      const b = postBody()
      if (b !== undefined) send(res, 200, noticeList(awardNotices, b))
      return
    }
    if (method === "POST" && route === "/api-pub/directacquisitioncommon/getdirectacquisitionlist") {
      const b = postBody()
      if (b !== undefined) send(res, 200, directAcquisitionList(b))
      return
    }
    if (method === "POST" && route === "/api-pub/c_public_canotice/getcanoticecontracts") {
      const b = postBody()
      if (b === undefined) return
      const notice = awardNotices.get(Number(b.caNoticeId))
      const all = notice?.contracts ?? []
      const skip = Math.max(integer(b.skip, 0), 0)
      const take = Math.min(Math.max(integer(b.take, 200), 1), 200)
      send(res, 200, { total: all.length, items: all.slice(skip, skip + take).map(clone) })
      return
    }
    const caDetail = /^\/api-pub\/c_public_canotice\/get\/(\d+)$/.exec(route)
    if (method === "GET" && caDetail !== null) {
      const notice = awardNotices.get(Number(caDetail[1]))
      if (notice === undefined) {
        send(res, 404, { message: `No award notice ${caDetail[1]}.` })
        return
      }
      const status = failure(String(notice.item.noticeNo))
      if (status !== undefined) send(res, status, { message: "An error has occurred." })
      else send(res, 200, clone(notice.detail))
      return
    }
    const daDetail = /^\/api-pub\/publicdirectacquisition\/getview\/(\d+)$/.exec(route)
    if (method === "GET" && daDetail !== null) {
      const da = directAcquisitions.get(Number(daDetail[1]))
      if (da === undefined) {
        send(res, 404, { message: `No direct acquisition ${daDetail[1]}.` })
        return
      }
      const status = failure(String(da.item.uniqueIdentificationCode))
      if (status !== undefined) send(res, status, { message: "An error has occurred." })
      else send(res, 200, clone(da.detail))
      return
    }
    send(res, 404, { message: `No HTTP resource was found that matches the request URI '${path}'.` })
  }

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString("utf8"))
      } catch (error) {
        if (!res.headersSent) send(res, 500, { message: String(error) })
        else res.end()
      }
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  ownHost = `127.0.0.1:${port}`

  const remember = (item: SeapJson) => order.set(item, published++)

  return {
    url: `http://${ownHost}`,
    publishContractNotice: (n) => {
      remember(n.item)
      contractNotices.set(Number(n.item.cNoticeId), n)
    },
    publishAwardNotice: (n) => {
      remember(n.item)
      awardNotices.set(Number(n.item.caNoticeId), n)
    },
    publishDirectAcquisition: (n) => {
      remember(n.item)
      directAcquisitions.set(Number(n.item.directAcquisitionId), n)
    },
    setMaintenance: (on) => {
      maintenance = on
    },
    rateLimit: (times, retryAfterSeconds) => {
      limited = { times, retryAfter: retryAfterSeconds }
    },
    failDetail: (noticeNo, times, status = 500) => {
      failures.set(noticeNo, { times, status })
    },
    get requests() {
      return requests
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      })
  }
}
