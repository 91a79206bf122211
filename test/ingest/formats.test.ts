import { describe, expect, it } from "vitest"
import { timeZoneOfCountry, ZONE_BY_COUNTRY } from "../../src/domain/tenders/CountryTimeZones.js"
import { detectFormat, parseInput, readTenders } from "../../src/domain/tenders/formats/ImportFormat.js"
import { NATIVE_CSV_COLUMNS } from "../../src/domain/tenders/formats/NativeCsv.js"
import { cpvCatalog, fixture, fixtureFiles } from "./support.js"

const read = (file: string, format: Parameters<typeof readTenders>[1] = "auto") =>
  readTenders(fixture(file), format, cpvCatalog)
const only = (file: string) => {
  const { tenders, skips } = read(file)
  expect(skips).toEqual([])
  expect(tenders).toHaveLength(1)
  return tenders[0]!
}

describe("every sample file parses", () => {
  it.each(fixtureFiles("ted-xml"))("%s (TED XML)", (file) => {
    expect(detectFormat(fixture(file))).toBe("ted-xml")
    const { tenders, skips } = read(file, "ted-xml")
    expect(skips).toEqual([])
    expect(tenders).toHaveLength(1)
    expect(tenders[0]!.source).toBe("ted")
  })

  it.each(fixtureFiles("eforms"))("%s (eForms)", (file) => {
    expect(detectFormat(fixture(file))).toBe("eforms")
    const { tenders, skips } = read(file, "eforms")
    // The one prior information notice is skipped with a reason; every other notice is a tender.
    if (file.includes("pin-only")) {
      expect(tenders).toEqual([])
      expect(skips).toEqual([
        { ref: "notice f252f386-55ac-4fa8-9be4-9f950b9904c8", reason: "a prior information notice is not a tender" }
      ])
    } else {
      expect(skips).toEqual([])
      expect(tenders).toHaveLength(1)
    }
  })

  it("the SICAP API samples: a list item and an award notice with its winners", () => {
    expect(detectFormat(fixture("sicap/sicap_api_samples.json"))).toBe("sicap")
    const { tenders, skips } = read("sicap/sicap_api_samples.json", "sicap")
    expect(skips).toEqual([])
    expect(tenders.map((t) => t.sourceNoticeId)).toEqual(["CAN1031498", "CAN1008830"])
  })

  it("the SICAP direct-awards CSV: all 358 rows", () => {
    expect(detectFormat(fixture("sicap/sicap_pnrr_direct_awards_until_2024-03.csv"))).toBe("sicap")
    const { tenders, skips } = read("sicap/sicap_pnrr_direct_awards_until_2024-03.csv")
    expect(skips).toEqual([])
    expect(tenders).toHaveLength(358)
    expect(tenders.every((t) => t.noticeType === "award" && t.source === "sicap")).toBe(true)
  })
})

