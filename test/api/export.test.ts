import { parse } from "csv-parse/sync"
import { stringify } from "csv-stringify/sync"
import { Effect, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EXPORT_COLUMNS, ExportJson } from "../../src/http/export/ExportApi.js"
import { CSV_OPTIONS } from "../../src/http/export/ExportHttp.js"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addScoredTenders, api, createAccount, ledgerState } from "./fixtures.js"

const FIELDS = [
  "tender_id",
  "title",
  "cpv_codes",
  "cpv_description",
  "contracting_authority",
  "authority_county",
  "deadline",
  "estimated_value_ron",
  "estimated_value_eur",
  "publish_date",
  "overall_score",
  "verdict",
  "score_cpv",
  "score_semantic",
  "score_keyword",
  "score_value_fit",
  "score_historical",
  "price_benchmark_signal",
  "price_benchmark_median_eur",
  "source_url"
]

const TRICKY_TITLE = 'Lucrări de "reabilitare", drumuri\nși poduri; etapa 2'

describe("the export's CSV options", () => {
  it("quote a field with a line break of any kind, so every reader sees one record per row", () => {
    const row = Object.fromEntries(EXPORT_COLUMNS.map((column, i) => [column, `v${i}`]))
    const tricky = {
      ...row,
      title: "Lot 1\nLot 2",
      contracting_authority: "Primăria\rX",
      source_url: 'A "quoted", value'
    }
    const text = stringify([row, tricky], { ...CSV_OPTIONS, bom: false })
    const records = parse(text, { columns: true }) as Array<Record<string, string>>
    expect(records).toEqual([row, tricky])
    expect(text.split("\r\n").filter((line) => line !== "")).toHaveLength(3)
  })
})

