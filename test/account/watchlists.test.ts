import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import {
  addAuthority,
  addCompany,
  client,
  query,
  rescoreJobs,
  runRescores,
  type SeededAccount,
  seedAccount,
  signIn
} from "./fixtures.js"

describe("watchlists (spec 2.7, 4.6)", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "consultant")
    api = client(server, (await signIn(server, account)).accessToken)
  })
  afterAll(() => server.close())

  const create = (body: unknown) => api.post("/api/v1/watchlists", body)

  it("POST creates a watchlist: 201, canonical CPV codes, defaults, the tenant's first company, a rescore job", async () => {
    const authorityId = await addAuthority(server)
    await runRescores(server, account.companyId)
    const before = await rescoreJobs(server, account.companyId)
    const { status, body } = await create({
      name: "  Drumuri judetene ",
      cpvCodes: ["45233140", "72000000-5", "45233140-2"],
      keywords: ["asfalt", " drum "],
      minValue: 1000,
      maxValue: 250000.5,
      authorityId
    })
    expect(status).toBe(201)
    expect(body.data).toMatchObject({
      name: "Drumuri judetene",
      cpvCodes: ["45233140-2", "72000000-5"],
      keywords: ["asfalt", "drum"],
      minValue: 1000,
      maxValue: 250000.5,
      authorityId,
      companyId: account.companyId,
      minScore: 50,
      active: true
    })
    expect(body.data.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Date(body.data.createdAt).toISOString()).toBe(body.data.createdAt)
    expect(await rescoreJobs(server, account.companyId)).toBe(before + 1)
  })

  it("only name is required; optional fields default to empty / null", async () => {
    const { status, body } = await create({ name: "Minimal" })
    expect(status).toBe(201)
    expect(body.data).toMatchObject({ cpvCodes: [], keywords: [], minValue: null, maxValue: null, authorityId: null })
  })

  it("GET lists the active watchlists of the account", async () => {
    // An account of its own, so the list is exactly what this test created (tests run in any order).
    const own = await seedAccount(server, "consultant")
    const ownApi = client(server, (await signIn(server, own)).accessToken)
    await ownApi.post("/api/v1/watchlists", { name: "Drumuri judetene" })
    await ownApi.post("/api/v1/watchlists", { name: "Minimal" })
    const removed = (await ownApi.post("/api/v1/watchlists", { name: "Removed" })).body.data
    await ownApi.delete(`/api/v1/watchlists/${removed.id}`)
    const { status, body } = await ownApi.get("/api/v1/watchlists")
    expect(status).toBe(200)
    expect(body.data.map((w: any) => w.name)).toEqual(["Drumuri judetene", "Minimal"])
  })

  it("companyId and minScore extensions: another company of the tenant, threshold 75", async () => {
    const second = await addCompany(server, account.tenantId)
    await runRescores(server, second.id) // its creation queued one (issue 11)
    const queued = await rescoreJobs(server, second.id)
    const { status, body } = await create({ name: "IT", companyId: second.id, minScore: 75 })
    expect(status).toBe(201)
    expect(body.data.companyId).toBe(second.id)
    expect(body.data.minScore).toBe(75)
    expect(await rescoreJobs(server, second.id)).toBe(queued + 1)
  })

  const expect400 = async (body: unknown, path: string) => {
    const response = await create(body)
    expect(response.status).toBe(400)
    expect(response.body.statusCode).toBe(400)
    expect(response.body.code).toBe("VALIDATION_ERROR")
    expect(typeof response.body.message).toBe("string")
    expect(response.body.details.map((d: any) => d.path)).toContain(path)
  }

  it("validation: 400 with the uniform body naming the field", async () => {
    await expect400({}, "name")
    await expect400({ name: "" }, "name")
    await expect400({ name: "   " }, "name")
    await expect400({ name: 5 }, "name")
    await expect400({ name: "x", cpvCodes: ["4523314"] }, "cpvCodes.0")
    await expect400({ name: "x", cpvCodes: ["45233140-22"] }, "cpvCodes.0")
    await expect400({ name: "x", cpvCodes: ["abc"] }, "cpvCodes.0")
    await expect400({ name: "x", cpvCodes: "45233140" }, "cpvCodes")
    await expect400({ name: "x", keywords: [""] }, "keywords.0")
    await expect400({ name: "x", minValue: -1 }, "minValue")
    await expect400({ name: "x", maxValue: "100" }, "maxValue")
    await expect400({ name: "x", authorityId: "not-a-uuid" }, "authorityId")
    await expect400({ name: "x", companyId: "nope" }, "companyId")
    await expect400({ name: "x", minScore: 101 }, "minScore")
    await expect400({ name: "x", minScore: 2.5 }, "minScore")
  })

  it("validation against the data: unknown CPV code, wrong check digit, minValue > maxValue, unknown authority, foreign company", async () => {
    await expect400({ name: "x", cpvCodes: ["45233140", "99999999"] }, "cpvCodes.1")
    const wrongDigit = await create({ name: "x", cpvCodes: ["45233140-3"] })
    expect(wrongDigit.status).toBe(400)
    expect(wrongDigit.body.details[0]).toEqual({
      path: "cpvCodes.0",
      message: "wrong check digit in 45233140-3; the code is 45233140-2"
    })
    await expect400({ name: "x", minValue: 10, maxValue: 5 }, "minValue")
    await expect400({ name: "x", authorityId: "00000000-0000-4000-8000-000000000000" }, "authorityId")
    const other = await seedAccount(server, "consultant")
    await expect400({ name: "x", companyId: other.companyId }, "companyId")
    // Nothing was written by any refused request.
    const rows = await query<{ n: number }>(server, "SELECT count(*)::int AS n FROM watchlists WHERE name = 'x'")
    expect(rows[0]!.n).toBe(0)
  })

  it("a field the endpoint does not take is a 400 naming it, POST and PATCH alike; nothing written, no rescore", async () => {
    await runRescores(server, account.companyId)
    const jobsBefore = await rescoreJobs(server, account.companyId)
    const typo = await create({ name: "Typo", cpvcodes: ["45233140-2"] })
    expect(typo.status).toBe(400)
    expect(typo.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
    expect(typo.body.details).toEqual([{ path: "cpvcodes", message: expect.stringContaining("unexpected") }])
    const created = await create({ name: "Strict" })
    expect(created.status).toBe(201)
    const afterCreate = await rescoreJobs(server, account.companyId)
    await runRescores(server, account.companyId)
    // `active` is not a create field (spec 4.6: PATCH takes a subset of them): refused, not ignored.
    const patched = await api.patch(`/api/v1/watchlists/${created.body.data.id}`, { active: false, name: "Renamed" })
    expect(patched.status).toBe(400)
    expect(patched.body.details.map((d: any) => d.path)).toEqual(["active"])
    const [row] = await query<{ name: string; active: boolean }>(
      server,
      "SELECT name, active FROM watchlists WHERE id = $1",
      [created.body.data.id]
    )
    expect(row).toEqual({ name: "Strict", active: true })
    expect(await rescoreJobs(server, account.companyId)).toBe(afterCreate)
    expect(afterCreate).toBe(jobsBefore + 1)
    const rows = await query<{ n: number }>(server, "SELECT count(*)::int AS n FROM watchlists WHERE name = 'Typo'")
    expect(rows[0]!.n).toBe(0)
  })

  it("an account without any company cannot create a watchlist (400 on companyId)", async () => {
    const lonely = await seedAccount(server, "starter")
    await query(server, "DELETE FROM companies WHERE tenant_id = $1", [lonely.tenantId])
    const lonelyApi = client(server, (await signIn(server, lonely)).accessToken)
    const response = await lonelyApi.post("/api/v1/watchlists", { name: "Nowhere" })
    expect(response.status).toBe(400)
    expect(response.body.details).toEqual([{ path: "companyId", message: "the account has no active company" }])
  })

  it("without companyId, a watchlist goes to the first company still active (a deactivated one raises no alert)", async () => {
    const owner = await seedAccount(server, "consultant")
    const second = await addCompany(server, owner.tenantId)
    const ownerApi = client(server, (await signIn(server, owner)).accessToken)
    expect((await ownerApi.delete(`/api/v1/companies/${owner.companyId}`)).status).toBe(200)
    const created = await ownerApi.post("/api/v1/watchlists", { name: "After the first company" })
    expect(created.status).toBe(201)
    expect(created.body.data.companyId).toBe(second.id)
    // With no active company left: 400, nothing written.
    expect((await ownerApi.delete(`/api/v1/companies/${second.id}`)).status).toBe(200)
    const refused = await ownerApi.post("/api/v1/watchlists", { name: "Nowhere active" })
    expect(refused.status).toBe(400)
    expect(refused.body.details).toEqual([{ path: "companyId", message: "the account has no active company" }])
    const rows = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM watchlists WHERE name = 'Nowhere active'"
    )
    expect(rows[0]!.n).toBe(0)
  })

  it("PATCH is partial: unsent fields stay, null clears min/max/authority, a rescore job is queued", async () => {
    const authorityId = await addAuthority(server)
    const created = (
      await create({
        name: "Patch me",
        cpvCodes: ["03000000"],
        keywords: ["grau"],
        minValue: 10,
        maxValue: 20,
        authorityId
      })
    ).body.data
    await runRescores(server, account.companyId)
    const jobsBefore = await rescoreJobs(server, account.companyId)
    const renamed = await api.patch(`/api/v1/watchlists/${created.id}`, { name: "Patched", minScore: 60 })
    expect(renamed.status).toBe(200)
    expect(renamed.body.data).toMatchObject({
      id: created.id,
      name: "Patched",
      cpvCodes: ["03000000-1"],
      keywords: ["grau"],
      minValue: 10,
      maxValue: 20,
      authorityId,
      minScore: 60,
      createdAt: created.createdAt
    })
    await runRescores(server, account.companyId)
    const cleared = await api.patch(`/api/v1/watchlists/${created.id}`, {
      minValue: null,
      maxValue: null,
      authorityId: null,
      cpvCodes: ["30213100-6"]
    })
    expect(cleared.status).toBe(200)
    expect(cleared.body.data).toMatchObject({
      name: "Patched",
      minValue: null,
      maxValue: null,
      authorityId: null,
      cpvCodes: ["30213100-6"]
    })
    expect(await rescoreJobs(server, account.companyId)).toBe(jobsBefore + 2)
    const empty = await api.patch(`/api/v1/watchlists/${created.id}`, {})
    expect(empty.status).toBe(200)
    expect(empty.body.data.name).toBe("Patched")
  })

  it("PATCH checks minValue <= maxValue against the stored values too, and validates like create", async () => {
    const created = (await create({ name: "Range", minValue: 100, maxValue: 200 })).body.data
    const tooHigh = await api.patch(`/api/v1/watchlists/${created.id}`, { minValue: 500 })
    expect(tooHigh.status).toBe(400)
    expect(tooHigh.body.details[0].path).toBe("minValue")
    const badName = await api.patch(`/api/v1/watchlists/${created.id}`, { name: "" })
    expect(badName.status).toBe(400)
    expect(badName.body.details[0].path).toBe("name")
    const nullName = await api.patch(`/api/v1/watchlists/${created.id}`, { name: null })
    expect(nullName.status).toBe(400)
    const badCpv = await api.patch(`/api/v1/watchlists/${created.id}`, { cpvCodes: ["45233140-9"] })
    expect(badCpv.status).toBe(400)
    const stored = await query<{ min_value: string }>(server, "SELECT min_value FROM watchlists WHERE id = $1", [
      created.id
    ])
    expect(Number(stored[0]!.min_value)).toBe(100)
  })

  it("DELETE soft-deletes: 204, gone from the list, row kept with active false, later PATCH/DELETE 404", async () => {
    const created = (await create({ name: "Short-lived" })).body.data
    await runRescores(server, account.companyId)
    const jobsBefore = await rescoreJobs(server, account.companyId)
    const removed = await api.delete(`/api/v1/watchlists/${created.id}`)
    expect(removed.status).toBe(204)
    expect(removed.text).toBe("")
    expect((await api.get("/api/v1/watchlists")).body.data.map((w: any) => w.id)).not.toContain(created.id)
    const rows = await query<{ active: boolean; deleted: boolean }>(
      server,
      "SELECT active, deleted_at IS NOT NULL AS deleted FROM watchlists WHERE id = $1",
      [created.id]
    )
    expect(rows[0]).toEqual({ active: false, deleted: true })
    expect(await rescoreJobs(server, account.companyId)).toBe(jobsBefore + 1)
    expect((await api.delete(`/api/v1/watchlists/${created.id}`)).status).toBe(404)
    expect((await api.patch(`/api/v1/watchlists/${created.id}`, { name: "again" })).status).toBe(404)
  })

  it("unknown ids are 404 and malformed ids 400", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000"
    const notFound = await api.patch(`/api/v1/watchlists/${unknown}`, { name: "x" })
    expect(notFound.status).toBe(404)
    expect(notFound.body).toEqual({ statusCode: 404, code: "NOT_FOUND", message: "No such watchlist" })
    expect((await api.delete(`/api/v1/watchlists/${unknown}`)).status).toBe(404)
    const malformed = await api.patch("/api/v1/watchlists/123", { name: "x" })
    expect(malformed.status).toBe(400)
    expect(malformed.body.details[0].path).toBe("id")
    expect((await api.delete("/api/v1/watchlists/123")).status).toBe(400)
  })

  it("every endpoint needs an access token", async () => {
    const anonymous = client(server)
    for (const response of [
      await anonymous.get("/api/v1/watchlists"),
      await anonymous.post("/api/v1/watchlists", { name: "x" }),
      await anonymous.patch("/api/v1/watchlists/00000000-0000-4000-8000-000000000000", { name: "x" }),
      await anonymous.delete("/api/v1/watchlists/00000000-0000-4000-8000-000000000000")
    ]) {
      expect(response.status).toBe(401)
      expect(response.body.code).toBe("ACCESS_TOKEN_MISSING")
    }
  })
})

