import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import {
  addCompany,
  client,
  query,
  rescoreJobs,
  runRescores,
  type SeededAccount,
  seedAccount,
  signIn
} from "./fixtures.js"

describe("companies (spec 2.9, 4.7)", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    server = await startTestServer()
  })
  // Each test has an account of its own, so it sees only what it made (tests run in any order).
  beforeEach(async () => {
    account = await seedAccount(server, "consultant")
    api = client(server, (await signIn(server, account)).accessToken)
  })
  afterAll(() => server.close())

  it("GET /api/v1/companies lists the tenant's companies with watchlistCount (active watchlists only)", async () => {
    const second = await addCompany(server, account.tenantId, "Beta SRL")
    await api.post("/api/v1/watchlists", { name: "A1" })
    const gone = (await api.post("/api/v1/watchlists", { name: "A2" })).body.data
    await api.delete(`/api/v1/watchlists/${gone.id}`)
    await api.post("/api/v1/watchlists", { name: "B1", companyId: second.id })
    await api.post("/api/v1/watchlists", { name: "B2", companyId: second.id })
    const { status, body } = await api.get("/api/v1/companies")
    expect(status).toBe(200)
    expect(body.data).toHaveLength(2)
    expect(body.data[0]).toEqual({
      id: account.companyId,
      name: expect.any(String),
      description: "Construcții drumuri",
      fiscalCode: null,
      counties: [],
      active: true,
      watchlistCount: 1,
      createdAt: expect.stringMatching(/Z$/)
    })
    expect(body.data[1]).toMatchObject({ id: second.id, name: "Beta SRL", watchlistCount: 2 })
  })

  it("GET /api/v1/companies/:id gives the detail with its watchlists", async () => {
    await api.post("/api/v1/watchlists", { name: "A1" })
    const { status, body } = await api.get(`/api/v1/companies/${account.companyId}`)
    expect(status).toBe(200)
    expect(Object.keys(body.data).sort()).toEqual([
      "active",
      "counties",
      "createdAt",
      "description",
      "fiscalCode",
      "id",
      "inferredCounties",
      "name",
      "watchlists"
    ])
    expect(body.data.watchlists).toEqual([{ id: expect.any(String), name: "A1", active: true }])
  })

  it("PATCH /api/v1/companies/:id changes the description (re-scoring the company) and the name", async () => {
    await api.post("/api/v1/watchlists", { name: "A1" })
    await runRescores(server, account.companyId)
    const before = await rescoreJobs(server, account.companyId)
    const { status, body } = await api.patch(`/api/v1/companies/${account.companyId}`, {
      description: "Lucrări de drumuri și poduri"
    })
    expect(status).toBe(200)
    expect(body.data).toMatchObject({ id: account.companyId, description: "Lucrări de drumuri și poduri" })
    expect(body.data.watchlists).toHaveLength(1)
    expect(await rescoreJobs(server, account.companyId)).toBe(before + 1)
    // Same description again, or only the name: no new rescore job.
    await runRescores(server, account.companyId)
    await api.patch(`/api/v1/companies/${account.companyId}`, { description: "Lucrări de drumuri și poduri" })
    const renamed = await api.patch(`/api/v1/companies/${account.companyId}`, { name: "  Alfa SRL " })
    expect(renamed.body.data.name).toBe("Alfa SRL")
    expect(renamed.body.data.description).toBe("Lucrări de drumuri și poduri")
    expect(await rescoreJobs(server, account.companyId)).toBe(before + 1)
  })

  it("PATCH validation: 400 naming the field", async () => {
    for (const [body, path] of [
      [{ description: 5 }, "description"],
      [{ name: "" }, "name"],
      [{ description: "x".repeat(10_001) }, "description"]
    ] as const) {
      const response = await api.patch(`/api/v1/companies/${account.companyId}`, body)
      expect(response.status).toBe(400)
      expect(response.body.details[0].path).toBe(path)
    }
  })

  it("unknown ids 404, malformed ids 400", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000"
    expect((await api.get(`/api/v1/companies/${unknown}`)).status).toBe(404)
    expect((await api.patch(`/api/v1/companies/${unknown}`, { description: "x" })).status).toBe(404)
    expect((await api.get("/api/v1/companies/abc")).status).toBe(400)
    expect((await api.patch("/api/v1/companies/abc", { description: "x" })).status).toBe(400)
  })

  it("plans without the multi-client workspace get 403 PLAN_UPGRADE_REQUIRED on every companies endpoint", async () => {
    for (const plan of ["free", "starter", "activ"] as const) {
      const other = await seedAccount(server, plan)
      const otherApi = client(server, (await signIn(server, other)).accessToken)
      for (const response of [
        await otherApi.get("/api/v1/companies"),
        await otherApi.get(`/api/v1/companies/${other.companyId}`),
        await otherApi.patch(`/api/v1/companies/${other.companyId}`, { description: "new" })
      ]) {
        expect(response.status).toBe(403)
        expect(response.body).toMatchObject({ statusCode: 403, code: "PLAN_UPGRADE_REQUIRED" })
      }
      const rows = await query<{ description: string }>(server, "SELECT description FROM companies WHERE id = $1", [
        other.companyId
      ])
      expect(rows[0]!.description).toBe("Construcții drumuri")
    }
  })
})

