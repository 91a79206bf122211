import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  normalizeTedPublicationNumber,
  sicapRecord,
  sicapTedPublicationNumber
} from "../../src/domain/tenders/formats/Sicap.js"
import { normalizeTenderRecord } from "../../src/domain/tenders/TenderRecord.js"
import { cpvCatalog, fixture } from "./support.js"

/** The real sample: `item` is CAN1031498's list row, `notice` and `contracts` are CAN1008830's. */
const sample = JSON.parse(fixture("sicap/sicap_api_samples.json"))

const tender = (record: ReturnType<typeof sicapRecord>) => {
  if (typeof record === "string") throw new Error(`skipped: ${record}`)
  const result = normalizeTenderRecord(cpvCatalog, record)
  if (Either.isLeft(result)) throw new Error(`invalid: ${result.left}`)
  return result.right
}

/** Live GetCNoticeList rows as published in a public repository's test fixtures (captured 2026-09-08). */
const cnItem = {
  cNoticeId: 100053648,
  noticeId: 100159118,
  procedureId: 100068106,
  noticeNo: "CN1010402",
  sysNoticeTypeId: 2,
  sysNoticeState: { id: 2, text: "Publicat", localeKey: null, apiActionResult: null },
  sysProcedureState: { id: 5, text: "Atribuita", localeKey: null, apiActionResult: null },
  contractingAuthorityNameAndFN: "4374873 - SPITALUL DE URGENTA PETROSANI",
  contractTitle: "Acord-cadru furnizare de produse – MEDICAMENTE (2019-2021)",
  sysAcquisitionContractType: { id: 1, text: "Furnizare", localeKey: null, apiActionResult: null },
  sysProcedureType: { id: 1, text: "Licitatie deschisa", localeKey: null, apiActionResult: null },
  sysContractAssigmentType: { id: 3, text: "Acord-cadru", localeKey: null, apiActionResult: null },
  cpvCodeAndName: "33652100-6 - Antineoplazice (Rev.2)",
  estimatedValueRon: 14867462.0,
  isOnline: true,
  hasLots: true,
  noticeStateDate: "2019-04-02T01:35:01+03:00",
  minTenderReceiptDeadline: "2019-05-09T15:00:00+03:00",
  maxTenderReceiptDeadline: "2019-05-09T15:00:00+03:00",
  errataNo: 0,
  sysNoticeVersionId: 2,
  tenderReceiptDeadlineExport: "09.05.2019 15:00",
  estimatedValueExport: "14867462 RON",
  sadId: null,
  hasAppeal: false
}

/** A live GetDirectAcquisitionList row (a public repository's fixture, captured 2026-08-31), finalised. */
const daItem = {
  directAcquisitionId: 103063481,
  directAcquisitionName: "Anvelopa 185/65R15 88T vara Matador MP47",
  sysDirectAcquisitionState: { id: 7, text: "Oferta acceptata", localeKey: null },
  uniqueIdentificationCode: "DA22780457",
  cpvCode: "34351100-3 - Pneuri pentru autovehicule (Rev.2)",
  publicationDate: "2019-04-08T14:17:43+03:00",
  finalizationDate: null,
  caDecisionDeadline: "2019-04-13T17:00:00+03:00",
  supplierDecisionDeadline: "2019-04-17T17:00:00+03:00",
  supplier: "RO 6865630 DELTA PLUS TRADING S.R.L.",
  contractingAuthority: "4317975 Unitatea Militara 01714",
  estimatedValueRon: 1132.16,
  estimatedValueOtherCurrency: 238.31,
  closingValue: 1000.0
}

