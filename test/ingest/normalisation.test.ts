import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { EUR_RON } from "../../src/domain/Currency.js"
import { countyFromNuts } from "../../src/domain/tenders/Counties.js"
import { normalizeCpvCode } from "../../src/domain/tenders/Cpv.js"
import { normalizeFiscalCode, romanianFiscalCodeOfNotice } from "../../src/domain/tenders/FiscalCode.js"
import { bucharestLocalToIso, END_OF_DAY, localToIso } from "../../src/domain/tenders/LocalTime.js"
import {
  foldForMatching,
  normalizeAuthorityName,
  normalizeRomanianText
} from "../../src/domain/tenders/RomanianText.js"
import { completeValues, MAX_CPV_CODES, normalizeTenderRecord } from "../../src/domain/tenders/TenderRecord.js"
import { cpvCatalog } from "./support.js"

describe("Romanian text", () => {
  it("stores cedilla letters as comma-below letters", () => {
    expect(normalizeRomanianText("Judeţean, Timişoara, ŞCOALA, ŢARA")).toBe("Județean, Timișoara, ȘCOALA, ȚARA")
  })

  it("composes decomposed letters first (s + combining cedilla)", () => {
    expect(normalizeRomanianText("s\u0327i t\u0327")).toBe("și ț")
  })

  it("collapses whitespace and trims", () => {
    expect(normalizeRomanianText("  Servicii \n de   pază ")).toBe("Servicii de pază")
  })

  it("folds every spelling of a word to the same matching form", () => {
    const spellings = ["Sănătate Publică Timişoara", "Sănătate Publică Timișoara", "sanatate publica timisoara"]
    expect(new Set(spellings.map(foldForMatching))).toEqual(new Set(["sanatate publica timisoara"]))
    expect(foldForMatching("ÎNVĂŢĂMÂNT")).toBe("invatamant")
  })

  it("normalises authority names: folded, punctuation collapsed", () => {
    expect(normalizeAuthorityName("PRIMĂRIA COMUNEI VALEA-MARE")).toBe("primaria comunei valea mare")
    expect(normalizeAuthorityName("Primăria  Comunei Valea Mare.")).toBe("primaria comunei valea mare")
    expect(normalizeAuthorityName("S.C. Apa-Canal S.A.")).toBe("s c apa canal s a")
  })
})

describe("fiscal codes", () => {
  it("keeps digits only, without the RO prefix", () => {
    expect(normalizeFiscalCode("RO 22505268")).toBe("22505268")
    expect(normalizeFiscalCode("ro22505268")).toBe("22505268")
    expect(normalizeFiscalCode(" 4305857 ")).toBe("4305857")
    expect(normalizeFiscalCode("R16445706")).toBe("16445706")
    expect(normalizeFiscalCode("00064203")).toBe("00064203")
  })

  it("rejects what is not a fiscal code", () => {
    for (const bad of ["", "EU-PO", "not available", "49/740/01441", "1", "12345678901"]) {
      expect(normalizeFiscalCode(bad)).toBeNull()
    }
  })

  it("from a notice, keeps only Romanian CUIs (their control digit holds)", () => {
    // Real CUIs of the sample notices, with and without the RO prefix.
    for (const cui of ["RO 22505268", "24205100", "4301103", "4305857", "R16445706"]) {
      expect(romanianFiscalCodeOfNotice(cui)).toBe(normalizeFiscalCode(cui))
    }
    // A Danish CVR, a Czech IČO, a CPV code typed into the field, a typo. (A foreign id that happens to
    // pass, like the SDK examples' "123 456 789", is left out by the parsers: its address is abroad.)
    for (const foreign of ["29190658", "00064203", "79341000-6", "115694943"]) {
      expect(romanianFiscalCodeOfNotice(foreign)).toBeNull()
    }
  })
})