describe("TED XML", () => {
  it("reads a contract notice's title, CPV codes, authority, dates and link", () => {
    const tender = only("ted-xml/20-587026-001-EXP.xml")
    expect(tender).toMatchObject({
      source: "ted",
      sourceNoticeId: "566234-2020",
      noticeType: "contract",
      title: "IT-klientudstyr 2021-2025",
      mainCpv: "30200000-1",
      // The Danish CVR 29190658 is no Romanian CUI: dropped, the authority is known by its name.
      authority: { name: "Region Sjælland", fiscalCode: null, county: null },
      sourceUrl: "http://ted.europa.eu/udl?uri=TED:NOTICE:566234-2020:TEXT:DA:HTML"
    })
    expect(tender.additionalCpvs).toContain("90510000-5")
    expect(tender.additionalCpvs).toHaveLength(11)
    expect(tender.description).toMatch(/^Rammeaftale vedrørende IT-klientudstyr/)
    // "2021-01-08 12:00" in the buyer's time: Denmark, UTC+1 in January.
    expect(tender.deadline?.toISOString()).toBe("2021-01-08T11:00:00.000Z")
    expect(tender.publishDate.toISOString()).toBe("2020-11-24T22:00:00.000Z")
  })

  it("knows a valid time zone for every country it lists, TED's EL and UK included", () => {
    for (const zone of Object.values(ZONE_BY_COUNTRY)) {
      expect(() => new Intl.DateTimeFormat("en-US", { timeZone: zone }), zone).not.toThrow()
    }
    for (const country of ["EL", "UK", "DK", "RO", "ua", " de "])
      expect(timeZoneOfCountry(country), country).toBeDefined()
    expect(timeZoneOfCountry("US")).toBeUndefined()
    expect(timeZoneOfCountry(undefined)).toBeUndefined()
  })

  it("reads a deadline written without an offset in the buyer's country's time, Romania's by default", () => {
    // The UK in May (BST, UTC+1), Germany in March (UTC+1), Czechia in August (UTC+2): 12:00, 08:00, 10:00 local.
    expect(only("ted-xml/20-156983-001-EXP.xml").deadline?.toISOString()).toBe("2020-05-08T11:00:00.000Z")
    expect(only("ted-xml/21-051959-001-EXP.xml").deadline?.toISOString()).toBe("2021-03-01T07:00:00.000Z")
    expect(only("ted-xml/21-363062-001-EXP.xml").deadline?.toISOString()).toBe("2021-08-11T08:00:00.000Z")
    // A Romanian buyer (or one naming no country we know): Bucharest, UTC+3 in summer.
    const romanian = fixture("ted-xml/21-363062-001-EXP.xml").replaceAll(
      '<COUNTRY VALUE="CZ"/>',
      '<COUNTRY VALUE="RO"/>'
    )
    expect(readTenders(romanian, "ted-xml", cpvCatalog).tenders[0]!.deadline?.toISOString()).toBe(
      "2021-08-11T07:00:00.000Z"
    )
  })

  it("reads a deadline given as a day only as the end of that day in the buyer's time", () => {
    const dayOnly = fixture("ted-xml/20-156983-001-EXP.xml")
      .replace("<TIME_RECEIPT_TENDERS>12:00</TIME_RECEIPT_TENDERS>", "")
      .replace("<DT_DATE_FOR_SUBMISSION>20200508 12:00</DT_DATE_FOR_SUBMISSION>", "")
    // Bids are taken through 8 May (BST, UTC+1): the tender is not closed as that day begins.
    expect(readTenders(dayOnly, "ted-xml", cpvCatalog).tenders[0]!.deadline?.toISOString()).toBe(
      "2020-05-08T22:59:59.000Z"
    )
    const coded = fixture("ted-xml/20-156983-001-EXP.xml")
      .replace("<TIME_RECEIPT_TENDERS>12:00</TIME_RECEIPT_TENDERS>", "")
      .replace("<DATE_RECEIPT_TENDERS>2020-05-08</DATE_RECEIPT_TENDERS>", "")
      .replace("20200508 12:00", "20200508")
    expect(readTenders(coded, "ted-xml", cpvCatalog).tenders[0]!.deadline?.toISOString()).toBe(
      "2020-05-08T22:59:59.000Z"
    )
  })

  it("keeps a notice's value only in RON or EUR (GBP, DKK, CZK have no documented rate)", () => {
    const tender = only("ted-xml/20-156983-001-EXP.xml")
    expect(tender.title).toBe("Kitchen and Bathroom Framework 2020-2024")
    expect(tender.mainCpv).toBe("45000000-7")
    expect(tender.estimatedValueRon).toBeNull()
    expect(tender.estimatedValueEur).toBeNull()
  })

  it("values a notice without a total by its lots' sum, when every lot states one in one currency (as eForms)", () => {
    // The sample's two lots (1,295,520 + 234,856) in EUR, its total (II.1.5, optional) and the coded
    // data's copy of it left out.
    const lotsOnly = fixture("ted-xml/20-213571-001-EXP.xml")
      .replace('<VAL_ESTIMATED_TOTAL CURRENCY="GBP">1530376.00</VAL_ESTIMATED_TOTAL>', "")
      .replace('<VALUE TYPE="ESTIMATED_TOTAL" CURRENCY="GBP">1530376.00</VALUE>', "")
      .replaceAll('<VAL_OBJECT CURRENCY="GBP">', '<VAL_OBJECT CURRENCY="EUR">')
    expect(readTenders(lotsOnly, "ted-xml", cpvCatalog).tenders[0]!.estimatedValueEur).toBe(1530376)
    // One lot without a value: the sum would understate the notice.
    const partial = lotsOnly.replace('<VAL_OBJECT CURRENCY="EUR">234856.00</VAL_OBJECT>', "")
    expect(readTenders(partial, "ted-xml", cpvCatalog).tenders[0]!.estimatedValueEur).toBeNull()
  })

  it("drops a foreign national id (no Romanian CUI control digit) rather than store it as a fiscal code", () => {
    const tender = only("ted-xml/21-363062-001-EXP.xml")
    // The Czech buyer's IČO 00064203: authorities are merged by fiscal code, so it must not pass as one.
    expect(tender.authority.fiscalCode).toBeNull()
    expect(tender.additionalCpvs).toEqual(["42500000-1"])
  })

  it("reads a Romanian award notice: comma-below text, county from NUTS, RON value, winner", () => {
    const tender = only("ted-xml/ro-f03-award.synthetic.xml")
    expect(tender).toMatchObject({
      sourceNoticeId: "612345-2021",
      noticeType: "award",
      title: "Furnizare materiale sanitare și consumabile pentru secția ATI",
      description: "Acord-cadru pentru furnizarea de consumabile medicale. Livrări eșalonate pe 24 de luni.",
      mainCpv: "33141000-0",
      additionalCpvs: ["33141110-4"],
      authority: {
        name: "Spitalul Clinic Județean de Urgență Timișoara",
        normalizedName: "spitalul clinic judetean de urgenta timisoara",
        fiscalCode: "4663448",
        county: "Timiș"
      },
      estimatedValueRon: 1491000,
      estimatedValueEur: 300000,
      winnerFiscalCodes: ["22505268"]
    })
  })

  it("decodes XML character references in text (&#537; is ș, as any XML producer may write it)", () => {
    // The Romanian notice's own text with its letters written as numeric references, decimal and hex.
    const escaped = fixture("ted-xml/ro-f03-award.synthetic.xml")
      .replace("secţia ATI", "sec&#355;ia ATI")
      .replace("materiale sanitare şi", "materiale sanitare &#x219;i")
      .replace("Timişoara</OFFICIALNAME>", "Timi&#537;oara &amp; &#38;#537;</OFFICIALNAME>")
    const tender = readTenders(escaped, "ted-xml", cpvCatalog).tenders[0]!
    expect(tender.title).toBe("Furnizare materiale sanitare și consumabile pentru secția ATI")
    // "&#38;#537;" is the text "&#537;": decoded once, not twice.
    expect(tender.authority.name).toBe("Spitalul Clinic Județean de Urgență Timișoara & &#537;")
  })
})

