import { Effect, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { creditPeriodAt } from "../../src/domain/CreditPeriod.js"
import { MODEL_VERSION } from "../../src/domain/scoring/Model.js"
import { TenderList, TenderScore } from "../../src/http/tenders/TendersApi.js"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addCompany, addScoredTenders, api, createAccount, ledgerState } from "./fixtures.js"

const expectCreditHeaders = (headers: Headers, cost: number, remaining: number) => {
  expect(headers.get("x-api-credits-cost")).toBe(String(cost))
  expect(headers.get("x-api-credits-remaining")).toBe(String(remaining))
}

// 25 tenders: scores 100, 96, ..., 4; two ties on score to exercise the date and id tie-breakers.
const TWENTY_FIVE = Array.from({ length: 25 }, (_, i) => ({
  score: i < 3 ? 90 : 100 - 4 * i,
  publishDate: i < 2 ? "2026-10-01T09:00:00.123456Z" : `2026-09-${String(1 + i).padStart(2, "0")}T08:00:00Z`,
  additionalCpvs: i === 0 ? ["71000000-8"] : []
}))

/** The balance a request reports: the ledger's, or the Consultant grant when no request has opened the period yet. */
const balanceOf = (state: { remaining: number | null }) => state.remaining ?? 1500

describe("GET /api/v1/tenders", () => {
  let server: TestServer
  let account: Account
  let ids: Array<string>
  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { generalPerMinute: 10_000, exportPerHour: 10_000 }
    })
    account = await createAccount(server)
    ids = await addScoredTenders(server, account, TWENTY_FIVE)
  })
  afterAll(() => server.close())

  it("returns every field of 2.1 and 2.2, best score first, 20 by default, 1 credit per item", async () => {
    // An account of its own: the credit figures below start from an unopened period.
    const account = await createAccount(server)
    const ids = await addScoredTenders(server, account, TWENTY_FIVE)
    const before = await ledgerState(server, account.tenantId)
    const res = await request(api(server, "/api/v1/tenders", { companyId: account.companyId }), { token: account.key })
    expect(res.status).toBe(200)
    // The period opens lazily on first use, with the Consultant grant.
    expect(before.remaining).toBeNull()
    // The hot path writes prebuilt JSON: it must decode with the declared schema.
    const body = Schema.decodeUnknownSync(TenderList)(res.body)
    expect(body.data).toHaveLength(20)
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        "tender_id",
        "title",
        "score",
        "verdict",
        "cpv_codes",
        "contracting_authority",
        "deadline",
        "estimated_value_ron",
        "estimated_value_eur",
        "publish_date",
        "source_url"
      ].sort()
    )
    const scores = body.data.map((d) => d.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    const first = body.data.find((d) => d.tender_id === ids[0])!
    expect(first.cpv_codes).toEqual(["45000000-7", "71000000-8"])
    expect(first.verdict).toBe("GO")
    expect(first.deadline).toBe("2027-01-15T10:00:00.000Z")
    expect(first.publish_date).toBe("2026-10-01T09:00:00.123Z")
    expect(first.estimated_value_ron).toBe(100000)
    expect(first.estimated_value_eur).toBe(20100.5)
    expect(first.contracting_authority).toMatch(/^Primăria /)
    expect(first.source_url).toMatch(/^https:\/\/e-licitatie\.ro\//)
    expect(body.meta.total).toBe(25)
    expect(body.meta.limit).toBe(20)
    expect(body.meta.has_more).toBe(true)
    expect(body.meta.next_cursor).toEqual(expect.any(String))
    expect(body.meta.credits.cost).toBe(20)
    expect(body.meta.credits.remaining).toBe(1500 - 20)
    expectCreditHeaders(res.headers, 20, 1480)
    const after = await ledgerState(server, account.tenantId)
    expect(after.remaining).toBe(1480)
    expect(after.ledgerSum).toBe(after.remaining)
  })

  it("orders ties by publish date (desc) then tender id", async () => {
    const res = await request(api(server, "/api/v1/tenders", { companyId: account.companyId, limit: 3 }), {
      token: account.key
    })
    const top = res.body.data.map((d: any) => d.tender_id)
    // ids[0] and ids[1] share score 90 and the newest date; ids[2] has score 90 and an older date.
    expect(top.slice(0, 2)).toEqual([ids[0], ids[1]].sort())
    expect(top[2]).toBe(ids[2])
  })

  it("period_ends_at is the end of the Bucharest month with its real offset", async () => {
    const res = await request(api(server, "/api/v1/tenders", { companyId: account.companyId, limit: 1 }), {
      token: account.key
    })
    expect(res.body.meta.credits.period_ends_at).toBe(creditPeriodAt(Date.now()).endsAtText)
    expect(res.body.meta.credits.period_ends_at).toMatch(/^\d{4}-\d{2}-01T00:00:00\+0[23]:00$/)
  })

  it("filters by minScore and counts total matches", async () => {
    const res = await request(
      api(server, "/api/v1/tenders", { companyId: account.companyId, minScore: 80, limit: 100 }),
      {
        token: account.key
      }
    )
    expect(res.status).toBe(200)
    expect(res.body.data.every((d: any) => d.score >= 80)).toBe(true)
    expect(res.body.meta.total).toBe(res.body.data.length)
    expect(res.body.meta.has_more).toBe(false)
    expect(res.body.meta.next_cursor).toBeNull()
  })

  it.each([
    ["minScore", "101"],
    ["minScore", "-1"],
    ["minScore", "5.5"],
    ["minScore", "abc"],
    ["limit", "0"],
    ["limit", "101"],
    ["limit", ""],
    ["companyId", "not-a-uuid"]
  ])("rejects %s=%s with the uniform 400 body and no charge", async (name, value) => {
    const params: Record<string, string> = { companyId: account.companyId, [name]: value }
    const before = await ledgerState(server, account.tenantId)
    const res = await request(api(server, "/api/v1/tenders", params), { token: account.key })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR", message: expect.any(String) })
    expect(res.body.details[0].path).toBe(name)
    expectCreditHeaders(res.headers, 0, balanceOf(before))
    expect((await ledgerState(server, account.tenantId)).remaining ?? 1500).toBe(balanceOf(before))
  })

  it("requires companyId", async () => {
    const res = await request(api(server, "/api/v1/tenders"), { token: account.key })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("VALIDATION_ERROR")
  })

  it("403 COMPANY_ACCESS_DENIED for another tenant's company and for a company that does not exist, free", async () => {
    const other = await createAccount(server)
    const before = await ledgerState(server, account.tenantId)
    for (const companyId of [other.companyId, "00000000-0000-4000-8000-000000000000"]) {
      const res = await request(api(server, "/api/v1/tenders", { companyId }), { token: account.key })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({
        statusCode: 403,
        code: "COMPANY_ACCESS_DENIED",
        message: expect.any(String)
      })
      expectCreditHeaders(res.headers, 0, balanceOf(before))
      const score = await request(api(server, `/api/v1/tenders/${ids[0]}/score`, { companyId }), { token: account.key })
      expect(score.status).toBe(403)
      expect(score.body.code).toBe("COMPANY_ACCESS_DENIED")
    }
    expect((await ledgerState(server, account.tenantId)).remaining ?? 1500).toBe(balanceOf(before))
  })

  it("an own company without scores gives an empty page that costs nothing", async () => {
    const companyId = await addCompany(server, account.tenantId)
    const res = await request(api(server, "/api/v1/tenders", { companyId }), { token: account.key })
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual([])
    expect(res.body.meta).toMatchObject({ total: 0, has_more: false, next_cursor: null })
    expect(res.body.meta.credits.cost).toBe(0)
  })
})