describe("CPV codes by table lookup", () => {
  const ok = (input: string) => Either.getOrThrow(normalizeCpvCode(cpvCatalog, input))
  const reason = (input: string) =>
    Either.getLeft(normalizeCpvCode(cpvCatalog, input)).pipe((o) => (o._tag === "Some" ? o.value : ""))

  it("accepts the 8 digits, the full code and spaced forms, and returns NNNNNNNN-D", () => {
    expect(ok("45000000")).toBe("45000000-7")
    expect(ok("45000000-7")).toBe("45000000-7")
    expect(ok(" 45000000 - 7 ")).toBe("45000000-7")
    expect(ok("4500 0000")).toBe("45000000-7")
  })

  it("accepts official codes whose check digit the 3-7-1 rule gets wrong", () => {
    expect(ok("03300000")).toBe("03300000-2")
    expect(ok("03310000-5")).toBe("03310000-5")
  })

  it("rejects a wrong check digit, an unknown code and garbage", () => {
    expect(reason("45000000-8")).toContain("wrong check digit")
    expect(reason("45000000-8")).toContain("45000000-7")
    expect(reason("12345678")).toContain("unknown CPV code")
    expect(reason("4500000")).toContain("malformed")
    expect(reason("45000000-77")).toContain("malformed")
  })

  it("knows the whole table", () => {
    expect(cpvCatalog.size).toBe(9454)
  })
})

describe("currency", () => {
  it("derives the missing value at the documented rate", () => {
    expect(EUR_RON).toBe(4.97)
    expect(completeValues(null, 100000)).toEqual({ ron: 497000, eur: 100000 })
    expect(completeValues(497, null)).toEqual({ ron: 497, eur: 100 })
    expect(completeValues(1000, 150)).toEqual({ ron: 1000, eur: 150 })
    expect(completeValues(null, null)).toEqual({ ron: null, eur: null })
  })

  it("rounds derived values to bani / cents", () => {
    expect(completeValues(70, null).eur).toBe(14.08)
  })
})

describe("local times and counties", () => {
  it("reads offset-less times as Bucharest time, summer and winter", () => {
    expect(bucharestLocalToIso("20200508", "12:00")).toBe("2020-05-08T09:00:00.000Z")
    expect(bucharestLocalToIso("2021-01-15", "10:30")).toBe("2021-01-15T08:30:00.000Z")
    expect(bucharestLocalToIso("not a date")).toBeNull()
  })

  it("reads a time the autumn change repeats as its first occurrence, and one the spring change skips an hour on", () => {
    // 2026-10-25: 04:00 EEST (01:00Z) turns back to 03:00 EET; 03:00-03:59 come twice. A deadline
    // comes when the clock first shows it, EEST, not an hour later.
    expect(bucharestLocalToIso("2026-10-25", "02:59:59")).toBe("2026-10-24T23:59:59.000Z")
    expect(bucharestLocalToIso("2026-10-25", "03:00")).toBe("2026-10-25T00:00:00.000Z")
    expect(bucharestLocalToIso("2026-10-25", "03:59:59")).toBe("2026-10-25T00:59:59.000Z")
    expect(bucharestLocalToIso("2026-10-25", "04:00")).toBe("2026-10-25T02:00:00.000Z")
    // 2026-03-29: 03:00 EET (01:00Z) turns to 04:00 EEST; 03:00-03:59 do not exist and move on an hour.
    expect(bucharestLocalToIso("2026-03-29", "02:59:59")).toBe("2026-03-29T00:59:59.000Z")
    expect(bucharestLocalToIso("2026-03-29", "03:00")).toBe("2026-03-29T01:00:00.000Z")
    expect(bucharestLocalToIso("2026-03-29", "03:30")).toBe("2026-03-29T01:30:00.000Z")
    expect(bucharestLocalToIso("2026-03-29", "04:00")).toBe("2026-03-29T01:00:00.000Z")
    // The same rule in a buyer's zone behind Bucharest (TED XML abroad): London's 01:00-01:59 on 25 October.
    expect(localToIso("Europe/London", "2026-10-25", "01:30")).toBe("2026-10-25T00:30:00.000Z")
    expect(localToIso("Europe/London", "2026-03-29", "01:30")).toBe("2026-03-29T01:30:00.000Z")
  })

  it("reads a day that does not exist as no date, not the next day: 29 February of a common year, 31 April", () => {
    expect(bucharestLocalToIso("2028-02-29", "12:00")).toBe("2028-02-29T10:00:00.000Z")
    expect(bucharestLocalToIso("2026-02-28", END_OF_DAY)).toBe("2026-02-28T21:59:59.000Z")
    expect(bucharestLocalToIso("2026-02-29", END_OF_DAY)).toBeNull()
    expect(bucharestLocalToIso("20260229")).toBeNull()
    expect(bucharestLocalToIso("2026-04-31", "10:00")).toBeNull()
    expect(localToIso("Europe/London", "2027-02-29", "12:00")).toBeNull()
  })

  it("reads a time that does not exist as no date, not a later one: 12:75, 25:00, 10:30:60; 24:00 is the day's end", () => {
    expect(bucharestLocalToIso("2026-03-16", "12:75")).toBeNull()
    expect(bucharestLocalToIso("2026-03-16", "25:00")).toBeNull()
    expect(bucharestLocalToIso("2026-03-16", "10:30:60")).toBeNull()
    expect(bucharestLocalToIso("2026-03-16", "24:30")).toBeNull()
    expect(bucharestLocalToIso("2026-03-16", "24:00")).toBe("2026-03-16T22:00:00.000Z")
    expect(bucharestLocalToIso("2026-03-16", "23:59:59")).toBe("2026-03-16T21:59:59.000Z")
  })

  it("maps Romanian NUTS 3 codes to counties", () => {
    expect(countyFromNuts("RO424")).toBe("Timiș")
    expect(countyFromNuts("RO321")).toBe("București")
    expect(countyFromNuts("UKM50")).toBeNull()
    expect(countyFromNuts(undefined)).toBeNull()
  })
})