describe("eForms", () => {
  it("values a notice without a procedure estimate by its lots' sum, when every lot states one in one currency", () => {
    const maximal = fixture("eforms/cn_24_maximal.xml")
    // The first amount of the file is the procedure's (BT-27-Procedure); the lots' follow.
    const procedureValue =
      '<cbc:EstimatedOverallContractAmount currencyID="EUR">9999999.99</cbc:EstimatedOverallContractAmount>'
    expect(readTenders(maximal, "eforms", cpvCatalog).tenders[0]!.estimatedValueEur).toBe(9999999.99)
    const lotsOnly = maximal.replace(procedureValue, "")
    expect(lotsOnly).not.toBe(maximal)
    // Two lots (LOT-0001, LOT-0002) of EUR 9,999,999.99; the group of lots (GLO-0001) is not added.
    expect(readTenders(lotsOnly, "eforms", cpvCatalog).tenders[0]!.estimatedValueEur).toBe(19999999.98)
    // A lot in another currency: no sum.
    const mixed = lotsOnly.replace(
      /(<cac:ProcurementProjectLot>\s*<cbc:ID schemeName="Lot">LOT-0002[\s\S]*?EstimatedOverallContractAmount currencyID=)"EUR"/,
      '$1"RON"'
    )
    expect(mixed).not.toBe(lotsOnly)
    expect(readTenders(mixed, "eforms", cpvCatalog).tenders[0]!.estimatedValueEur).toBeNull()
  })

  it("reads a contract notice in Romanian when the notice has Romanian text", () => {
    const tender = only("eforms/cn_24_multilingual.xml")
    expect(tender).toMatchObject({
      source: "ted-eforms",
      sourceNoticeId: "55aae64f-88a8-44a5-b2fb-8228e97fe6ee",
      noticeType: "contract",
      title: "Furnizarea de servicii IT legate de sistemele OP IT (EUR-Lex, N-Lex, Strat de căutare și altele)",
      mainCpv: "72230000-6",
      additionalCpvs: ["72260000-5"],
      estimatedValueEur: 4500000,
      estimatedValueRon: 22365000
    })
    expect(tender.authority.name).toBe("Oficiul pentru Publicații al Uniunii Europene")
    // "EU-PO" is no fiscal code: the authority is deduplicated by name instead.
    expect(tender.authority.fiscalCode).toBeNull()
  })

  it("reads the submission deadline with its offset", () => {
    const tender = only("eforms/cn_24_minimal.xml")
    expect(tender.title).toBe(
      "Provision of IT Services Related to OP IT Systems (EUR-Lex, N-Lex, Search Layer, and Others)"
    )
    expect(tender.deadline?.toISOString()).toBe("2020-02-04T08:00:00.000Z")
    expect(tender.publishDate.toISOString()).toBe("2019-11-20T23:00:00.000Z")
  })

  it("reads a deadline without its time as the end of that day, in the date's offset", () => {
    const dayOnly = fixture("eforms/cn_24_minimal.xml").replace("<cbc:EndTime>10:00:00+02:00</cbc:EndTime>", "")
    expect(readTenders(dayOnly, "eforms", cpvCatalog).tenders[0]!.deadline?.toISOString()).toBe(
      "2020-02-04T21:59:59.000Z"
    )
  })

  it("reads an award notice's winners through lot results, tenders and tendering parties", () => {
    const tender = only("eforms/can_24_maximal.xml")
    expect(tender.noticeType).toBe("award")
    expect(tender.mainCpv).toBe("79710000-4")
    // The SDK examples' winners are companies abroad: no Romanian fiscal code, no award history.
    expect(tender.winnerFiscalCodes).toEqual([])
    expect(only("eforms/can_24_minimal.xml").winnerFiscalCodes).toEqual([])
    // The same minimal notice with its winner in Romania (a synthetic edit): found through lot
    // results, tenders and tendering parties, RO prefix stripped.
    expect(only("eforms/can_24_minimal-ro-winner.synthetic.xml").winnerFiscalCodes).toEqual(["22505268"])
  })

  it("takes no fiscal code from an organisation abroad, even one whose id passes the CUI check", () => {
    // Scottish Water (GBR), CompanyID "123 456 789": a valid CUI by chance, the id of Rouen Habitat in
    // other samples; merged by fiscal code, the two buyers became one.
    expect(only("eforms/cn_25.xml").authority).toMatchObject({ fiscalCode: null })
  })

  it("a procedure in stages has the deadline for requests to participate (else it would stay open forever)", () => {
    // cn_25: ParticipationRequestReceptionPeriod 2020-05-27, 11:00:00+01:00, and no tender deadline.
    expect(only("eforms/cn_25.xml").deadline?.toISOString()).toBe("2020-05-27T10:00:00.000Z")
  })

  it("maps a change notice onto the notice it changes", () => {
    const original = only("eforms/cn_24_open.xml")
    const change = only("eforms/change-cn_24_open_dates.xml")
    expect(change.sourceNoticeId).toBe(original.sourceNoticeId)
    expect(change.deadline?.getTime()).not.toBe(original.deadline?.getTime())
  })

  it('a change notice whose reason is `cancel` (BT-140, "Notice cancelled") cancels the notice it changes; `update-add` does not', () => {
    const change = fixture("eforms/change-cn_24_open_dates.xml")
    const reason = '<cbc:ReasonCode listName="change-corrig-justification">update-add</cbc:ReasonCode>'
    expect(change).toContain(reason)
    const cancellation = change.replace(reason, reason.replace("update-add", "cancel"))
    const intention = change.replace(reason, reason.replace("update-add", "cancel-intent"))
    const cancelled = (xml: string) =>
      parseInput(xml, "eforms").map((item) => item._tag === "Parsed" && item.cancelled === true)
    expect(cancelled(change)).toEqual([false])
    expect(cancelled(cancellation)).toEqual([true])
    expect(cancelled(intention)).toEqual([false])
    const read = readTenders(cancellation, "eforms", cpvCatalog)
    expect(read.cancelled.map((t) => t.sourceNoticeId)).toEqual(["c4c415ee-ac08-4465-8fa6-57568cf69462"])
    expect(read.tenders).toEqual(read.cancelled)
    expect(readTenders(change, "eforms", cpvCatalog).cancelled).toEqual([])
  })

  it("treats a VEAT notice as an award", () => {
    expect(only("eforms/veat_24.xml").noticeType).toBe("award")
  })

  it("reads a prior information notice that calls for competition as a contract, open to expressions of interest", () => {
    // The SDK's pin-only example made a call for competition (a synthetic edit): subtype 10's type
    // code, its part a lot, and the lot's deadline for expressions of interest (BT-630).
    const pinOnly = fixture("eforms/pin-only_24.xml")
    const call = pinOnly
      .replace(">pin-only</cbc:NoticeTypeCode>", ">pin-cfc-standard</cbc:NoticeTypeCode>")
      .replace('<cbc:ID schemeName="Part">PAR-0000</cbc:ID>', '<cbc:ID schemeName="Lot">LOT-0000</cbc:ID>')
      .replace(
        "\t\t</cac:TenderingTerms>\n\t\t<cac:ProcurementProject>",
        "\t\t</cac:TenderingTerms>\n\t\t<cac:TenderingProcess><ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent><efext:EformsExtension>" +
          "<efac:InterestExpressionReceptionPeriod><cbc:EndDate>2026-12-21+02:00</cbc:EndDate><cbc:EndTime>12:00:00+02:00</cbc:EndTime></efac:InterestExpressionReceptionPeriod>" +
          "</efext:EformsExtension></ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions></cac:TenderingProcess>\n\t\t<cac:ProcurementProject>"
      )
    expect(call).toContain("InterestExpressionReceptionPeriod")
    expect(call).toContain("LOT-0000")
    const [tender] = readTenders(call, "eforms", cpvCatalog).tenders
    expect(tender).toMatchObject({ noticeType: "contract", mainCpv: "72000000-5", title: "ProPrName1234" })
    expect(tender!.deadline?.toISOString()).toBe("2026-12-21T10:00:00.000Z")
    // pin-only, pin-buyer and pin-rtl announce: still skipped.
    for (const code of ["pin-only", "pin-buyer", "pin-rtl"]) {
      const notice = pinOnly.replace(">pin-only</cbc:NoticeTypeCode>", `>${code}</cbc:NoticeTypeCode>`)
      expect(parseInput(notice, "eforms")).toEqual([
        expect.objectContaining({ _tag: "Skipped", reason: "a prior information notice is not a tender" })
      ])
    }
  })

  it("skips a contract modification notice (can-modif): it changes a contract awarded long ago, it is no new award", () => {
    const award = fixture("eforms/can_24_minimal.xml")
    const typeCode = /<cbc:NoticeTypeCode listName="result">[^<]+<\/cbc:NoticeTypeCode>/
    expect(award).toMatch(typeCode)
    const modification = award.replace(
      typeCode,
      '<cbc:NoticeTypeCode listName="cont-modif">can-modif</cbc:NoticeTypeCode>'
    )
    expect(parseInput(modification, "eforms")).toEqual([
      expect.objectContaining({ _tag: "Skipped", reason: "a contract modification notice is not a new award" })
    ])
  })

  it("reads a VEAT's winners through its settled contracts (it has no lot result code, BT-142)", () => {
    const veat = fixture("eforms/veat_24.xml")
    expect(veat).not.toContain("TenderResultCode")
    // The SDK example's consortium (ORG-0004..6, tendering party TPA-0001) moved to Romania, the lead
    // with a fiscal code (a synthetic edit): the contract CON-0001 went to its tender TEN-0001.
    const lead = '<cbc:ID schemeName="organization">ORG-0006</cbc:ID>'
    const inRomania = veat
      .replace(
        `${lead}\n\t\t\t\t\t\t\t\t</cac:PartyIdentification>`,
        `${lead}\n\t\t\t\t\t\t\t\t</cac:PartyIdentification><cac:PartyLegalEntity><cbc:CompanyID>RO 22505268</cbc:CompanyID></cac:PartyLegalEntity>`
      )
      .replaceAll(
        '<cbc:IdentificationCode listName="country">GBR</cbc:IdentificationCode>',
        '<cbc:IdentificationCode listName="country">ROU</cbc:IdentificationCode>'
      )
    expect(inRomania).toContain("RO 22505268")
    expect(readTenders(inRomania, "eforms", cpvCatalog).tenders[0]!.winnerFiscalCodes).toEqual(["22505268"])
    // Without the settled contract nothing names the winning tender.
    const withoutContract = inRomania.replace(/<efac:SettledContract>[\s\S]*?<\/efac:SettledContract>/g, "")
    expect(readTenders(withoutContract, "eforms", cpvCatalog).tenders[0]!.winnerFiscalCodes).toEqual([])
  })
})

