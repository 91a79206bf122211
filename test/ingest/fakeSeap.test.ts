import { Either } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { sicapRecord, sicapTedPublicationNumber } from "../../src/domain/tenders/formats/Sicap.js"
import { normalizeTenderRecord } from "../../src/domain/tenders/TenderRecord.js"
import {
  type FakeSeap,
  seapAwardNotice,
  seapContractNotice,
  seapDirectAcquisition,
  startFakeSeap
} from "../support/FakeSeap.js"
import { cpvCatalog } from "./support.js"

const REFERER = "https://e-licitatie.ro/pub/notices/contract-notices/list/0/0"

let seap: FakeSeap | undefined
const start = async (options?: { readonly listCap?: number }) => {
  seap = await startFakeSeap(options)
  return seap
}
afterEach(async () => {
  await seap?.close()
  seap = undefined
})

const call = async (
  fake: FakeSeap,
  path: string,
  options: { readonly body?: unknown; readonly referer?: string | null } = {}
) => {
  const headers: Record<string, string> = { Accept: "application/json, text/plain, */*" }
  if (options.referer !== null) headers.Referer = options.referer ?? REFERER
  if (options.body !== undefined) headers["Content-Type"] = "application/json;charset=UTF-8"
  const response = await fetch(`${fake.url}${path}`, {
    method: options.body === undefined ? "GET" : "POST",
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
  })
  const text = await response.text()
  const json = (response.headers.get("content-type") ?? "").startsWith("application/json")
    ? JSON.parse(text)
    : undefined
  return { status: response.status, headers: response.headers, text, json }
}

const noticeBody = (from: string, to: string, page: { pageIndex?: number; pageSize?: number } = {}) => ({
  sysNoticeTypeIds: [],
  sortProperties: [],
  pageSize: page.pageSize ?? 100,
  pageIndex: page.pageIndex ?? 0,
  startPublicationDate: from,
  endPublicationDate: to,
  sysNoticeStateId: null,
  contractingAuthorityId: null,
  winnerId: null,
  cPVCategoryId: null,
  cPVId: null,
  sysAcquisitionContractTypeId: null,
  sysContractAssigmentTypeId: null,
  assignedUserId: null
})

const daBody = (from: string, to: string, page: { pageIndex?: number; pageSize?: number } = {}) => ({
  pageSize: page.pageSize ?? 100,
  pageIndex: page.pageIndex ?? 0,
  showOngoingDa: false,
  cookieContext: null,
  sysDirectAcquisitionStateId: null,
  publicationDateStart: from,
  publicationDateEnd: to,
  finalizationDateStart: null,
  finalizationDateEnd: null,
  cpvCategoryId: null,
  cpvCodeId: null,
  contractingAuthorityId: null,
  supplierId: null
})

const CN_LIST = "/api-pub/NoticeCommon/GetCNoticeList/"
const CAN_LIST = "/api-pub/NoticeCommon/GetCANoticeList/"
const DA_LIST = "/api-pub/DirectAcquisitionCommon/GetDirectAcquisitionList/"

const tender = (record: ReturnType<typeof sicapRecord>) => {
  if (typeof record === "string") throw new Error(`skipped: ${record}`)
  const result = normalizeTenderRecord(cpvCatalog, record)
  if (Either.isLeft(result)) throw new Error(`invalid: ${result.left}`)
  return result.right
}

