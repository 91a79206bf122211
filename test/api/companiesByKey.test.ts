import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../account/fixtures.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addCompany, createAccount, ledgerState } from "./fixtures.js"

/** Issue 20: an integrator starts from the key alone, reading the companies the key API asks for. */
describe("GET /api/v1/companies with an API key (read-only, 0 credits)", () => {
  let server: TestServer
  let account: Account
  let otherCompany: string
  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server, { credits: 40 })
    otherCompany = await addCompany(server, account.tenantId)
  })
  afterAll(() => server.close())

  it("lists the key's companies, same body as with an access token, and charges nothing", async () => {
    const { status, body, headers } = await client(server, account.key).get("/api/v1/companies")
    expect(status).toBe(200)
    expect(body.data.map((company: { id: string }) => company.id).sort()).toEqual(
      [account.companyId, otherCompany].sort()
    )
    expect(Object.keys(body.data[0]).sort()).toEqual([
      "active",
      "counties",
      "createdAt",
      "description",
      "fiscalCode",
      "id",
      "name",
      "watchlistCount"
    ])
    expect(headers.get("x-api-credits-cost")).toBe("0")
    expect(headers.get("x-api-credits-remaining")).toBe("40")
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(40)
  })

  it("reads one company with its watchlists; another tenant's company, or none, is 403 COMPANY_ACCESS_DENIED", async () => {
    const own = await client(server, account.key).get(`/api/v1/companies/${account.companyId}`)
    expect(own.status).toBe(200)
    expect(own.body.data).toMatchObject({ id: account.companyId, watchlists: [] })
    const stranger = await createAccount(server)
    // Spec 1, rule 2, as on every key route: the same answer for a foreign and an unknown id.
    for (const id of [stranger.companyId, "00000000-0000-4000-8000-000000000000"]) {
      const refused = await client(server, account.key).get(`/api/v1/companies/${id}`)
      expect(refused.status).toBe(403)
      expect(refused.body).toMatchObject({ statusCode: 403, code: "COMPANY_ACCESS_DENIED" })
    }
    // (To an access token it stays spec 7's 404: test/account/companiesAndSettings.test.ts.)
  })

  it("a key may not change a company: 401 ACCESS_TOKEN_INVALID, nothing written", async () => {
    const api = client(server, account.key)
    const patched = await api.patch(`/api/v1/companies/${account.companyId}`, { description: "Schimbat" })
    expect(patched.status).toBe(401)
    expect(patched.body.code).toBe("ACCESS_TOKEN_INVALID")
    expect(patched.body.message).toMatch(/read-only/)
    expect((await api.post("/api/v1/companies", { name: "Nouă SRL" })).status).toBe(401)
    expect((await api.delete(`/api/v1/companies/${account.companyId}`)).status).toBe(401)
    const after = await api.get(`/api/v1/companies/${account.companyId}`)
    expect(after.body.data).toMatchObject({ description: "", active: true })
  })

  it("a bad, revoked or under-plan key gets the key API's answers", async () => {
    const invalid = await client(server, `svc_${"0".repeat(64)}`).get("/api/v1/companies")
    expect(invalid.status).toBe(401)
    expect(invalid.body.code).toBe("API_KEY_INVALID")
    const starter = await createAccount(server, { plan: "starter" })
    const underPlan = await client(server, starter.key).get("/api/v1/companies")
    expect(underPlan.status).toBe(403)
    expect(underPlan.body.code).toBe("PLAN_UPGRADE_REQUIRED")
    const missing = await client(server).get("/api/v1/companies")
    expect(missing.status).toBe(401)
    expect(missing.body.code).toBe("ACCESS_TOKEN_MISSING")
    const garbage = await client(server, "not-a-token").get("/api/v1/companies")
    expect(garbage.body.code).toBe("ACCESS_TOKEN_INVALID")
  })

  it("key reads count against the tenant's general rate limit", async () => {
    const limited = await createAccount(server)
    const api = client(server, limited.key)
    const statuses: Array<number> = []
    for (let i = 0; i < 61; i++) statuses.push((await api.get("/api/v1/companies")).status)
    expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true)
    expect(statuses[60]).toBe(429)
  })
})
