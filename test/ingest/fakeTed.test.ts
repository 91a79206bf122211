import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { parseEforms } from "../../src/domain/tenders/formats/Eforms.js"
import type { TenderRecordInput } from "../../src/domain/tenders/TenderRecord.js"
import { eformsNoticeXml, type FakeTed, startFakeTed } from "../support/FakeTed.js"

let ted: FakeTed
beforeEach(async () => {
  ted = await startFakeTed()
})
afterEach(() => ted.close())

const FIELDS = ["publication-number", "publication-date", "notice-title", "buyer-country"]
const ROMANIAN = "buyer-country=ROU AND publication-date>=20261101 SORT BY publication-date ASC"

const search = async (body: unknown) => {
  const res = await fetch(`${ted.url}/v3/notices/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  return { status: res.status, headers: res.headers, json: (await res.json()) as any }
}

/** A notice with a real eForms XML behind it. */
const publish = (n: number, publicationDate: string, buyerCountry?: string) => {
  const publicationNumber = `${String(n).padStart(8, "0")}-2026`
  const xml = eformsNoticeXml({
    noticeId: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    publicationNumber,
    publicationDate,
    title: `Lucrări ${n}`,
    cpv: "45233140"
  })
  ted.publish({
    publicationNumber,
    publicationDate,
    title: { ron: `Lucrări ${n}`, eng: `Works ${n}` },
    xml,
    ...(buyerCountry ? { buyerCountry } : {})
  })
  return publicationNumber
}
const numbers = (json: any): Array<string> => json.notices.map((n: any) => n["publication-number"])

describe("fake TED search", () => {
  it("filters by buyer country and publication date (the day itself included), sorted, with TED's shapes", async () => {
    publish(3, "2026-11-24")
    publish(1, "2026-11-23")
    publish(2, "2026-11-24", "FRA")
    publish(4, "2026-11-25")
    const query = "buyer-country=ROU AND publication-date>=20261124 SORT BY publication-date ASC"
    const { status, json } = await search({ query, fields: FIELDS, limit: 10 })
    expect(status).toBe(200)
    expect(json).toMatchObject({ totalNoticeCount: 2, iterationNextToken: null, timedOut: false })
    expect(numbers(json)).toEqual(["00000003-2026", "00000004-2026"])
    expect(json.notices[0]).toEqual({
      "publication-number": "00000003-2026",
      "publication-date": "2026-11-24+01:00",
      "notice-title": { ron: "Lucrări 3", eng: "Works 3" },
      "buyer-country": ["ROU"],
      links: {
        xml: { MUL: `${ted.url}/en/notice/00000003-2026/xml` },
        html: {
          ENG: `${ted.url}/en/notice/-/detail/00000003-2026`,
          RON: `${ted.url}/ro/notice/-/detail/00000003-2026`
        },
        pdf: { ENG: `${ted.url}/en/notice/00000003-2026/pdf`, RON: `${ted.url}/ro/notice/00000003-2026/pdf` }
      }
    })
    const exact = await search({ query: "buyer-country IN (ROU FRA) AND publication-date=20261124", fields: FIELDS })
    expect(numbers(exact.json)).toEqual(["00000002-2026", "00000003-2026"])
    const descending = await search({ query: "buyer-country=ROU SORT BY publication-date DESC", fields: FIELDS })
    expect(numbers(descending.json)).toEqual(["00000004-2026", "00000003-2026", "00000001-2026"])
    // The search request as received, body parsed.
    expect(ted.requests[0]).toMatchObject({ method: "POST", path: "/v3/notices/search", body: { query, limit: 10 } })
  })

  it("pages through ITERATION to the end without duplicates or gaps, over a snapshot taken at the first call", async () => {
    const published = [5, 1, 4, 2, 3].map((n) => publish(n, `2026-11-${20 + n}`)).sort()
    const body = { query: ROMANIAN, fields: FIELDS, limit: 2, paginationMode: "ITERATION" }
    const seen: Array<string> = []
    const tokens: Array<string | null> = []
    let next: string | null | undefined
    do {
      const { status, json } = await search(next ? { ...body, iterationNextToken: next } : body)
      expect(status).toBe(200)
      expect(json.totalNoticeCount).toBe(5)
      seen.push(...numbers(json))
      next = json.iterationNextToken
      tokens.push(next ?? null)
      // Published mid-iteration: not part of this iteration's result set.
      if (tokens.length === 1) publish(9, "2026-11-29")
    } while (next)
    expect(seen).toEqual(published)
    expect(tokens.map((t) => typeof t)).toEqual(["string", "string", "object"])
    const fresh = await search({ ...body, limit: 250 })
    expect(numbers(fresh.json)).toEqual([...published, "00000009-2026"])
  })

  it("pages by page number (from 1)", async () => {
    for (const n of [1, 2, 3]) publish(n, "2026-11-24")
    const { json } = await search({ query: ROMANIAN, fields: FIELDS, limit: 2, page: 2 })
    expect(json).toMatchObject({ totalNoticeCount: 3, iterationNextToken: null })
    expect(numbers(json)).toEqual(["00000003-2026"])
  })

  it("refuses what TED refuses with a 400 and a JSON error", async () => {
    const refused = async (body: unknown, type: string) => {
      const { status, json } = await search(body)
      expect(status).toBe(400)
      expect(json).toMatchObject({ message: expect.any(String), error: { type } })
    }
    await refused({ query: ROMANIAN, fields: FIELDS, limit: 251 }, "SEARCH_EXCEEDS_MAX_LIMIT")
    await refused({ query: ROMANIAN, fields: [], limit: 10 }, "SEARCH_FIELDS_REQUIRED")
    await refused({ query: ROMANIAN, limit: 10 }, "SEARCH_FIELDS_REQUIRED")
    await refused({ query: ROMANIAN, fields: ["no-such-field"] }, "SEARCH_UNKNOWN_FIELDS")
    await refused({ query: ROMANIAN, fields: FIELDS, limit: 250, page: 61 }, "SEARCH_WINDOW_TOO_WIDE")
    await refused({ query: ROMANIAN, fields: FIELDS, onlyLatestVersion: true }, "REQUEST_BODY_INVALID")
    await refused("{not json", "JSON_PARSE_ERROR")
    await refused({ query: "buyer-country=ROU OR notice-type=cn-standard", fields: FIELDS }, "QUERY_SYNTAX_ERROR")
    await refused({ query: "publication-date>=2026-11-01", fields: FIELDS }, "QUERY_INVALID_FIELD_FORMAT")
    await refused({ query: "publication-date>=20261301", fields: FIELDS }, "QUERY_INVALID_FIELD_FORMAT")
  })

  it("answers 429 while rate limited, with Retry-After when given", async () => {
    ted.rateLimitSearch(2, 7)
    for (const _ of [1, 2]) {
      const { status, headers, json } = await search({ query: ROMANIAN, fields: FIELDS })
      expect(status).toBe(429)
      expect(headers.get("retry-after")).toBe("7")
      expect(json.error.type).toBe("TOO_MANY_REQUESTS")
    }
    expect((await search({ query: ROMANIAN, fields: FIELDS })).status).toBe(200)
    ted.rateLimitSearch(1)
    const bare = await search({ query: ROMANIAN, fields: FIELDS })
    expect(bare.status).toBe(429)
    expect(bare.headers.get("retry-after")).toBeNull()
  })

  it("refuses an expired iteration token with a 400; a new iteration starts fine", async () => {
    for (const n of [1, 2, 3]) publish(n, "2026-11-24")
    const body = { query: ROMANIAN, fields: FIELDS, limit: 2, paginationMode: "ITERATION" }
    const first = await search(body)
    const token = first.json.iterationNextToken as string
    // A token can be replayed (a retried page) until it expires.
    expect(numbers((await search({ ...body, iterationNextToken: token })).json)).toEqual(["00000003-2026"])
    ted.expireIterationTokens()
    const expired = await search({ ...body, iterationNextToken: token })
    expect(expired.status).toBe(400)
    expect(expired.json.error.type).toBe("SEARCH_ITERATION_TOKEN_INVALID")
    expect(numbers((await search(body)).json)).toEqual(["00000001-2026", "00000002-2026"])
  })
})

describe("fake TED notice XML", () => {
  it("serves the notice XML at links.xml.MUL, failing as told first; unknown notices are 404", async () => {
    const pn = publish(1, "2026-11-24")
    const { json } = await search({ query: ROMANIAN, fields: FIELDS })
    const xmlUrl = json.notices[0].links.xml.MUL as string
    ted.failXml(pn, 2, 503)
    expect((await fetch(xmlUrl)).status).toBe(503)
    expect((await fetch(xmlUrl)).status).toBe(503)
    const ok = await fetch(xmlUrl)
    expect(ok.status).toBe(200)
    expect(ok.headers.get("content-type")).toBe("application/xml")
    expect(await ok.text()).toContain(`<efbc:NoticePublicationID schemeName="ojs-notice-id">${pn}<`)
    expect((await fetch(`${ted.url}/en/notice/99999999-2026/xml`)).status).toBe(404)
    expect(ted.requests.filter((r) => r.method === "GET").map((r) => r.path)).toEqual([
      ...Array(3).fill(`/en/notice/${pn}/xml`),
      "/en/notice/99999999-2026/xml"
    ])
  })
})

describe("eformsNoticeXml", () => {
  const only = (xml: string) => {
    const items = parseEforms(xml)
    expect(items).toHaveLength(1)
    const [item] = items
    if (item?._tag !== "Parsed") throw new Error(`not parsed: ${JSON.stringify(item)}`)
    return item.record as TenderRecordInput
  }

  it("builds a notice the project's eForms parser reads back field for field", () => {
    const record = only(
      eformsNoticeXml({
        noticeId: "a1b2c3d4-0000-4000-8000-000000000001",
        publicationNumber: "00123456-2026",
        publicationDate: "2026-11-24",
        title: "Reabilitare & modernizare <școala> nr. 5",
        description: "Lucrări de reabilitare termică",
        cpv: "45214200",
        buyerName: "Primăria Municipiului Timișoara",
        buyerFiscalCode: "14756536",
        buyerNuts: "RO424",
        estimatedValue: 1250000,
        deadline: "2026-12-15"
      })
    )
    expect(record).toMatchObject({
      source: "ted-eforms",
      source_id: "a1b2c3d4-0000-4000-8000-000000000001",
      notice_type: "contract",
      title: "Reabilitare & modernizare <școala> nr. 5",
      description: "Lucrări de reabilitare termică",
      contracting_authority: { name: "Primăria Municipiului Timișoara", fiscal_code: "14756536", county: "Timiș" },
      estimated_value_ron: 1250000,
      estimated_value_eur: null,
      deadline: "2026-12-15T10:00:00+02:00",
      publish_date: "2026-11-24T00:00:00+01:00"
    })
    // The parser lists the procedure's and the lot's CPV codes; both are the given one.
    expect(new Set(record.cpv_codes)).toEqual(new Set(["45214200"]))
    expect(record.source_url).toContain("00123456-2026")
  })

  it("makes a change notice that maps onto the notice it changes", () => {
    const fields = {
      publicationNumber: "00123999-2026",
      publicationDate: "2026-11-27",
      title: "Titlu",
      cpv: "45214200"
    }
    const change = only(
      eformsNoticeXml({
        ...fields,
        noticeId: "b0000000-0000-4000-8000-000000000002",
        changes: { changedNoticeId: "a1b2c3d4-0000-4000-8000-000000000001" }
      })
    )
    expect(change.source_id).toBe("a1b2c3d4-0000-4000-8000-000000000001")
    expect(only(eformsNoticeXml({ ...fields, noticeId: "c0000000-0000-4000-8000-000000000003" }))).toMatchObject({
      source_id: "c0000000-0000-4000-8000-000000000003",
      contracting_authority: { fiscal_code: "4267117", county: "București" }
    })
  })
})