describe("SICAP", () => {
  const [item, notice] = read("sicap/sicap_api_samples.json").tenders

  it("reads a list item: fiscal code and name split, CPV, RON value", () => {
    expect(item).toMatchObject({
      source: "sicap",
      sourceNoticeId: "CAN1031498",
      noticeType: "award",
      title: "servicii de exploatare masa lemnoasa si transport lemn fasonat DSSV-I",
      mainCpv: "77211100-3",
      authority: { name: "REGIA NATIONALA A PADURILOR - ROMSILVA RA", fiscalCode: "1590120" },
      estimatedValueRon: 12130675.84,
      sourceUrl: "https://e-licitatie.ro/pub/notices/ca-notices/view-c/100066869"
    })
  })

  it("reads a list item's deadline without an offset as Bucharest time, whatever the machine's zone", () => {
    const sample = JSON.parse(fixture("sicap/sicap_api_samples.json")).item
    const contractItem = (deadlines: Record<string, string | null>) =>
      readTenders(
        JSON.stringify({ ...sample, noticeNo: "CN1000001", sysNoticeTypeId: 2, ...deadlines }),
        "sicap",
        cpvCatalog
      ).tenders[0]!.deadline?.toISOString()
    // 12:00 in Bucharest on 2020-05-08 (summer time, UTC+3) is 09:00Z.
    expect(contractItem({ maxTenderReceiptDeadline: "2020-05-08T12:00:00" })).toBe("2020-05-08T09:00:00.000Z")
    expect(contractItem({ tenderReceiptDeadlineExport: "08.05.2020 12:00" })).toBe("2020-05-08T09:00:00.000Z")
  })

  it("a list item of an award notice type is an award whatever its number (simplified award, type 13)", () => {
    const sample = JSON.parse(fixture("sicap/sicap_api_samples.json")).item
    const typeOf = (noticeNo: string, sysNoticeTypeId: number) =>
      readTenders(JSON.stringify({ ...sample, noticeNo, sysNoticeTypeId }), "sicap", cpvCatalog).tenders[0]!.noticeType
    expect(typeOf("SCN1040692", 13)).toBe("award")
    expect(typeOf("CN1000001", 8)).toBe("award")
    expect(typeOf("CN1000001", 2)).toBe("contract")
    expect(typeOf("SCN1040692", 17)).toBe("contract")
    expect(typeOf("CAN1000001", 2)).toBe("award")
  })

  it("reads a full award notice with its contracts' winners and the lots' county", () => {
    expect(notice).toMatchObject({
      sourceNoticeId: "CAN1008830",
      noticeType: "award",
      mainCpv: "33100000-1",
      authority: {
        name: "SPITALUL CLINIC JUDETEAN DE URGENTA SF. APOSTOL ANDREI",
        fiscalCode: "4301103",
        county: "Constanța"
      },
      estimatedValueRon: 477200,
      // Two contracts, two winners (the API spells them "RO 22505268", "RO 24205100").
      winnerFiscalCodes: ["22505268", "24205100"]
    })
    expect(notice!.title).toMatch(/^Furnizarea si instalarea urmatoarelor echipamente medicale/)
    expect(notice!.publishDate.toISOString()).toBe("2018-12-10T07:24:07.000Z")
  })

  it("reads a direct award row: winner, county, RON value, Bucharest date, the award notice's page", () => {
    const [first] = read("sicap/sicap_pnrr_direct_awards_until_2024-03.csv").tenders
    expect(first).toMatchObject({
      sourceNoticeId: "DAN2144145",
      sourceUrl: "https://e-licitatie.ro/pub/direct-acquisition/award-notice/view/101206459",
      title: "Servicii emitere aviz de racordare PNRR- SC.PADURENI",
      mainCpv: "71410000-5",
      authority: { name: "COMUNA JARISTEA", fiscalCode: "4298016", county: "Vrancea" },
      estimatedValueRon: 70,
      winnerFiscalCodes: ["14476722"]
    })
    expect(first!.publishDate.toISOString()).toBe("2024-03-28T22:00:00.000Z")
  })

  it("reads a direct award row's value written with a decimal comma, and no value for 0", () => {
    // The sample's header and first row, its value as a Romanian spreadsheet writes it, then 0.
    const [header, row] = fixture("sicap/sicap_pnrr_direct_awards_until_2024-03.csv").split("\n")
    const withValue = (value: string) =>
      readTenders(`${header}\n${row!.replace(",70,Servicii", `,${value},Servicii`)}\n`, "sicap", cpvCatalog)
    expect(withValue('"1.234,56"').tenders[0]!.estimatedValueRon).toBe(1234.56)
    expect(withValue("0")).toMatchObject({ skips: [], tenders: [{ estimatedValueRon: null, estimatedValueEur: null }] })
  })

  it("accepts a bare list response {total, items}", () => {
    const original = JSON.parse(fixture("sicap/sicap_api_samples.json"))
    const items = parseInput(JSON.stringify({ total: 2, items: [original.item, original.item] }), "sicap")
    expect(items.map((i) => i._tag)).toEqual(["Parsed", "Parsed"])
  })
})

