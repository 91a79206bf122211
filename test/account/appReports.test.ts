import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { ledgerState } from "../api/fixtures.js"
import { completeNextReportJob, STAND_IN_PDF } from "../reports/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

/**
 * PDF reports from the app (access token): the key API's jobs, credits and download links. The
 * rendering itself is the worker's (test/reports); here a job is completed through the job store
 * with a stand-in PDF, as a worker would.
 */

describe("PDF reports from the app", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "consultant")
    api = client(server, (await signIn(server, account)).accessToken)
  })
  afterAll(() => server.close())

  const body = { date_from: "2026-10-01", date_to: "2026-10-31", min_score: 40 }

  it("requests a report (credits held), follows its status, and downloads it once completed", async () => {
    const created = await api.post(`/api/v1/app/companies/${account.companyId}/reports`, body)
    expect(created.status).toBe(202)
    expect(created.body.data).toMatchObject({
      companyId: account.companyId,
      status: "generating",
      dateFrom: "2026-10-01",
      dateTo: "2026-10-31",
      minScore: 40,
      watchlistId: null,
      completedAt: null
    })
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(1490)
    const id = created.body.data.id
    const notReady = await api.post(`/api/v1/app/reports/${id}/download-url`)
    expect(notReady.status).toBe(409)
    expect(notReady.body).toMatchObject({ code: "REPORT_NOT_READY", status: "generating" })

    expect(await completeNextReportJob(server)).toBe("completed")
    const status = await api.get(`/api/v1/app/reports/${id}`)
    expect(status.body.data.status).toBe("completed")
    expect(status.body.data.completedAt).toMatch(/Z$/)
    const list = await api.get("/api/v1/app/reports")
    expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([id])
    expect(list.body.data[0].companyName).toMatch(/^Company /)

    const url = await api.post(`/api/v1/app/reports/${id}/download-url`)
    expect(url.status).toBe(200)
    expect(url.headers.get("cache-control")).toBe("no-store")
    expect(url.body.data.downloadUrl).toMatch(/\/api\/v1\/reports\/download\/[0-9a-f]{64}$/)
    const token = url.body.data.downloadUrl.split("/").pop()
    const pdf = await fetch(`${server.baseUrl}/api/v1/reports/download/${token}`)
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get("content-type")).toBe("application/pdf")
    expect(new Uint8Array(await pdf.arrayBuffer())).toEqual(STAND_IN_PDF)
    // Charged once, at completion: 10 credits in all.
    expect(await ledgerState(server, account.tenantId)).toMatchObject({ remaining: 1490, charged: 10 })
  })

  it("another account's company or job is 404; a foreign watchlist 400; bad bodies 400", async () => {
    const other = await seedAccount(server, "consultant")
    const intruder = client(server, (await signIn(server, other)).accessToken)
    const [job] = (await api.get("/api/v1/app/reports")).body.data
    expect((await intruder.get(`/api/v1/app/reports/${job.id}`)).status).toBe(404)
    expect((await intruder.post(`/api/v1/app/reports/${job.id}/download-url`)).status).toBe(404)
    const foreign = await intruder.post(`/api/v1/app/companies/${account.companyId}/reports`, body)
    expect(foreign.status).toBe(404)
    expect(foreign.body.code).toBe("NOT_FOUND")
    const watchlist = (await intruder.post("/api/v1/watchlists", { name: "Theirs" })).body.data
    const badWatchlist = await api.post(`/api/v1/app/companies/${account.companyId}/reports`, {
      ...body,
      watchlist_id: watchlist.id
    })
    expect(badWatchlist.status).toBe(400)
    expect(badWatchlist.body.details).toEqual([{ path: "watchlist_id", message: expect.any(String) }])
    for (const bad of [
      {},
      { ...body, date_to: "2026-09-01" },
      { ...body, min_score: 101 },
      { ...body, date_from: "2026-02-30" }
    ]) {
      const response = await api.post(`/api/v1/app/companies/${account.companyId}/reports`, bad)
      expect(response.status, JSON.stringify(bad)).toBe(400)
      expect(response.body.code).toBe("VALIDATION_ERROR")
    }
    expect((await intruder.get("/api/v1/app/reports")).body.data).toEqual([])
  })

  it("402 without the credits; 403 on other plans; 401 without a token", async () => {
    const poor = await seedAccount(server, "consultant")
    const poorApi = client(server, (await signIn(server, poor)).accessToken)
    await poorApi.get("/api/v1/settings/credits")
    await server.run(
      Effect.flatMap(CreditLedger, (ledger) =>
        ledger.set({ tenantId: poor.tenantId, remaining: 9, reason: "test" })
      ).pipe(Effect.orDie)
    )
    const short = await poorApi.post(`/api/v1/app/companies/${poor.companyId}/reports`, body)
    expect(short.status).toBe(402)
    expect(short.body).toMatchObject({ code: "API_CREDITS_EXHAUSTED", credits_remaining: 9, credits_required: 10 })
    const starter = await seedAccount(server, "starter")
    const starterApi = client(server, (await signIn(server, starter)).accessToken)
    const refused = await starterApi.post(`/api/v1/app/companies/${starter.companyId}/reports`, body)
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe("PLAN_UPGRADE_REQUIRED")
    expect((await request(`${server.baseUrl}/api/v1/app/reports`)).status).toBe(401)
  })
})