/** Its getView detail, trimmed (shape of a recorded getView response: entity ids, not fiscal codes). */
const daDetail = {
  estimatedValue: 1132.16,
  closingValue: 1000.0,
  publicationDate: "2019-04-08T14:17:43+03:00",
  uniqueIdentificationCode: "DA22780457",
  directAcquisitionID: 103063481,
  directAcquisitionName: "Anvelopa 185/65R15 88T vara Matador MP47",
  directAcquisitionDescription: "Anvelopa 185/65R15 88T vara\tMarfa\tBUCATA\t4.",
  cpvCode: { id: 11941, text: "Pneuri pentru autovehicule (Rev.2)", localeKey: "34351100-3" },
  supplierId: 50710,
  contractingAuthorityID: 6026,
  directAcquisitionItems: [
    { directAcquisitionItemID: 1, cpvCode: { id: 11941, text: "Pneuri (Rev.2)", localeKey: "34351100-3" } }
  ],
  daAwardNoticeID: null,
  sysDirectAcquisitionState: { id: 7, text: "Oferta acceptata", localeKey: null }
}

describe("sicapRecord: award notices (CAN)", () => {
  const item = { ...sample.item, caNoticeId: 100037160, noticeNo: "CAN1008830" }

  it("the real CA notice with its contracts: winners, authority, county, CPV, value, date", () => {
    const t = tender(sicapRecord("can", { item, detail: sample.notice, contracts: sample.contracts.items }))
    expect(t).toMatchObject({
      source: "sicap",
      sourceNoticeId: "CAN1008830",
      noticeType: "award",
      mainCpv: "33100000-1",
      authority: {
        name: "SPITALUL CLINIC JUDETEAN DE URGENTA SF. APOSTOL ANDREI",
        fiscalCode: "4301103",
        county: "Constanța"
      },
      estimatedValueRon: 477200,
      sourceUrl: "https://e-licitatie.ro/pub/notices/ca-notices/view-c/100037160",
      // The API spells them "RO 22505268", "RO 24205100".
      winnerFiscalCodes: ["22505268", "24205100"]
    })
    expect(t.title).toMatch(/^Furnizarea si instalarea urmatoarelor echipamente medicale/)
    expect(t.publishDate.toISOString()).toBe("2018-12-10T07:24:07.000Z")
  })

  it("the buyer's county is its address's NUTS code (the real notice leaves `county` null), not where a lot is done", () => {
    const edit = sample.notice.caNoticeEdit_New
    expect(edit.section1_New.section1_1.caAddress.county).toBeNull()
    expect(edit.section1_New.section1_1.caAddress.nutsCodeItem.text).toMatch(/^RO223/)
    const lots = edit.section2_New.section2_2_New.descriptionList as Array<Record<string, unknown>>
    const elsewhere = (nutsCode: unknown) => ({
      ...sample.notice,
      caNoticeEdit_New: {
        ...edit,
        section2_New: {
          ...edit.section2_New,
          section2_2_New: {
            ...edit.section2_New.section2_2_New,
            descriptionList: lots.map((lot) => ({ ...lot, nutsCode }))
          }
        }
      }
    })
    for (const nutsCode of [{ id: 1, text: "RO113 Cluj", localeKey: null }, null]) {
      const t = tender(sicapRecord("can", { item, detail: elsewhere(nutsCode), contracts: sample.contracts.items }))
      expect(t.authority.county).toBe("Constanța")
    }
  })

  it("refuses a detail of another notice (the sample's own item is CAN1031498)", () => {
    expect(sicapRecord("can", { item: sample.item, detail: sample.notice, contracts: sample.contracts.items })).toBe(
      "the detail is of CAN1008830, not CAN1031498"
    )
  })

  it("without a detail: the list item, RON value, no winners", () => {
    const t = tender(sicapRecord("can", { item: sample.item }))
    expect(t).toMatchObject({
      sourceNoticeId: "CAN1031498",
      noticeType: "award",
      mainCpv: "77211100-3",
      authority: { name: "REGIA NATIONALA A PADURILOR - ROMSILVA RA", fiscalCode: "1590120" },
      estimatedValueRon: 12130675.84,
      winnerFiscalCodes: []
    })
  })

  it("skips what is not an award list item", () => {
    expect(sicapRecord("can", { item: "<html>" })).toBe("not a SICAP list item")
    expect(sicapRecord("can", { item: { foo: 1 } })).toBe("not a SICAP list item")
    expect(sicapRecord("can", { item: cnItem })).toBe("CN1010402 is not an award notice (no caNoticeId)")
    expect(sicapRecord("can", { item, detail: "<html>maintenance</html>" })).toBe(
      "the detail of CAN1008830 is not a SICAP award notice"
    )
  })
})