describe("native formats", () => {
  it("CSV: documented columns, lists joined by ';', malformed rows skipped with their line", () => {
    expect(fixture("native/tenders.csv").split("\n")[0]).toBe(NATIVE_CSV_COLUMNS.join(","))
    const { tenders, skips } = read("native/tenders.csv")
    expect(tenders.map((t) => t.sourceNoticeId)).toEqual(["CSV-1", "CSV-4", "CSV-5", "CSV-6"])
    expect(skips).toHaveLength(2)
    expect(skips[0]).toEqual({ ref: "line 3", reason: expect.stringContaining("wrong check digit") })
    expect(skips[1]!.ref).toBe("line 4")
    expect(tenders[0]).toMatchObject({
      title: "Servicii de mentenanță pentru sisteme informatice",
      mainCpv: "72260000-5",
      additionalCpvs: ["72230000-6"],
      estimatedValueEur: 100000,
      estimatedValueRon: 497000,
      authority: { fiscalCode: "4305857", county: "Cluj" }
    })
    expect(tenders[2]!.winnerFiscalCodes).toEqual(["22505268", "14476722"])
  })

  it("JSON-lines: a line that is not JSON and a record without a title are skipped, the rest read", () => {
    const { tenders, skips } = read("native/tenders.jsonl")
    expect(tenders.map((t) => t.sourceNoticeId)).toEqual(["JL-1", "JL-4"])
    expect(skips.map((s) => s.ref)).toEqual(["line 2", "line 3"])
    expect(skips[0]!.reason).toMatch(/not valid JSON/)
    expect(skips[1]!.reason).toMatch(/^title/)
    expect(tenders[0]!.authority.county).toBe("Constanța")
  })

  it("JSON: an array, {tenders: [...]} or one object", () => {
    const record = JSON.parse(fixture("native/tenders.jsonl").split("\n")[0]!)
    for (const document of [[record], { tenders: [record] }, record]) {
      expect(detectFormat(JSON.stringify(document))).toBe("json")
      expect(readTenders(JSON.stringify(document), "json", cpvCatalog).tenders).toHaveLength(1)
    }
    expect(readTenders("{oops", "json", cpvCatalog).skips).toEqual([
      { ref: "file", reason: expect.stringMatching(/^not valid JSON/) }
    ])
  })
})

describe("JSON-lines detection", () => {
  it("a bad first line is one skip, not the whole file", () => {
    const lines = fixture("native/tenders.jsonl").split("\n")
    const text = [lines[1], lines[0], "garbage", lines[3]].join("\n")
    const { tenders, skips } = readTenders(text, "auto", cpvCatalog)
    expect(tenders.map((t) => t.sourceNoticeId)).toEqual(["JL-1", "JL-4"])
    expect(skips.map((s) => s.ref)).toEqual(["line 1", "line 3"])
  })
})