describe("the native record", () => {
  const base = {
    source: "demo",
    source_id: "N-1",
    title: "  Servicii de mentenanţă  ",
    cpv_codes: ["72260000", "72230000-6", "72260000-5"],
    contracting_authority: { name: "Primăria Timişoara", fiscal_code: "RO14756536", county: "Timiş" },
    estimated_value_eur: 1000,
    publish_date: "2026-11-20T08:00:00Z"
  }

  it("is validated and normalised", () => {
    const tender = Either.getOrThrow(normalizeTenderRecord(cpvCatalog, base))
    expect(tender.title).toBe("Servicii de mentenanță")
    expect(tender.mainCpv).toBe("72260000-5")
    expect(tender.additionalCpvs).toEqual(["72230000-6"])
    expect(tender.authority).toEqual({
      name: "Primăria Timișoara",
      normalizedName: "primaria timisoara",
      fiscalCode: "14756536",
      county: "Timiș"
    })
    expect(tender.estimatedValueRon).toBe(4970)
    expect(tender.noticeType).toBe("contract")
    expect(tender.publishDate.toISOString()).toBe("2026-11-20T08:00:00.000Z")
    expect(tender.deadline).toBeNull()
  })

  it("stores a county in one spelling whatever the source writes, and keeps a name that is no county", () => {
    const countyOf = (county: string | null) =>
      Either.getOrThrow(
        normalizeTenderRecord(cpvCatalog, { ...base, contracting_authority: { ...base.contracting_authority, county } })
      ).authority.county
    for (const written of ["Constanta", "CONSTANȚA", "JUDETUL CONSTANTA", "Jud. Constanţa", " constanta "]) {
      expect(countyOf(written), written).toBe("Constanța")
    }
    expect(countyOf("Municipiul Bucuresti")).toBe("București")
    expect(countyOf("Bistrita Nasaud")).toBe("Bistrița-Năsăud")
    expect(countyOf("Ilfov (Sector agricol)")).toBe("Ilfov (Sector agricol)")
    expect(countyOf("")).toBeNull()
    expect(countyOf(null)).toBeNull()
  })

  it("stores Bucharest's sectors as București, the county the app filters and measures by", () => {
    const countyOf = (county: string) =>
      Either.getOrThrow(
        normalizeTenderRecord(cpvCatalog, { ...base, contracting_authority: { ...base.contracting_authority, county } })
      ).authority.county
    for (const written of [
      "Bucuresti Sector 4",
      "București, Sectorul 2",
      "Municipiul Bucureşti - sector 1",
      "BUCURESTI SECTOR 6"
    ]) {
      expect(countyOf(written), written).toBe("București")
    }
    // A sector alone names no county (place.test.ts), nor does a seventh sector.
    expect(countyOf("Sector 3")).toBe("Sector 3")
    expect(countyOf("Bucuresti Sector 7")).toBe("Bucuresti Sector 7")
  })

  it("reads times without an offset as Bucharest time, and a deadline given as a day as the end of that day", () => {
    const tender = (fields: object) => Either.getOrThrow(normalizeTenderRecord(cpvCatalog, { ...base, ...fields }))
    // What a spreadsheet writes: Bucharest wall-clock time, whatever the machine's zone (UTC in production).
    const local = tender({
      deadline: "2026-03-15T12:00:00",
      publish_date: "2026-03-01 09:30",
      issued_at: "2026-07-01T09:30"
    })
    expect(local.deadline?.toISOString()).toBe("2026-03-15T10:00:00.000Z")
    expect(local.publishDate.toISOString()).toBe("2026-03-01T07:30:00.000Z")
    expect(local.issuedAt?.toISOString()).toBe("2026-07-01T06:30:00.000Z")
    // A day: published that Bucharest day; open until the day ends, not closed as it begins.
    const days = tender({ deadline: "2026-03-15", publish_date: "2026-03-01" })
    expect(days.deadline?.toISOString()).toBe("2026-03-15T21:59:59.000Z")
    expect(days.publishDate.toISOString()).toBe("2026-02-28T22:00:00.000Z")
    // An offset or Z is kept as written.
    expect(tender({ deadline: "2026-03-15T12:00:00+03:00" }).deadline?.toISOString()).toBe("2026-03-15T09:00:00.000Z")
  })

  it("skips a record whose date names a day that does not exist, with or without an offset, naming the field", () => {
    for (const fields of [
      { deadline: "2026-02-29" },
      { deadline: "2026-02-29T12:00:00+02:00" },
      { publish_date: "2026-04-31 09:30" },
      { publish_date: "2026-02-30T08:00:00Z" }
    ]) {
      expect(Either.getLeft(normalizeTenderRecord(cpvCatalog, { ...base, ...fields }))).toEqual(
        expect.objectContaining({ value: expect.stringContaining(Object.keys(fields)[0]!) })
      )
    }
    expect(Either.getOrThrow(normalizeTenderRecord(cpvCatalog, { ...base, deadline: "2028-02-29" })).deadline).toEqual(
      new Date("2028-02-29T21:59:59.000Z")
    )
  })

  it("keeps the main CPV code and the next 99 distinct ones a notice lists, in order", () => {
    const listed = [...cpvCatalog.values()]
    expect(listed.length).toBeGreaterThan(MAX_CPV_CODES)
    const tender = Either.getOrThrow(normalizeTenderRecord(cpvCatalog, { ...base, cpv_codes: [listed[5]!, ...listed] }))
    expect(tender.mainCpv).toBe(listed[5])
    expect([tender.mainCpv, ...tender.additionalCpvs]).toEqual([
      listed[5],
      ...listed.filter((code) => code !== listed[5]).slice(0, MAX_CPV_CODES - 1)
    ])
  })

  it("is an award notice when it names winners; winners are normalised and deduplicated", () => {
    const tender = Either.getOrThrow(
      normalizeTenderRecord(cpvCatalog, { ...base, winner_fiscal_codes: ["RO 22505268", "22505268", "n/a"] })
    )
    expect(tender.noticeType).toBe("award")
    expect(tender.winnerFiscalCodes).toEqual(["22505268"])
  })

  it("is skipped with a reason naming the field", () => {
    const reason = (input: unknown) => Either.getLeft(normalizeTenderRecord(cpvCatalog, input))
    expect(reason({ ...base, cpv_codes: ["72260000-4"] })).toEqual(
      expect.objectContaining({ value: expect.stringContaining("wrong check digit") })
    )
    expect(reason({ ...base, title: " " })).toEqual(
      expect.objectContaining({ value: expect.stringContaining("title") })
    )
    expect(reason({ ...base, publish_date: "yesterday" })).toEqual(
      expect.objectContaining({ value: expect.stringContaining("publish_date") })
    )
    expect(reason({ ...base, estimated_value_ron: -5 })).toEqual(
      expect.objectContaining({ value: expect.stringContaining("estimated_value_ron") })
    )
    expect(reason({ ...base, cpv_codes: [] })).toEqual(
      expect.objectContaining({ value: expect.stringContaining("cpv_codes") })
    )
    expect(reason("not an object")._tag).toBe("Some")
  })
})