describe("sicapRecord: contract notices (CN)", () => {
  it("a live list item: contract, authority split, CPV, RON value, deadline with offset, the public page", () => {
    const t = tender(sicapRecord("cn", { item: cnItem }))
    expect(t).toMatchObject({
      source: "sicap",
      sourceNoticeId: "CN1010402",
      noticeType: "contract",
      mainCpv: "33652100-6",
      authority: { name: "SPITALUL DE URGENTA PETROSANI", fiscalCode: "4374873", county: null },
      estimatedValueRon: 14867462,
      sourceUrl: "https://e-licitatie.ro/pub/notices/c-notice/v2/view/100159118",
      winnerFiscalCodes: []
    })
    expect(t.deadline?.toISOString()).toBe("2019-05-09T12:00:00.000Z")
    // No publication date on list items: the state date stands in.
    expect(t.publishDate.toISOString()).toBe("2019-04-01T22:35:01.000Z")
  })

  it("falls back to the export fields: Romanian decimal comma, Bucharest local deadline", () => {
    const { estimatedValueRon: _, minTenderReceiptDeadline: __, maxTenderReceiptDeadline: ___, ...rest } = cnItem
    const t = tender(
      sicapRecord("cn", {
        item: { ...rest, estimatedValueExport: "1021908,27 RON", tenderReceiptDeadlineExport: "18.01.2019 15:00" }
      })
    )
    expect(t.estimatedValueRon).toBe(1021908.27)
    expect(t.deadline?.toISOString()).toBe("2019-01-18T13:00:00.000Z")
    // A deadline given as a day only: bids are taken through that day.
    const day = tender(sicapRecord("cn", { item: { ...rest, tenderReceiptDeadlineExport: "18.01.2019" } }))
    expect(day.deadline?.toISOString()).toBe("2019-01-18T21:59:59.000Z")
  })

  it("reads the export value in either number format, and no value for 0", () => {
    const { estimatedValueRon: _, ...rest } = cnItem
    const valuesOf = (estimatedValueExport: string) => {
      const t = tender(sicapRecord("cn", { item: { ...rest, estimatedValueExport } }))
      return [t.estimatedValueRon, t.estimatedValueEur]
    }
    expect(valuesOf("1.021.908,27 RON")).toEqual([1021908.27, 205615.35])
    expect(valuesOf("1,021,908.27 RON")[0]).toBe(1021908.27)
    // A decimal point without thousands separators: not 100 times the value.
    expect(valuesOf("1021908.27 RON")[0]).toBe(1021908.27)
    expect(valuesOf("70.5 RON")[0]).toBe(70.5)
    expect(valuesOf("1.021.908 RON")[0]).toBe(1021908)
    expect(valuesOf("21 908,27 EUR")[1]).toBe(21908.27)
    expect(valuesOf("0,00 RON")).toEqual([null, null])
  })

  it("a simplified notice (SCN, type 17) has its own public page", () => {
    const record = sicapRecord("cn", { item: { ...cnItem, noticeNo: "SCN1040692", sysNoticeTypeId: 17 } })
    expect(typeof record !== "string" && record.source_url).toBe(
      "https://e-licitatie.ro/pub/notices/simplified-notice/v2/view/100159118"
    )
  })

  it("a full notice beside the item adds its description and county; one of another notice is refused", () => {
    const detail = { ...structuredClone(sample.notice), noticeNumber: "CN1010402" }
    const t = tender(sicapRecord("cn", { item: cnItem, detail }))
    expect(t).toMatchObject({
      sourceNoticeId: "CN1010402",
      noticeType: "contract",
      mainCpv: "33652100-6",
      additionalCpvs: ["33100000-1"],
      authority: { fiscalCode: "4374873", county: "Constanța" }
    })
    expect(t.description).toMatch(/^Furnizarea si instalarea/)
    expect(sicapRecord("cn", { item: cnItem, detail: sample.notice })).toBe(
      "the detail is of CAN1008830, not CN1010402"
    )
  })

  it("skips an award row given as a contract notice", () => {
    expect(sicapRecord("cn", { item: sample.item })).toBe("CAN1031498 is not a participation notice")
  })
})