describe("FakeSeap: access", () => {
  it("answers 403 without a same-site Referer, JSON with charset", async () => {
    const fake = await start()
    for (const referer of [null, "https://example.com/pub/notices", "not a url"]) {
      const response = await call(fake, CN_LIST, { body: noticeBody("2024-03-01", "2024-03-01"), referer })
      expect(response.status).toBe(403)
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8")
      expect(response.text).toBe('{"message":"Access Denied: Referrer cannot be null."}')
    }
    const ok = await call(fake, CN_LIST, { body: noticeBody("2024-03-01", "2024-03-01") })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("content-type")).toBe("application/json; charset=utf-8")
    expect(ok.json).toEqual({ total: 0, items: [], searchTooLong: false })
    expect(fake.requests).toHaveLength(4)
    expect(fake.requests[3]).toMatchObject({
      method: "POST",
      path: CN_LIST,
      headers: { referer: REFERER },
      body: { startPublicationDate: "2024-03-01", pageIndex: 0 }
    })
    expect(fake.requests[0]!.headers.referer).toBeUndefined()
  })

  it("serves a maintenance page (200 text/html) to every request while on", async () => {
    const fake = await start()
    fake.setMaintenance(true)
    for (const response of [
      await call(fake, CN_LIST, { body: noticeBody("2024-03-01", "2024-03-01") }),
      await call(fake, "/api-pub/C_PUBLIC_CANotice/get/1", { referer: null })
    ]) {
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(response.text).toMatch(/^<!DOCTYPE html>/)
      expect(() => JSON.parse(response.text)).toThrow()
    }
    fake.setMaintenance(false)
    expect((await call(fake, CN_LIST, { body: noticeBody("2024-03-01", "2024-03-01") })).json).toMatchObject({
      total: 0
    })
  })

  it("rate-limits the next requests with 429, with Retry-After when given", async () => {
    const fake = await start()
    fake.rateLimit(2, 7)
    const body = noticeBody("2024-03-01", "2024-03-01")
    const first = await call(fake, CN_LIST, { body })
    const second = await call(fake, CAN_LIST, { body })
    const third = await call(fake, CN_LIST, { body })
    expect([first.status, second.status, third.status]).toEqual([429, 429, 200])
    expect(first.headers.get("retry-after")).toBe("7")
    expect(second.headers.get("retry-after")).toBe("7")
    fake.rateLimit(1)
    const bare = await call(fake, CN_LIST, { body })
    expect(bare.status).toBe(429)
    expect(bare.headers.get("retry-after")).toBeNull()
    expect((await call(fake, CN_LIST, { body })).status).toBe(200)
  })
})