describe("cursor pagination", () => {
  let server: TestServer
  let account: Account
  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { generalPerMinute: 10_000, exportPerHour: 10_000 }
    })
    account = await createAccount(server)
    await addScoredTenders(
      server,
      account,
      Array.from({ length: 12 }, (_, i) => ({
        score: 50 + (i % 4) * 10,
        publishDate: `2026-08-${String(1 + (i % 3)).padStart(2, "0")}T08:00:00Z`
      }))
    )
  })
  afterAll(() => server.close())

  const page = (params: Record<string, string | number>) =>
    request(api(server, "/api/v1/tenders", { companyId: account.companyId, ...params }), { token: account.key })

  it("pages form exactly the snapshot of page 1 although tenders arrive in between", async () => {
    const snapshot = (await page({ limit: 100 })).body.data.map((d: any) => d.tender_id)
    expect(snapshot).toHaveLength(12)

    const seen: Array<string> = []
    let res = await page({ limit: 5 })
    seen.push(...res.body.data.map((d: any) => d.tender_id))
    let round = 0
    while (res.body.meta.has_more) {
      // New tenders scoring above, between and below the page boundary arrive while the client pages.
      await addScoredTenders(server, account, [
        { score: 99, publishDate: "2026-09-30T08:00:00Z" },
        { score: 60, publishDate: "2026-08-02T08:00:00Z" },
        { score: 1, publishDate: "2026-01-01T08:00:00Z" }
      ])
      res = await page({ limit: 5, cursor: res.body.meta.next_cursor })
      expect(res.status).toBe(200)
      expect(res.body.meta.total).toBe(12)
      seen.push(...res.body.data.map((d: any) => d.tender_id))
      round++
    }
    expect(round).toBe(2)
    expect(seen).toEqual(snapshot)
    // A new pagination sees the new tenders.
    expect((await page({ limit: 100 })).body.meta.total).toBe(12 + 3 * 2)
  })

  it("a tampered cursor is 400 INVALID_CURSOR", async () => {
    const cursor: string = (await page({ limit: 2 })).body.meta.next_cursor
    const [body, signature] = cursor.split(".")
    const payload = JSON.parse(Buffer.from(body!, "base64url").toString())
    payload.k[0] = 100
    const forged = `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${signature}`
    for (const bad of [forged, "garbage", `${body}.`, `${cursor}x`]) {
      const res = await page({ limit: 2, cursor: bad })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, code: "INVALID_CURSOR" })
    }
  })

  it("a cursor from another query (other filters or another company) is 400 INVALID_CURSOR", async () => {
    const cursor: string = (await page({ limit: 2, minScore: 10 })).body.meta.next_cursor
    const res = await page({ limit: 2, minScore: 20, cursor })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("INVALID_CURSOR")
    const companyId = await addCompany(server, account.tenantId)
    const other = await request(api(server, "/api/v1/tenders", { companyId, minScore: 10, cursor }), {
      token: account.key
    })
    expect(other.status).toBe(400)
    expect(other.body.code).toBe("INVALID_CURSOR")
    // The page size is free to change between pages.
    expect((await page({ limit: 7, minScore: 10, cursor })).status).toBe(200)
  })
})