describe("watchlist limits per plan", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  const fill = async (plan: "free" | "starter" | "activ", limit: number) => {
    const account = await seedAccount(server, plan)
    const api = client(server, (await signIn(server, account)).accessToken)
    for (let i = 0; i < limit; i++) expect((await api.post("/api/v1/watchlists", { name: `W${i}` })).status).toBe(201)
    return { account, api }
  }

  it("Free allows 1, Starter 5, Activ 20 active watchlists; the next is 403 WATCHLIST_LIMIT_REACHED", async () => {
    for (const [plan, limit] of [
      ["free", 1],
      ["starter", 5],
      ["activ", 20]
    ] as const) {
      const { api } = await fill(plan, limit)
      const refused = await api.post("/api/v1/watchlists", { name: "one too many" })
      expect(refused.status).toBe(403)
      expect(refused.body).toMatchObject({ statusCode: 403, code: "WATCHLIST_LIMIT_REACHED" })
    }
  })

  it("a deleted watchlist frees its place", async () => {
    const { api } = await fill("free", 1)
    const [only] = (await api.get("/api/v1/watchlists")).body.data
    expect((await api.delete(`/api/v1/watchlists/${only.id}`)).status).toBe(204)
    expect((await api.post("/api/v1/watchlists", { name: "replacement" })).status).toBe(201)
  })

  it("Consultant allows 100", async () => {
    const account = await seedAccount(server, "consultant")
    await query(
      server,
      "INSERT INTO watchlists (tenant_id, company_id, name) SELECT $1, $2, 'bulk ' || g FROM generate_series(1, 99) g",
      [account.tenantId, account.companyId]
    )
    const api = client(server, (await signIn(server, account)).accessToken)
    expect((await api.post("/api/v1/watchlists", { name: "100th" })).status).toBe(201)
    expect((await api.post("/api/v1/watchlists", { name: "101st" })).status).toBe(403)
  })

  it("concurrent creations at the limit: exactly the limit succeeds", async () => {
    const account = await seedAccount(server, "starter")
    const api = client(server, (await signIn(server, account)).accessToken)
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api.post("/api/v1/watchlists", { name: `Race ${i}` }))
    )
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(5)
    expect(statuses.filter((s) => s === 403)).toHaveLength(7)
    const rows = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM watchlists WHERE tenant_id = $1 AND deleted_at IS NULL",
      [account.tenantId]
    )
    expect(rows[0]!.n).toBe(5)
  })
})