describe("FakeSeap: lists", () => {
  it("filters on the hidden publication day, both ends inclusive; items carry no publicationDate", async () => {
    const fake = await start()
    for (const day of ["2024-02-29", "2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"]) {
      fake.publishContractNotice(seapContractNotice({ publicationDate: day, noticeNo: `CN-${day}` }))
      fake.publishAwardNotice(seapAwardNotice({ publicationDate: day, noticeNo: `CAN-${day}` }))
    }
    const cn = await call(fake, CN_LIST, { body: noticeBody("2024-03-01", "2024-03-03") })
    expect(cn.json.total).toBe(3)
    expect(cn.json.searchTooLong).toBe(false)
    expect(cn.json.items.map((i: { noticeNo: string }) => i.noticeNo)).toEqual([
      "CN-2024-03-01",
      "CN-2024-03-02",
      "CN-2024-03-03"
    ])
    expect(cn.json.items.every((i: object) => !("publicationDate" in i) && "cNoticeId" in i)).toBe(true)
    const can = await call(fake, CAN_LIST, { body: noticeBody("2024-03-04", "2024-03-04") })
    expect(can.json.items.map((i: { noticeNo: string; caNoticeId: number }) => i.noticeNo)).toEqual(["CAN-2024-03-04"])
    // An ISO timestamp as bound counts by its day.
    const iso = await call(fake, CAN_LIST, { body: noticeBody("2024-02-29T00:00:00.000Z", "2024-02-29T23:59:59Z") })
    expect(iso.json.total).toBe(1)
  })

  it("filters participation notices by sysNoticeTypeIds", async () => {
    const fake = await start()
    fake.publishContractNotice(seapContractNotice({ publicationDate: "2024-03-01", noticeNo: "CN1" }))
    fake.publishContractNotice(
      seapContractNotice({ publicationDate: "2024-03-01", noticeNo: "SCN1", sysNoticeTypeId: 17 })
    )
    const both = await call(fake, CN_LIST, {
      body: { ...noticeBody("2024-03-01", "2024-03-01"), sysNoticeTypeIds: [2, 17] }
    })
    const simplified = await call(fake, CN_LIST, {
      body: { ...noticeBody("2024-03-01", "2024-03-01"), sysNoticeTypeIds: [17] }
    })
    expect(both.json.total).toBe(2)
    expect(simplified.json.items.map((i: { noticeNo: string }) => i.noticeNo)).toEqual(["SCN1"])
  })

  it("pages from pageIndex 0 to the end", async () => {
    const fake = await start()
    for (let n = 0; n < 7; n++)
      fake.publishContractNotice(seapContractNotice({ publicationDate: "2024-03-05", noticeNo: `CN${n}` }))
    const seen: Array<string> = []
    for (let pageIndex = 0; ; pageIndex++) {
      const { json } = await call(fake, CN_LIST, {
        body: noticeBody("2024-03-05", "2024-03-05", { pageIndex, pageSize: 3 })
      })
      expect(json.total).toBe(7)
      expect(json.searchTooLong).toBe(false)
      if (json.items.length === 0) break
      seen.push(...json.items.map((i: { noticeNo: string }) => i.noticeNo))
    }
    expect(seen).toEqual(["CN0", "CN1", "CN2", "CN3", "CN4", "CN5", "CN6"])
  })

  it("caps total at listCap with searchTooLong; items past the cap are unreachable", async () => {
    const fake = await start({ listCap: 5 })
    for (let n = 0; n < 8; n++) {
      fake.publishDirectAcquisition(seapDirectAcquisition({ publicationDate: "2024-03-06", noticeNo: `DA${n}` }))
    }
    const seen: Array<string> = []
    for (let pageIndex = 0; pageIndex < 6; pageIndex++) {
      const { json } = await call(fake, DA_LIST, {
        body: daBody("2024-03-06", "2024-03-06", { pageIndex, pageSize: 2 })
      })
      expect(json).toMatchObject({ total: 5, searchTooLong: true })
      seen.push(...json.items.map((i: { uniqueIdentificationCode: string }) => i.uniqueIdentificationCode))
    }
    expect(seen).toEqual(["DA0", "DA1", "DA2", "DA3", "DA4"])
    // A narrower window that fits is complete again.
    fake.publishDirectAcquisition(seapDirectAcquisition({ publicationDate: "2024-03-07", noticeNo: "DA-next" }))
    expect((await call(fake, DA_LIST, { body: daBody("2024-03-07", "2024-03-07") })).json).toMatchObject({
      total: 1,
      searchTooLong: false
    })
  })

  it("filters direct acquisitions by publication and by finalization day", async () => {
    const fake = await start()
    fake.publishDirectAcquisition(
      seapDirectAcquisition({ publicationDate: "2024-03-01", finalizationDate: "2024-03-04", noticeNo: "DA1" })
    )
    fake.publishDirectAcquisition(seapDirectAcquisition({ publicationDate: "2024-03-02", noticeNo: "DA2" }))
    fake.publishDirectAcquisition(
      seapDirectAcquisition({ publicationDate: "2024-03-02", noticeNo: "DA3", supplier: null })
    )
    const published = await call(fake, DA_LIST, { body: daBody("2024-03-02", "2024-03-02") })
    expect(published.json.items.map((i: { uniqueIdentificationCode: string }) => i.uniqueIdentificationCode)).toEqual([
      "DA2",
      "DA3"
    ])
    const finalised = await call(fake, DA_LIST, {
      body: {
        ...daBody("", ""),
        publicationDateStart: null,
        publicationDateEnd: null,
        finalizationDateStart: "2024-03-04",
        finalizationDateEnd: "2024-03-04"
      }
    })
    expect(finalised.json.items.map((i: { uniqueIdentificationCode: string }) => i.uniqueIdentificationCode)).toEqual([
      "DA1"
    ])
  })
})

