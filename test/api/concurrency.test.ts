import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addScoredTenders, api, createAccount, ledgerState } from "./fixtures.js"

describe("credits under concurrency", () => {
  let server: TestServer
  let account: Account
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 60_000, exportPerHour: 10 } })
    account = await createAccount(server, { credits: 100 })
    await addScoredTenders(
      server,
      account,
      Array.from({ length: 10 }, (_, i) => ({ score: 50 + i, publishDate: "2026-06-01T08:00:00Z" }))
    )
  })
  afterAll(() => server.close())

  it("200 parallel list requests against 100 credits serve at most 100 items; the ledger equals the counter", async () => {
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        request(api(server, "/api/v1/tenders", { companyId: account.companyId, limit: 3 }), { token: account.key })
      )
    )
    const statuses = new Set(responses.map((r) => r.status))
    expect([...statuses].every((s) => s === 200 || s === 402)).toBe(true)
    const served = responses.filter((r) => r.status === 200).reduce((n, r) => n + r.body.data.length, 0)
    const reportedCost = responses.reduce((n, r) => n + Number(r.headers.get("x-api-credits-cost")), 0)
    expect(served).toBe(100)
    expect(reportedCost).toBe(served)
    for (const r of responses.filter((r) => r.status === 200)) {
      expect(r.body.meta.credits.cost).toBe(r.body.data.length)
    }
    const state = await ledgerState(server, account.tenantId)
    expect(state.remaining).toBe(0)
    expect(state.charged).toBe(served)
    expect(state.ledgerSum).toBe(state.remaining)
  })
})