describe("GET /api/v1/export/tenders", () => {
  let server: TestServer
  let account: Account
  let ids: Array<string>
  /** An account with the export fixtures' tenders: the shared one, or a test's own when it adds or spends. */
  const seedExportAccount = async () => {
    const seeded = await createAccount(server)
    const tenderIds = await addScoredTenders(server, seeded, [
      // 2026-04-01 00:30 in Bucharest (UTC+3): inside an export starting 2026-04-01.
      { score: 81, publishDate: "2026-03-31T21:30:00Z", title: TRICKY_TITLE, additionalCpvs: ["71000000-8"] },
      // 2026-03-31 23:30 in Bucharest: outside it.
      { score: 82, publishDate: "2026-03-31T20:30:00Z" },
      { score: 40, publishDate: "2026-04-10T08:00:00Z", county: null, deadline: null, valueRon: null },
      { score: 60, publishDate: "2026-04-20T08:00:00Z" },
      // 2026-04-30 23:59 in Bucharest: the last instant of `to=2026-04-30`.
      { score: 70, publishDate: "2026-04-30T20:59:59Z" },
      // 2026-05-01 00:00 in Bucharest: after it.
      { score: 70, publishDate: "2026-04-30T21:00:00Z" }
    ])
    // The month's credit period is opened up front (the first request of the month opens it, even a
    // refused one, for its credit headers), so `remaining` compares as a number in any test order.
    await server.run(Effect.flatMap(CreditLedger, (ledger) => ledger.balance(seeded.tenantId)))
    return { account: seeded, ids: tenderIds }
  }

  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { generalPerMinute: 10_000, exportPerHour: 10_000 }
    })
    ;({ account, ids } = await seedExportAccount())
  })
  afterAll(() => server.close())

  const april = { from: "2026-04-01", to: "2026-04-30" }
  const exportUrl = (params: Record<string, string | number>, owner: Account = account) =>
    api(server, "/api/v1/export/tenders", { companyId: owner.companyId, ...params })

  it("JSON: every field of 2.4, factor scores as integers 0-100, beta fields null, publish dates in Bucharest days", async () => {
    const before = await ledgerState(server, account.tenantId)
    const res = await request(exportUrl(april), { token: account.key })
    expect(res.status).toBe(200)
    const body = Schema.decodeUnknownSync(ExportJson)(res.body)
    expect(body.data.map((r) => r.tender_id)).toEqual([ids[0], ids[2], ids[3], ids[4]])
    expect(Object.keys(res.body.data[0])).toEqual(FIELDS)
    expect(res.body.data[0]).toMatchObject({
      title: TRICKY_TITLE,
      cpv_codes: ["45000000-7", "71000000-8"],
      cpv_description: null,
      authority_county: "Cluj",
      publish_date: "2026-03-31T21:30:00.000Z",
      overall_score: 81,
      verdict: "GO",
      score_cpv: 80,
      score_semantic: 81,
      score_keyword: 50,
      score_value_fit: 25,
      score_historical: 13,
      price_benchmark_signal: null,
      price_benchmark_median_eur: null
    })
    expect(res.body.data[1]).toMatchObject({ authority_county: null, deadline: null, estimated_value_ron: null })
    expect(body.meta).toMatchObject({ count: 4, has_more: false, next_cursor: null })
    expect(Date.now() - Date.parse(body.meta.exported_at)).toBeLessThan(60_000)
    expect(body.meta.credits.cost).toBe(4)
    expect(res.headers.get("x-api-credits-cost")).toBe("4")
    expect(res.headers.get("x-api-credits-remaining")).toBe(String(body.meta.credits.remaining))
    const after = await ledgerState(server, account.tenantId)
    expect(after.charged - before.charged).toBe(4)
  })

  it("pages with a cursor that works across formats and is stable against new tenders", async () => {
    // Its own account: the tender it adds must not show in the other tests' exports.
    const { account, ids } = await seedExportAccount()
    const first = await request(exportUrl({ ...april, limit: 2 }, account), { token: account.key })
    expect(first.body.data.map((r: any) => r.tender_id)).toEqual([ids[0], ids[2]])
    expect(first.body.meta.has_more).toBe(true)
    await addScoredTenders(server, account, [{ score: 99, publishDate: "2026-04-15T08:00:00Z" }])
    const second = await request(
      exportUrl({ ...april, limit: 2, cursor: first.body.meta.next_cursor, format: "csv" }, account),
      {
        token: account.key
      }
    )
    expect(second.status).toBe(200)
    const rows = parse(second.text, { bom: true, columns: true }) as Array<Record<string, string>>
    expect(rows.map((r) => r.tender_id)).toEqual([ids[3], ids[4]])
    expect(second.headers.get("x-has-more")).toBe("false")
    expect(second.headers.get("x-next-cursor")).toBeNull()
    // The cursor is bound to the date range.
    const moved = await request(
      exportUrl({ from: "2026-04-02", to: "2026-04-30", cursor: first.body.meta.next_cursor }, account),
      {
        token: account.key
      }
    )
    expect(moved.status).toBe(400)
    expect(moved.body.code).toBe("INVALID_CURSOR")
  })

  it("CSV: text/csv, attachment svc-export-<date>.csv, BOM, header row, RFC 4180 quoting, arrays joined with ';'", async () => {
    const res = await fetch(exportUrl({ ...april, format: "csv", limit: 1 }), {
      headers: { authorization: `Bearer ${account.key}` }
    })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Bucharest" }).format(new Date())
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="svc-export-${today}.csv"`)
    expect(res.headers.get("x-has-more")).toBe("true")
    expect(res.headers.get("x-next-cursor")).toEqual(expect.any(String))
    expect(res.headers.get("x-export-count")).toBe("1")
    expect(res.headers.get("x-api-credits-cost")).toBe("1")
    expect(res.headers.get("x-api-credits-remaining")).toMatch(/^\d+$/)
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)
    expect(text.slice(1).split("\r\n")[0]).toBe(FIELDS.join(","))
    expect(text).toContain(`"Lucrări de ""reabilitare"", drumuri\nși poduri; etapa 2"`)
    const [row] = parse(text, { bom: true, columns: true }) as Array<Record<string, string>>
    expect(row).toMatchObject({
      tender_id: ids[0],
      title: TRICKY_TITLE,
      cpv_codes: "45000000-7;71000000-8",
      cpv_description: "",
      score_semantic: "81",
      price_benchmark_signal: ""
    })
  })

  it("an empty CSV export is the header row alone", async () => {
    const res = await fetch(exportUrl({ from: "2020-01-01", to: "2020-01-31", format: "csv" }), {
      headers: { authorization: `Bearer ${account.key}` }
    })
    expect(res.status).toBe(200)
    // fetch's text() drops a BOM: read the bytes.
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer())
    expect(text).toBe(`\ufeff${FIELDS.join(",")}\r\n`)
    expect(res.headers.get("x-api-credits-cost")).toBe("0")
    expect(res.headers.get("x-has-more")).toBe("false")
  })

  it.each([
    [{ from: "2026-01-01", to: "2026-04-02" }, "DATE_RANGE_EXCEEDED"],
    [{ from: "2026-04-30", to: "2026-04-01" }, "VALIDATION_ERROR"],
    [{ ...april, limit: 1001 }, "LIMIT_EXCEEDED"],
    // Whole numbers beyond 2^53 are still too large, not "not an integer".
    [{ ...april, limit: "9007199254740992" }, "LIMIT_EXCEEDED"],
    [{ ...april, limit: "99999999999999999999999" }, "LIMIT_EXCEEDED"],
    [{ ...april, limit: "1e400" }, "VALIDATION_ERROR"],
    [{ ...april, limit: 0 }, "VALIDATION_ERROR"],
    [{ ...april, limit: 2.5 }, "VALIDATION_ERROR"],
    [{ ...april, format: "xml" }, "VALIDATION_ERROR"],
    [{ from: "2026-02-30", to: "2026-03-01" }, "VALIDATION_ERROR"],
    [{ from: "2026-4-1", to: "2026-04-30" }, "VALIDATION_ERROR"],
    [{ to: "2026-04-30" }, "VALIDATION_ERROR"]
  ])("%j → 400 %s, costing nothing", async (params, code) => {
    const before = await ledgerState(server, account.tenantId)
    const res = await request(exportUrl(params as Record<string, string | number>), { token: account.key })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400, code, message: expect.any(String) })
    expect(res.headers.get("x-api-credits-cost")).toBe("0")
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(before.remaining)
  })

  it("a year PostgreSQL cannot represent (0000) is 400 VALIDATION_ERROR naming the field; 0001 and 9999 are accepted", async () => {
    const before = await ledgerState(server, account.tenantId)
    const res = await request(exportUrl({ from: "0000-01-01", to: "0000-01-31" }), { token: account.key })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
    expect(res.body.details[0]).toEqual({ path: "from", message: expect.stringContaining("0001-9999") })
    const onlyTo = await request(exportUrl({ from: "0001-01-01", to: "0000-12-31" }), { token: account.key })
    expect(onlyTo.status).toBe(400)
    expect(onlyTo.body.details[0].path).toBe("to")
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(before.remaining)
    for (const range of [
      { from: "0001-01-01", to: "0001-01-31" },
      { from: "9999-12-01", to: "9999-12-31" }
    ]) {
      const edge = await request(exportUrl(range), { token: account.key })
      expect(edge.status).toBe(200)
      expect(edge.body.data).toEqual([])
    }
  })

  it("403 COMPANY_ACCESS_DENIED for another tenant's company and for an unknown one, charging nothing", async () => {
    const other = await createAccount(server)
    // A page is served first, so the period exists and `remaining` is a number to compare.
    await request(exportUrl({ ...april, limit: 1 }), { token: account.key })
    const before = await ledgerState(server, account.tenantId)
    for (const companyId of [other.companyId, "00000000-0000-4000-8000-000000000000"]) {
      const res = await request(api(server, "/api/v1/export/tenders", { companyId, ...april }), {
        token: account.key
      })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ statusCode: 403, code: "COMPANY_ACCESS_DENIED", message: expect.any(String) })
      expect(res.headers.get("x-api-credits-cost")).toBe("0")
      expect(res.headers.get("x-api-credits-remaining")).toBe(String(before.remaining))
    }
    expect(await ledgerState(server, account.tenantId)).toEqual(before)
  })

  it("accepts exactly 90 days and limit 1000", async () => {
    const res = await request(exportUrl({ from: "2026-01-01", to: "2026-04-01", limit: 1000 }), { token: account.key })
    expect(res.status).toBe(200)
  })

  it("counts the 90 days in calendar days: across the autumn change (a 25-hour day) and a leap February", async () => {
    for (const [range, status] of [
      [{ from: "2026-08-01", to: "2026-10-30" }, 200],
      [{ from: "2026-08-01", to: "2026-10-31" }, 400],
      [{ from: "2028-01-01", to: "2028-03-31" }, 200],
      [{ from: "2028-01-01", to: "2028-04-01" }, 400]
    ] as const) {
      const res = await request(exportUrl(range), { token: account.key })
      expect([range, res.status]).toEqual([range, status])
      if (status === 400) expect(res.body.code).toBe("DATE_RANGE_EXCEEDED")
    }
  })

  it("a balance short of the page serves what it pays for; none → 402", async () => {
    // An account of its own: spending its balance must not starve the other tests (any order).
    const poor = await createAccount(server)
    await addScoredTenders(server, poor, [
      { score: 60, publishDate: "2026-04-10T08:00:00Z" },
      { score: 50, publishDate: "2026-04-11T08:00:00Z" },
      { score: 40, publishDate: "2026-04-12T08:00:00Z" }
    ])
    await server.run(Effect.flatMap(CreditLedger, (l) => l.set({ tenantId: poor.tenantId, remaining: 2, reason: "t" })))
    const res = await request(exportUrl(april, poor), { token: poor.key })
    expect(res.body.meta).toMatchObject({ count: 2, has_more: true })
    const none = await request(exportUrl({ ...april, format: "csv" }, poor), { token: poor.key })
    expect(none.status).toBe(402)
    expect(none.headers.get("content-type")).toContain("application/json")
    expect(none.body).toMatchObject({ code: "API_CREDITS_EXHAUSTED", credits_remaining: 0 })
    expect(none.headers.get("x-api-credits-remaining")).toBe("0")
  })
})