describe("FakeSeap: details round-trip through sicapRecord", () => {
  it("an award notice: list, detail, contracts paged with skip/take → winners, county, CPV, value, TED number", async () => {
    const fake = await start()
    const notice = seapAwardNotice({
      publicationDate: "2024-07-15",
      id: 100_777_001,
      noticeNo: "CAN1177001",
      title: "Servicii de mentenanta aplicatii informatice",
      cpv: "72267000-4 - Servicii de intretinere si de reparare a software-ului (Rev.2)",
      authority: "RO4305857 - MUNICIPIUL CLUJ-NAPOCA",
      county: "Cluj",
      value: 250_000.5,
      tedNoticeNo: "2024/S 137-425001",
      errataNo: 1,
      winners: [
        { fiscalCode: "RO 14476722", name: "SOFT S.R.L.", value: 150_000 },
        { fiscalCode: "22505268", name: "ALT SOFT S.R.L.", value: 100_000.5 },
        { fiscalCode: "RO 24205100", name: "AL TREILEA S.R.L." }
      ]
    })
    fake.publishAwardNotice(notice)
    const list = await call(fake, CAN_LIST, { body: noticeBody("2024-07-15", "2024-07-15") })
    const item = list.json.items[0]
    expect(item).toMatchObject({
      caNoticeId: 100_777_001,
      noticeNo: "CAN1177001",
      errataNo: 1,
      contractingAuthorityNameAndFN: "RO4305857 - MUNICIPIUL CLUJ-NAPOCA",
      estimatedValueExport: "250000,50 RON",
      noticeStateDate: "2024-07-15T09:24:07+03:00"
    })
    const detail = await call(fake, `/api-pub/C_PUBLIC_CANotice/get/${item.caNoticeId}`)
    expect(detail.status).toBe(200)
    const contracts: Array<unknown> = []
    for (let skip = 0; ; skip += 2) {
      const { json } = await call(fake, "/api-pub/C_PUBLIC_CANotice/GetCANoticeContracts", {
        body: { caNoticeId: item.caNoticeId, skip, take: 2 }
      })
      expect(json.total).toBe(3)
      if (json.items.length === 0) break
      contracts.push(...json.items)
    }
    expect(contracts).toHaveLength(3)
    const t = tender(sicapRecord("can", { item, detail: detail.json, contracts }))
    expect(t).toMatchObject({
      sourceNoticeId: "CAN1177001",
      noticeType: "award",
      title: "Servicii de mentenanta aplicatii informatice",
      mainCpv: "72267000-4",
      additionalCpvs: [],
      authority: { name: "MUNICIPIUL CLUJ-NAPOCA", fiscalCode: "4305857", county: "Cluj" },
      estimatedValueRon: 250_000.5,
      sourceUrl: "https://e-licitatie.ro/pub/notices/ca-notices/view-c/100777001",
      winnerFiscalCodes: ["14476722", "22505268", "24205100"]
    })
    expect(t.publishDate.toISOString()).toBe("2024-07-15T06:24:07.000Z")
    expect(sicapTedPublicationNumber(detail.json)).toBe("425001-2024")
  })

  it("a failing detail answers its status the given number of times, then the detail", async () => {
    const fake = await start()
    fake.publishAwardNotice(seapAwardNotice({ publicationDate: "2024-03-01", id: 42, noticeNo: "CAN42" }))
    fake.failDetail("CAN42", 2, 503)
    const statuses = []
    for (let n = 0; n < 3; n++) statuses.push((await call(fake, "/api-pub/C_PUBLIC_CANotice/get/42")).status)
    expect(statuses).toEqual([503, 503, 200])
    fake.failDetail("CAN42", 1)
    expect((await call(fake, "/api-pub/C_PUBLIC_CANotice/get/42")).status).toBe(500)
    expect((await call(fake, "/api-pub/C_PUBLIC_CANotice/get/43")).status).toBe(404)
  })

  it("a direct acquisition: list item + getView → an award won by the supplier", async () => {
    const fake = await start()
    fake.publishDirectAcquisition(
      seapDirectAcquisition({
        publicationDate: "2024-01-10",
        id: 105_000_123,
        noticeNo: "DA40000123",
        title: "Toner imprimanta",
        cpv: "30125100-2 - Cartuse de toner (Rev.2)",
        authority: "RO4305857 - MUNICIPIUL CLUJ-NAPOCA",
        value: 1234.56,
        supplier: { fiscalCode: "RO 14476722", name: "BIROTICA S.R.L." }
      })
    )
    fake.failDetail("DA40000123", 1)
    const { json } = await call(fake, DA_LIST, { body: daBody("2024-01-10", "2024-01-10") })
    const item = json.items[0]
    expect(item).toMatchObject({
      directAcquisitionId: 105_000_123,
      supplier: "RO 14476722 BIROTICA S.R.L.",
      contractingAuthority: "4305857 MUNICIPIUL CLUJ-NAPOCA",
      publicationDate: "2024-01-10T14:17:43+02:00"
    })
    expect((await call(fake, `/api-pub/PublicDirectAcquisition/getView/${item.directAcquisitionId}`)).status).toBe(500)
    const detail = await call(fake, `/api-pub/PublicDirectAcquisition/getView/${item.directAcquisitionId}`)
    expect(detail.json).toMatchObject({ directAcquisitionID: 105_000_123, supplierId: 50_710, closingValue: 1234.56 })
    const t = tender(sicapRecord("da", { item, detail: detail.json }))
    expect(t).toMatchObject({
      sourceNoticeId: "DA40000123",
      noticeType: "award",
      mainCpv: "30125100-2",
      authority: { name: "MUNICIPIUL CLUJ-NAPOCA", fiscalCode: "4305857", county: null },
      estimatedValueRon: 1234.56,
      winnerFiscalCodes: ["14476722"],
      sourceUrl: "https://e-licitatie.ro/pub/direct-acquisition/view/105000123"
    })
    expect(t.publishDate.toISOString()).toBe("2024-01-10T12:17:43.000Z")
  })

  it("a contract notice from the list: deadline in Bucharest time, estimated value", async () => {
    const fake = await start()
    fake.publishContractNotice(
      seapContractNotice({
        publicationDate: "2024-03-29",
        id: 100_300_001,
        noticeNo: "CN1300001",
        title: "Servicii de dezvoltare portal web",
        cpv: "72413000-8 - Servicii de proiectare de site-uri WWW (World Wide Web) (Rev.2)",
        authority: "RO 4305857 - MUNICIPIUL CLUJ-NAPOCA",
        value: 620_000.75,
        deadline: "2024-04-02T12:00"
      })
    )
    const { json } = await call(fake, CN_LIST, { body: noticeBody("2024-03-29", "2024-03-29") })
    const item = json.items[0]
    expect(item).toMatchObject({
      maxTenderReceiptDeadline: "2024-04-02T12:00:00+03:00",
      tenderReceiptDeadlineExport: "02.04.2024 12:00",
      estimatedValueExport: "620000,75 RON",
      noticeStateDate: "2024-03-29T10:00:00+02:00"
    })
    const t = tender(sicapRecord("cn", { item }))
    expect(t).toMatchObject({
      sourceNoticeId: "CN1300001",
      noticeType: "contract",
      mainCpv: "72413000-8",
      authority: { name: "MUNICIPIUL CLUJ-NAPOCA", fiscalCode: "4305857" },
      estimatedValueRon: 620_000.75,
      sourceUrl: `https://e-licitatie.ro/pub/notices/c-notice/v2/view/${item.noticeId}`
    })
    expect(t.deadline?.toISOString()).toBe("2024-04-02T09:00:00.000Z")
  })
})