describe("credits on the list and score endpoints", () => {
  let server: TestServer
  let account: Account
  let ids: Array<string>
  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { generalPerMinute: 10_000, exportPerHour: 10_000 }
    })
    account = await createAccount(server, { credits: 3 })
    ids = await addScoredTenders(
      server,
      account,
      Array.from({ length: 5 }, (_, i) => ({ score: 90 - i, publishDate: "2026-07-01T08:00:00Z" }))
    )
  })
  afterAll(() => server.close())

  const setCredits = (remaining: number) =>
    server.run(Effect.flatMap(CreditLedger, (l) => l.set({ tenantId: account.tenantId, remaining, reason: "test" })))

  it("GET /tenders/:id/score returns 2.3 exactly and costs 2 credits", async () => {
    await setCredits(10)
    const res = await request(api(server, `/api/v1/tenders/${ids[0]}/score`, { companyId: account.companyId }), {
      token: account.key
    })
    expect(res.status).toBe(200)
    Schema.decodeUnknownSync(TenderScore)(res.body)
    expect(res.body.data).toEqual({
      tender_id: ids[0],
      overall_score: 90,
      overall_confidence: 0.75,
      verdict: "GO",
      factors: {
        // Stored factor scores with the weights of their model version; each reason names the
        // evidence (test/scoring/reasons.test.ts checks their content on real scores).
        semantic: { score: 0.9, weight: 0.25, contribution: 22.5, reason: expect.any(String) },
        keyword: { score: 0.5, weight: 0.15, contribution: 7.5, reason: expect.any(String) },
        cpv: { score: 0.8, weight: 0.3, contribution: 24, cpv_type: "primary", reason: expect.any(String) },
        value_fit: { score: 0.25, weight: 0.1, contribution: 2.5, reason: expect.any(String) },
        historical: { score: 0.125, weight: 0.2, contribution: 2.5, reason: expect.any(String) }
      },
      scoring_model_version: MODEL_VERSION,
      scored_at: "2026-11-01T08:00:00.000Z"
    })
    expect(res.body.meta.credits).toMatchObject({ cost: 2, remaining: 8 })
    expectCreditHeaders(res.headers, 2, 8)
  })

  it("404 for an unknown tender or one not scored for the company, costing nothing", async () => {
    await setCredits(10)
    const otherCompany = await addCompany(server, account.tenantId)
    for (const [tenderId, companyId] of [
      ["11111111-1111-4111-8111-111111111111", account.companyId],
      [ids[0]!, otherCompany]
    ]) {
      const res = await request(api(server, `/api/v1/tenders/${tenderId}/score`, { companyId: companyId! }), {
        token: account.key
      })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ statusCode: 404, code: "NOT_FOUND", message: expect.any(String) })
      expectCreditHeaders(res.headers, 0, 10)
    }
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(10)
  })

  it("a malformed tender id is 400", async () => {
    const res = await request(api(server, "/api/v1/tenders/nope/score", { companyId: account.companyId }), {
      token: account.key
    })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("VALIDATION_ERROR")
  })

  it("a page the balance cannot fully pay is cut to what it pays for, and continues from there", async () => {
    await setCredits(3)
    const res = await request(api(server, "/api/v1/tenders", { companyId: account.companyId, limit: 5 }), {
      token: account.key
    })
    expect(res.status).toBe(200)
    expect(res.body.data.map((d: any) => d.tender_id)).toEqual(ids.slice(0, 3))
    expect(res.body.meta).toMatchObject({ total: 5, limit: 5, has_more: true })
    expect(res.body.meta.credits).toMatchObject({ cost: 3, remaining: 0 })
    expectCreditHeaders(res.headers, 3, 0)
    await setCredits(100)
    const next = await request(
      api(server, "/api/v1/tenders", { companyId: account.companyId, limit: 5, cursor: res.body.meta.next_cursor }),
      { token: account.key }
    )
    expect(next.body.data.map((d: any) => d.tender_id)).toEqual(ids.slice(3))
    expect(next.body.meta.has_more).toBe(false)
  })

  it("402 with exactly the body of section 7 when the balance pays for nothing", async () => {
    await setCredits(0)
    const res = await request(api(server, "/api/v1/tenders", { companyId: account.companyId, limit: 5 }), {
      token: account.key
    })
    expect(res.status).toBe(402)
    expect(res.body).toEqual({
      statusCode: 402,
      code: "API_CREDITS_EXHAUSTED",
      message: expect.any(String),
      credits_remaining: 0,
      credits_required: 5,
      period_ends_at: creditPeriodAt(Date.now()).endsAtText
    })
    expect(res.body.period_ends_at).toMatch(/\+0[23]:00$/)
    expectCreditHeaders(res.headers, 0, 0)

    await setCredits(1)
    const score = await request(api(server, `/api/v1/tenders/${ids[0]}/score`, { companyId: account.companyId }), {
      token: account.key
    })
    expect(score.status).toBe(402)
    expect(score.body).toMatchObject({ credits_remaining: 1, credits_required: 2 })
    expectCreditHeaders(score.headers, 0, 1)
    const state = await ledgerState(server, account.tenantId)
    expect(state.remaining).toBe(1)
    expect(state.ledgerSum).toBe(1)
  })
})
