import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addScoredTenders } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { addAlert, addTender, client, query, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

/** Everything of tenant A, as stored; compared before and after B's attempts. */
const snapshotOf = async (server: TestServer, tenantId: string) => ({
  watchlists: await query(server, "SELECT * FROM watchlists WHERE tenant_id = $1 ORDER BY id", [tenantId]),
  companies: await query(server, "SELECT * FROM companies WHERE tenant_id = $1 ORDER BY id", [tenantId]),
  alerts: await query(server, "SELECT * FROM alerts WHERE tenant_id = $1 ORDER BY id", [tenantId]),
  apiKeys: await query(server, "SELECT * FROM api_keys WHERE tenant_id = $1 ORDER BY id", [tenantId]),
  feedback: await query(server, "SELECT * FROM tender_feedback ORDER BY company_id, tender_id"),
  jobs: await query(server, "SELECT count(*)::int AS n FROM jobs")
})

describe("cross-tenant matrix: another tenant's ids answer 404 and change nothing", () => {
  let server: TestServer
  let owner: SeededAccount
  let intruder: ReturnType<typeof client>
  let intruderToken: string
  let ownerIds: { watchlistId: string; alertId: string; apiKeyId: string; scoredTenderId: string }

  beforeAll(async () => {
    server = await startTestServer()
    owner = await seedAccount(server, "consultant")
    const ownerApi = client(server, (await signIn(server, owner)).accessToken)
    const watchlist = (await ownerApi.post("/api/v1/watchlists", { name: "Owner's" })).body.data
    const alertId = await addAlert(server, {
      tenantId: owner.tenantId,
      companyId: owner.companyId,
      watchlistId: watchlist.id,
      tenderId: await addTender(server)
    })
    const apiKey = (await ownerApi.post("/api/v1/settings/api-keys", { name: "owner key" })).body.data
    const [scoredTenderId] = await addScoredTenders(server, owner, [{ score: 80, publishDate: "2026-11-01T08:00:00Z" }])
    ownerIds = { watchlistId: watchlist.id, alertId, apiKeyId: apiKey.id, scoredTenderId: scoredTenderId! }
    // The owner's own mark, which the intruder's DELETE must not remove.
    const marked = await request(
      `${server.baseUrl}/api/v1/app/companies/${owner.companyId}/tenders/${scoredTenderId}/feedback`,
      { method: "PUT", token: (await signIn(server, owner)).accessToken, body: { relevant: true } }
    )
    expect(marked.status).toBe(200)
    const other = await seedAccount(server, "consultant")
    intruderToken = (await signIn(server, other)).accessToken
    intruder = client(server, intruderToken)
    // The intruder has data of its own, so "mark all read" has something to do.
    const own = (await intruder.post("/api/v1/watchlists", { name: "Intruder's" })).body.data
    await addAlert(server, {
      tenantId: other.tenantId,
      companyId: other.companyId,
      watchlistId: own.id,
      tenderId: await addTender(server)
    })
  })
  afterAll(() => server.close())

  it("every id-taking endpoint answers 404 NOT_FOUND for the other tenant's ids", async () => {
    const before = await snapshotOf(server, owner.tenantId)
    const attempts = [
      ["PATCH watchlist", () => intruder.patch(`/api/v1/watchlists/${ownerIds.watchlistId}`, { name: "hijacked" })],
      ["DELETE watchlist", () => intruder.delete(`/api/v1/watchlists/${ownerIds.watchlistId}`)],
      ["GET company", () => intruder.get(`/api/v1/companies/${owner.companyId}`)],
      ["PATCH company", () => intruder.patch(`/api/v1/companies/${owner.companyId}`, { description: "hijacked" })],
      ["PATCH company active", () => intruder.patch(`/api/v1/companies/${owner.companyId}`, { active: false })],
      ["DELETE company", () => intruder.delete(`/api/v1/companies/${owner.companyId}`)],
      ["GET company's app tenders", () => intruder.get(`/api/v1/app/companies/${owner.companyId}/tenders`)],
      [
        "GET company's app tender",
        () => intruder.get(`/api/v1/app/companies/${owner.companyId}/tenders/${ownerIds.scoredTenderId}`)
      ],
      [
        "PUT feedback",
        () =>
          request(
            `${server.baseUrl}/api/v1/app/companies/${owner.companyId}/tenders/${ownerIds.scoredTenderId}/feedback`,
            { method: "PUT", token: intruderToken, body: { relevant: false } }
          )
      ],
      [
        "DELETE feedback",
        () => intruder.delete(`/api/v1/app/companies/${owner.companyId}/tenders/${ownerIds.scoredTenderId}/feedback`)
      ],
      ["GET feedback", () => intruder.get(`/api/v1/app/companies/${owner.companyId}/feedback`)],
      ["PATCH alert", () => intruder.patch(`/api/v1/alerts/${ownerIds.alertId}`, { read: true })],
      ["GET alerts by watchlist", () => intruder.get(`/api/v1/alerts?watchlistId=${ownerIds.watchlistId}`)],
      ["DELETE api key", () => intruder.delete(`/api/v1/settings/api-keys/${ownerIds.apiKeyId}`)]
    ] as const
    for (const [label, attempt] of attempts) {
      const response = await attempt()
      expect(response.status, label).toBe(404)
      expect(response.body.code, label).toBe("NOT_FOUND")
    }
    expect(await snapshotOf(server, owner.tenantId)).toEqual(before)
  })

  it("a body reference to the other tenant's company is a 400 and creates nothing", async () => {
    const before = await snapshotOf(server, owner.tenantId)
    const response = await intruder.post("/api/v1/watchlists", { name: "Sneaky", companyId: owner.companyId })
    expect(response.status).toBe(400)
    expect(response.body.details[0].path).toBe("companyId")
    const mine = (await intruder.get("/api/v1/watchlists")).body.data
    const patch = await intruder.patch(`/api/v1/watchlists/${mine[0].id}`, { companyId: owner.companyId })
    expect(patch.status).toBe(400)
    expect(await snapshotOf(server, owner.tenantId)).toEqual(before)
    const sneaky = await query<{ n: number }>(server, "SELECT count(*)::int AS n FROM watchlists WHERE name = 'Sneaky'")
    expect(sneaky[0]!.n).toBe(0)
  })

  it("lists show only the caller's own resources, and mark-all-read touches only the caller's alerts", async () => {
    const before = await snapshotOf(server, owner.tenantId)
    const watchlists = (await intruder.get("/api/v1/watchlists")).body.data
    expect(watchlists.map((w: any) => w.name)).toEqual(["Intruder's"])
    const companies = (await intruder.get("/api/v1/companies")).body.data
    expect(companies.map((c: any) => c.id)).not.toContain(owner.companyId)
    const alerts = (await intruder.get("/api/v1/alerts")).body.data
    expect(alerts.map((a: any) => a.id)).not.toContain(ownerIds.alertId)
    expect(alerts).toHaveLength(1)
    const keys = (await intruder.get("/api/v1/settings/api-keys")).body.data
    expect(keys).toEqual([])
    expect((await intruder.patch("/api/v1/alerts/mark-all-read")).body).toEqual({ data: { updated: 1 } })
    expect(await snapshotOf(server, owner.tenantId)).toEqual(before)
  })
})