describe("sicapRecord: direct acquisitions (DA)", () => {
  it("an award: the supplier's fiscal code is the winner, the authority from the item, CPV from the detail", () => {
    const t = tender(sicapRecord("da", { item: daItem, detail: daDetail }))
    expect(t).toMatchObject({
      source: "sicap",
      sourceNoticeId: "DA22780457",
      noticeType: "award",
      title: "Anvelopa 185/65R15 88T vara Matador MP47",
      description: "Anvelopa 185/65R15 88T vara Marfa BUCATA 4.",
      mainCpv: "34351100-3",
      additionalCpvs: [],
      authority: { name: "Unitatea Militara 01714", fiscalCode: "4317975", county: null },
      estimatedValueRon: 1000,
      sourceUrl: "https://e-licitatie.ro/pub/direct-acquisition/view/103063481",
      winnerFiscalCodes: ["6865630"]
    })
    expect(t.publishDate.toISOString()).toBe("2019-04-08T11:17:43.000Z")
  })

  it("the list item alone is enough", () => {
    expect(tender(sicapRecord("da", { item: daItem })).winnerFiscalCodes).toEqual(["6865630"])
  })

  it("skips one not finalised, a detail of another acquisition, and what is not a DA row", () => {
    expect(sicapRecord("da", { item: { ...daItem, supplier: null, closingValue: null } })).toBe(
      "DA22780457 has no supplier yet (not finalised)"
    )
    expect(sicapRecord("da", { item: daItem, detail: { ...daDetail, directAcquisitionID: 1 } })).toBe(
      "the detail is of direct acquisition 1, not 103063481"
    )
    expect(sicapRecord("da", { item: cnItem })).toBe("not a SICAP direct acquisition list item")
  })
})

describe("TED publication numbers", () => {
  it("normalises the OJ S reference and TED's own form to <number>-<year>", () => {
    expect(normalizeTedPublicationNumber("2020/S 064-154324")).toBe("154324-2020")
    expect(normalizeTedPublicationNumber("2020/S 064 - 154324")).toBe("154324-2020")
    expect(normalizeTedPublicationNumber("00154324-2020")).toBe("154324-2020")
    expect(normalizeTedPublicationNumber("154324-2020")).toBe("154324-2020")
    expect(normalizeTedPublicationNumber(" 566234-2020 ")).toBe("566234-2020")
    expect(normalizeTedPublicationNumber("TED:NOTICE:154324-2020:TEXT:EN:HTML")).toBe("154324-2020")
    expect(normalizeTedPublicationNumber("")).toBeUndefined()
    expect(normalizeTedPublicationNumber("154324")).toBeUndefined()
    expect(normalizeTedPublicationNumber("00000000-2020")).toBeUndefined()
  })

  it("reads it from an award notice detail; none when the notice was not sent to JOUE", () => {
    expect(sicapTedPublicationNumber(sample.notice)).toBeUndefined()
    const withTed = (section0: object, publication: object = {}) => {
      const notice = structuredClone(sample.notice)
      Object.assign(notice.caNoticeEdit_New.section0_New, section0)
      Object.assign(notice.caNoticeEdit_New.publicationDetailsModel, publication)
      return notice
    }
    expect(sicapTedPublicationNumber(withTed({ sentToJOUE: true, tedNoticeNo: "2020/S 064-154324" }))).toBe(
      "154324-2020"
    )
    expect(sicapTedPublicationNumber(withTed({}, { jouePublicationNumber: "00154324-2020" }))).toBe("154324-2020")
    expect(
      sicapTedPublicationNumber(
        withTed({
          completeTedModel: { ojeuNoticeNoYear: "2020", ojeuNoticeNoSecondPart: "064", ojeuNoticeNoThirdPart: "154324" }
        })
      )
    ).toBe("154324-2020")
    expect(sicapTedPublicationNumber("<html>")).toBeUndefined()
  })
})