describe("API-key settings (spec 5.3)", () => {
  let server: TestServer
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    server = await startTestServer()
  })
  // An account per test: key counts (3 active at most) must not carry over (tests run in any order).
  beforeEach(async () => {
    const account = await seedAccount(server, "consultant")
    api = client(server, (await signIn(server, account)).accessToken)
  })
  afterAll(() => server.close())

  it("create shows the full key once; the list shows it masked; a 4th active key is 422; revocation is immediate", async () => {
    const created = await api.post("/api/v1/settings/api-keys", { name: "CI" })
    expect(created.status).toBe(201)
    const key = created.body.data.key as string
    expect(key).toMatch(/^svc_[0-9a-f]{64}$/)
    expect(created.body.data).toMatchObject({
      name: "CI",
      active: true,
      revokedAt: null,
      maskedKey: `${key.slice(0, 12)}…`
    })
    const stored = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM api_keys WHERE key_hash = sha256(convert_to($1, 'UTF8'))",
      [key]
    )
    expect(stored[0]!.n).toBe(1)

    const unnamed = await api.post("/api/v1/settings/api-keys", {})
    expect(unnamed.status).toBe(201)
    expect(unnamed.body.data.name).toBe("")
    expect((await api.post("/api/v1/settings/api-keys", { name: "third" })).status).toBe(201)
    const fourth = await api.post("/api/v1/settings/api-keys", { name: "fourth" })
    expect(fourth.status).toBe(422)
    expect(fourth.body).toMatchObject({ statusCode: 422, code: "API_KEY_LIMIT_EXCEEDED" })

    const list = await api.get("/api/v1/settings/api-keys")
    expect(list.status).toBe(200)
    expect(list.body.data).toHaveLength(3)
    expect(list.text).not.toContain(key)
    expect(list.body.data[0]).toEqual({
      id: created.body.data.id,
      name: "CI",
      maskedKey: `${key.slice(0, 12)}…`,
      active: true,
      createdAt: created.body.data.createdAt,
      revokedAt: null,
      lastUsedAt: null
    })

    // The key works on the key API until revoked, then gets 401 API_KEY_REVOKED at once.
    const beforeUse = Date.now()
    const beforeRevocation = await client(server, key).get(
      "/api/v1/tenders?companyId=00000000-0000-4000-8000-000000000000"
    )
    expect(beforeRevocation.status).not.toBe(401)
    // The list says when it was last used (written in the background, so looked for a little while).
    let lastUsedAt: string | null = null
    for (let attempt = 0; attempt < 50 && lastUsedAt === null; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      const keys = (await api.get("/api/v1/settings/api-keys")).body.data
      lastUsedAt = keys.find((k: any) => k.id === created.body.data.id).lastUsedAt
    }
    expect(lastUsedAt).toMatch(/Z$/)
    expect(Date.parse(lastUsedAt!)).toBeGreaterThanOrEqual(beforeUse - 1_000)
    expect(Date.parse(lastUsedAt!)).toBeLessThanOrEqual(Date.now())
    const revoked = await api.delete(`/api/v1/settings/api-keys/${created.body.data.id}`)
    expect(revoked.status).toBe(200)
    expect(revoked.body.data).toMatchObject({ id: created.body.data.id, active: false })
    expect(revoked.body.data.revokedAt).toMatch(/Z$/)
    const afterRevocation = await client(server, key).get(
      "/api/v1/tenders?companyId=00000000-0000-4000-8000-000000000000"
    )
    expect(afterRevocation.status).toBe(401)
    expect(afterRevocation.body.code).toBe("API_KEY_REVOKED")

    // Revoking again is idempotent; a place is free again.
    expect((await api.delete(`/api/v1/settings/api-keys/${created.body.data.id}`)).status).toBe(200)
    expect((await api.post("/api/v1/settings/api-keys", { name: "replacement" })).status).toBe(201)
    const listed = (await api.get("/api/v1/settings/api-keys")).body.data
    expect(listed.find((k: any) => k.id === created.body.data.id)).toMatchObject({ active: false })
  })

  it("4 parallel creations leave exactly 3 active keys; the 4th is 422 API_KEY_LIMIT_EXCEEDED", async () => {
    const fresh = await seedAccount(server, "consultant")
    const freshApi = client(server, (await signIn(server, fresh)).accessToken)
    const responses = await Promise.all(
      [1, 2, 3, 4].map((n) => freshApi.post("/api/v1/settings/api-keys", { name: `parallel ${n}` }))
    )
    expect(responses.map((r) => r.status).sort()).toEqual([201, 201, 201, 422])
    expect(responses.find((r) => r.status === 422)!.body).toMatchObject({
      statusCode: 422,
      code: "API_KEY_LIMIT_EXCEEDED"
    })
    const rows = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL",
      [fresh.tenantId]
    )
    expect(rows[0]!.n).toBe(3)
    expect((await freshApi.get("/api/v1/settings/api-keys")).body.data).toHaveLength(3)
  })

  it("unknown key ids 404, malformed 400, bad name 400", async () => {
    expect((await api.delete("/api/v1/settings/api-keys/00000000-0000-4000-8000-000000000000")).status).toBe(404)
    expect((await api.delete("/api/v1/settings/api-keys/xyz")).status).toBe(400)
    const longName = await api.post("/api/v1/settings/api-keys", { name: "n".repeat(101) })
    expect(longName.status).toBe(400)
    expect(longName.body.details[0].path).toBe("name")
  })

  it("plans below Consultant get 403 PLAN_UPGRADE_REQUIRED on creation and no key is created", async () => {
    for (const plan of ["free", "starter", "activ"] as const) {
      const other = await seedAccount(server, plan)
      const otherApi = client(server, (await signIn(server, other)).accessToken)
      const response = await otherApi.post("/api/v1/settings/api-keys", { name: "x" })
      expect(response.status).toBe(403)
      expect(response.body.code).toBe("PLAN_UPGRADE_REQUIRED")
      // Listing and revoking work on every plan (keys made before a downgrade: planDowngrade.test).
      expect((await otherApi.get("/api/v1/settings/api-keys")).body).toEqual({ data: [] })
      expect((await otherApi.delete("/api/v1/settings/api-keys/00000000-0000-4000-8000-000000000000")).status).toBe(404)
      const rows = await query<{ n: number }>(server, "SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1", [
        other.tenantId
      ])
      expect(rows[0]!.n).toBe(0)
    }
  })

  it("an access token is required (401 ACCESS_TOKEN_MISSING)", async () => {
    const response = await client(server).get("/api/v1/settings/api-keys")
    expect(response.status).toBe(401)
    expect(response.body.code).toBe("ACCESS_TOKEN_MISSING")
  })
})
