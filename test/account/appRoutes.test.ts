import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MODEL_VERSION, MODEL_WEIGHTS } from "../../src/domain/scoring/Model.js"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { addScoredTenders, ledgerState } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import {
  client,
  PASSWORD,
  query,
  rescoreJobs,
  runRescores,
  type SeededAccount,
  seedAccount,
  signIn
} from "./fixtures.js"

/**
 * The account routes the browser app needs beyond spec 4.5-4.8: company create/deactivate, a
 * company's scored tenders without credits, CPV search, the credits summary, webhook management
 * from the dashboard, and `Cache-Control: no-store` on answers that carry tokens, keys or secrets.
 */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const session = async (plan: SeededAccount["plan"] = "consultant") => {
  const account = await seedAccount(server, plan)
  return { account, api: client(server, (await signIn(server, account)).accessToken) }
}

describe("companies: create, edit, deactivate", () => {
  it("POST /api/v1/companies adds a company (fiscal code stored as digits) and queues its first scoring", async () => {
    const { account, api } = await session()
    const created = await api.post("/api/v1/companies", {
      name: "  Gamma Construct SRL ",
      description: "Asfaltare drumuri județene",
      fiscalCode: "RO 22.505.268"
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toEqual({
      id: expect.any(String),
      name: "Gamma Construct SRL",
      description: "Asfaltare drumuri județene",
      fiscalCode: "22505268",
      counties: [],
      inferredCounties: [],
      active: true,
      watchlists: [],
      createdAt: expect.stringMatching(/Z$/)
    })
    expect(await rescoreJobs(server, created.body.data.id)).toBe(1)
    const list = await api.get("/api/v1/companies")
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([account.companyId, created.body.data.id])
    // Only the name is required.
    const bare = await api.post("/api/v1/companies", { name: "Delta SRL" })
    expect(bare.status).toBe(201)
    expect(bare.body.data).toMatchObject({ description: "", fiscalCode: null, counties: [] })
    // The counties it works in (extension) in the same request, canonical; a bad one is a 400, nothing stored.
    const placed = await api.post("/api/v1/companies", { name: "Epsilon SRL", counties: ["gorj", "Valcea"] })
    expect(placed.status).toBe(201)
    expect(placed.body.data.counties).toEqual(["Gorj", "Vâlcea"])
    const [stored] = await query<{ counties: Array<string> }>(server, "SELECT counties FROM companies WHERE id = $1", [
      placed.body.data.id
    ])
    expect(stored!.counties).toEqual(["Gorj", "Vâlcea"])
    const unknown = await api.post("/api/v1/companies", { name: "Zeta SRL", counties: ["Atlantida"] })
    expect(unknown.status).toBe(400)
    expect(unknown.body.details.map((d: { path: string }) => d.path)).toContain("counties.0")
    const after = await api.get("/api/v1/companies")
    expect(after.body.data.map((c: { name: string }) => c.name)).not.toContain("Zeta SRL")
  })

  it("refuses a malformed fiscal code or name with a 400 naming the field, storing nothing", async () => {
    const { account, api } = await session()
    for (const [body, path] of [
      [{ name: "X", fiscalCode: "ABC123" }, "fiscalCode"],
      [{ name: "X", fiscalCode: "1" }, "fiscalCode"],
      [{ name: "X", fiscalCode: "12345678901" }, "fiscalCode"],
      [{ name: "X", fiscalCode: 22505268 }, "fiscalCode"],
      [{ name: "   " }, "name"],
      [{ description: "no name" }, "name"],
      [{ name: "X", description: "d".repeat(10_001) }, "description"]
    ] as const) {
      const response = await api.post("/api/v1/companies", body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.code).toBe("VALIDATION_ERROR")
      expect(response.body.details.map((d: { path: string }) => d.path)).toContain(path)
    }
    const [row] = await query<{ n: number }>(server, "SELECT count(*)::int AS n FROM companies WHERE tenant_id = $1", [
      account.tenantId
    ])
    expect(row!.n).toBe(1)
  })

  it("PATCH sets or clears the fiscal code and the active flag; DELETE deactivates, idempotently", async () => {
    const { account, api } = await session()
    const path = `/api/v1/companies/${account.companyId}`
    await runRescores(server, account.companyId)
    const jobs = await rescoreJobs(server, account.companyId)
    const coded = await api.patch(path, { fiscalCode: "RO16445706" })
    expect(coded.status).toBe(200)
    expect(coded.body.data.fiscalCode).toBe("16445706")
    // A new fiscal code brings a new award history: rescored.
    expect(await rescoreJobs(server, account.companyId)).toBe(jobs + 1)
    expect((await api.patch(path, { fiscalCode: null })).body.data.fiscalCode).toBeNull()

    const deactivated = await api.delete(path)
    expect(deactivated.status).toBe(200)
    expect(deactivated.body.data).toMatchObject({ id: account.companyId, active: false })
    expect((await api.delete(path)).body.data.active).toBe(false)
    expect((await api.get("/api/v1/companies")).body.data[0].active).toBe(false)

    await runRescores(server, account.companyId)
    const before = await rescoreJobs(server, account.companyId)
    const reactivated = await api.patch(path, { active: true })
    expect(reactivated.body.data.active).toBe(true)
    expect(await rescoreJobs(server, account.companyId)).toBe(before + 1)
    expect((await api.patch(path, { active: "yes" })).status).toBe(400)
  })

  it("other plans get 403 PLAN_UPGRADE_REQUIRED; unknown ids 404", async () => {
    const { api } = await session("activ")
    const refused = await api.post("/api/v1/companies", { name: "X" })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe("PLAN_UPGRADE_REQUIRED")
    const { api: consultant } = await session()
    const unknown = await consultant.delete("/api/v1/companies/00000000-0000-4000-8000-000000000000")
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe("NOT_FOUND")
  })
})

describe("a company's scored tenders for the app (no credits)", () => {
  let account: SeededAccount
  let api: ReturnType<typeof client>
  let ids: Array<string>
  // Deadlines relative to now: the open/closed split reads the service's clock.
  const future = new Date(Date.now() + 20 * 86_400_000).toISOString()
  const past = new Date(Date.now() - 3 * 86_400_000).toISOString()

  beforeAll(async () => {
    ;({ account, api } = await session())
    ids = await addScoredTenders(server, account, [
      { title: "Asfaltare DJ 107", score: 91, publishDate: "2026-11-10T08:00:00Z", deadline: future, county: "Alba" },
      { title: "Pod peste Mureș", score: 75, publishDate: "2026-11-09T08:00:00Z", deadline: past },
      { title: "Canalizare", score: 75, publishDate: "2026-11-11T08:00:00Z", deadline: null, valueRon: null },
      { title: "Iluminat public", score: 42, publishDate: "2026-11-08T08:00:00Z", deadline: future },
      { title: "Mobilier", score: 12, publishDate: "2026-11-07T08:00:00Z", deadline: past }
    ])
  })

  const list = (query = "") => api.get(`/api/v1/app/companies/${account.companyId}/tenders${query}`)

  it("lists best first with the fields the list shows", async () => {
    const { status, body } = await list()
    expect(status).toBe(200)
    expect(body.data.map((t: { title: string }) => t.title)).toEqual([
      "Asfaltare DJ 107",
      "Canalizare",
      "Pod peste Mureș",
      "Iluminat public",
      "Mobilier"
    ])
    expect(body.meta).toEqual({ total: 5, limit: 20, nextCursor: null, hasMore: false })
    expect(body.data[0]).toEqual({
      id: ids[0],
      title: "Asfaltare DJ 107",
      score: 91,
      verdict: "GO",
      cpvCodes: ["45000000-7"],
      authority: expect.stringMatching(/^Primăria /),
      authorityCounty: "Alba",
      deadline: future,
      estimatedValueRon: 100000,
      estimatedValueEur: 20100.5,
      publishDate: "2026-11-10T08:00:00.000Z",
      sourceUrl: expect.stringMatching(/^https:\/\/e-licitatie\.ro\/notice\//)
    })
    expect(body.data[1]).toMatchObject({ deadline: null, estimatedValueRon: null, estimatedValueEur: null })
  })

  it("filters by minimum score and by open/closed", async () => {
    expect((await list("?minScore=70")).body.data.map((t: { score: number }) => t.score)).toEqual([91, 75, 75])
    const open = (await list("?status=open")).body
    expect(open.data.map((t: { title: string }) => t.title)).toEqual([
      "Asfaltare DJ 107",
      "Canalizare",
      "Iluminat public"
    ])
    expect(open.meta.total).toBe(3)
    const closed = (await list("?status=closed&minScore=50")).body
    expect(closed.data.map((t: { title: string }) => t.title)).toEqual(["Pod peste Mureș"])
  })

  it("pages with a cursor bound to the filters", async () => {
    const first = (await list("?limit=2")).body
    expect(first.meta).toMatchObject({ total: 5, limit: 2, hasMore: true })
    const second = (await list(`?limit=2&cursor=${first.meta.nextCursor}`)).body
    const third = (await list(`?limit=2&cursor=${second.meta.nextCursor}`)).body
    expect(third.meta).toMatchObject({ hasMore: false, nextCursor: null })
    const seen = [...first.data, ...second.data, ...third.data].map((t: { id: string }) => t.id)
    expect(new Set(seen).size).toBe(5)
    expect(seen).toEqual((await list()).body.data.map((t: { id: string }) => t.id))
    // Another filter with this cursor: 400 INVALID_CURSOR.
    const mismatch = await list(`?limit=2&status=open&cursor=${first.meta.nextCursor}`)
    expect(mismatch.status).toBe(400)
    expect(mismatch.body).toMatchObject({ code: "INVALID_CURSOR", details: [{ path: "cursor" }] })
  })

  it("gives one tender with its CPV labels and five factors", async () => {
    const { status, body } = await api.get(`/api/v1/app/companies/${account.companyId}/tenders/${ids[0]}`)
    expect(status).toBe(200)
    const weights = MODEL_WEIGHTS[MODEL_VERSION]!
    expect(body.data).toMatchObject({ id: ids[0], title: "Asfaltare DJ 107", score: 91, description: "" })
    expect(body.data.cpv).toEqual([{ code: "45000000-7", labelRo: expect.any(String), labelEn: "Construction work" }])
    expect(body.data.breakdown).toMatchObject({
      overallConfidence: 0.75,
      modelVersion: MODEL_VERSION,
      scoredAt: "2026-11-01T08:00:00.000Z"
    })
    const factors = body.data.breakdown.factors
    expect(Object.keys(factors).sort()).toEqual(["cpv", "historical", "keyword", "semantic", "valueFit"])
    expect(factors.semantic).toMatchObject({ score: 0.91, weight: weights.semantic })
    expect(factors.cpv).toMatchObject({ score: 0.8, weight: weights.cpv, cpvType: "primary" })
    expect(factors.valueFit.contribution).toBeCloseTo(weights.value_fit * 0.25 * 100, 2)
  })

  it("404 for a tender not scored for the company or an unknown company; 400 for bad input", async () => {
    const { account: other } = await session()
    const [foreign] = await addScoredTenders(server, other, [{ score: 90, publishDate: "2026-11-10T08:00:00Z" }])
    const notScored = await api.get(`/api/v1/app/companies/${account.companyId}/tenders/${foreign}`)
    expect(notScored.status).toBe(404)
    expect(notScored.body.code).toBe("NOT_FOUND")
    const unknown = await api.get("/api/v1/app/companies/00000000-0000-4000-8000-000000000000/tenders")
    expect(unknown.status).toBe(404)
    for (const q of ["?minScore=101", "?status=pending", "?limit=0", "?limit=abc", "?cursor=garbage"]) {
      const response = await list(q)
      expect(response.status, q).toBe(400)
      expect(response.body.statusCode, q).toBe(400)
    }
  })

  it("is open to every plan (its own company), and costs no credits", async () => {
    const before = await ledgerState(server, account.tenantId)
    for (let i = 0; i < 3; i++) {
      expect((await list()).status).toBe(200)
      expect((await api.get(`/api/v1/app/companies/${account.companyId}/tenders/${ids[0]}`)).status).toBe(200)
    }
    expect(await ledgerState(server, account.tenantId)).toEqual(before)
    const starter = await session("starter")
    const [own] = await addScoredTenders(server, starter.account, [{ score: 55, publishDate: "2026-11-10T08:00:00Z" }])
    const answer = await starter.api.get(`/api/v1/app/companies/${starter.account.companyId}/tenders`)
    expect(answer.status).toBe(200)
    expect(answer.body.data.map((t: { id: string }) => t.id)).toEqual([own])
  })
})

describe("CPV search", () => {
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    ;({ api } = await session("free"))
  })

  const search = (q: string, extra = "") => api.get(`/api/v1/cpv?q=${encodeURIComponent(q)}${extra}`)

  it("finds codes by Romanian words, diacritics and case ignored", async () => {
    const { status, body } = await search("asfalt")
    expect(status).toBe(200)
    expect(body.data.length).toBeGreaterThan(0)
    for (const entry of body.data) expect(`${entry.labelRo} ${entry.labelEn}`.toLowerCase()).toMatch(/asfalt/)
    expect(body.data[0]).toEqual({
      code: expect.stringMatching(/^\d{8}-\d$/),
      labelRo: expect.any(String),
      labelEn: expect.any(String),
      level: expect.stringMatching(/^(division|group|class|category|subcategory)$/)
    })
    const withDiacritics = (await search("LUCRĂRI de construcţii")).body.data
    const without = (await search("lucrari de constructii")).body.data
    expect(withDiacritics.length).toBeGreaterThan(0)
    expect(withDiacritics).toEqual(without)
  })

  it("finds codes by English words and by the code's first digits", async () => {
    const english = (await search("asphalt")).body.data
    expect(english.length).toBeGreaterThan(0)
    for (const entry of english) expect(entry.labelEn.toLowerCase()).toContain("asphalt")
    const byCode = (await search("4523", "&limit=50")).body.data
    expect(byCode.length).toBeGreaterThan(1)
    for (const entry of byCode) expect(entry.code.startsWith("4523")).toBe(true)
    // Broader codes first.
    expect(byCode[0].code).toBe("45230000-8")
    expect((await search("45233120-6")).body.data.map((e: { code: string }) => e.code)).toEqual(["45233120-6"])
  })

  it("limits the answer and refuses a missing or empty query, or a bad limit", async () => {
    expect((await search("servicii", "&limit=3")).body.data).toHaveLength(3)
    expect((await search("servicii")).body.data).toHaveLength(20)
    expect((await search("zzzqqq")).body.data).toEqual([])
    expect((await search("%_\\")).status).toBe(200)
    for (const q of ["", "?q=", "?q=%20%20", "?q=x&limit=0", "?q=x&limit=51", `?q=${"x".repeat(101)}`]) {
      const response = await api.get(`/api/v1/cpv${q}`)
      expect(response.status, q).toBe(400)
      expect(response.body.code, q).toBe("VALIDATION_ERROR")
    }
    expect((await request(`${server.baseUrl}/api/v1/cpv?q=asfalt`)).status).toBe(401)
  })
})

describe("credits this month", () => {
  it("shows the balance, the period and the daily use charged by the key API", async () => {
    const { account, api } = await session()
    await addScoredTenders(
      server,
      account,
      [1, 2, 3].map((i) => ({ score: 60 + i, publishDate: `2026-11-0${i}T08:00:00Z` }))
    )
    const { key } = await server.run(
      Effect.flatMap(ApiKeysRepo, (keys) => keys.create({ tenantId: account.tenantId, name: "k" })).pipe(Effect.orDie)
    )
    const paid = await client(server, key).get(`/api/v1/tenders?companyId=${account.companyId}`)
    expect(paid.status).toBe(200)
    const { status, body } = await api.get("/api/v1/settings/credits")
    expect(status).toBe(200)
    expect(body.data).toMatchObject({ plan: "consultant", granted: 1500, remaining: 1497, used: 3 })
    expect(body.data.periodStart).toMatch(/^\d{4}-\d{2}-01$/)
    expect(body.data.periodEndsAt).toMatch(/^\d{4}-\d{2}-01T00:00:00\+0[23]:00$/)
    const days = body.data.daily as Array<{ date: string; used: number }>
    expect(days[0]!.date).toBe(body.data.periodStart)
    expect(days.reduce((sum, day) => sum + day.used, 0)).toBe(3)
    expect(days[days.length - 1]!.used).toBe(3)
    // Reading it charged nothing.
    expect((await api.get("/api/v1/settings/credits")).body.data.remaining).toBe(1497)
  })

  it("is for the Consultant plan only", async () => {
    const { api } = await session("starter")
    const response = await api.get("/api/v1/settings/credits")
    expect(response.status).toBe(403)
    expect(response.body.code).toBe("PLAN_UPGRADE_REQUIRED")
  })
})

describe("webhooks from the dashboard", () => {
  const body = { url: "https://hooks.example.com/app", secret: "s".repeat(40), events: ["tender.matched"] }

  it("registers (no-store, secret never returned), lists and deletes", async () => {
    const { api } = await session()
    const created = await api.post("/api/v1/settings/webhooks", body)
    expect(created.status).toBe(201)
    expect(created.headers.get("cache-control")).toBe("no-store")
    expect(created.text).not.toContain(body.secret)
    expect(created.body.data).toMatchObject({ url: body.url, events: ["tender.matched"], active: true, deliveries: [] })
    const listed = await api.get("/api/v1/settings/webhooks")
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([created.body.data.id])
    const deleted = await api.delete(`/api/v1/settings/webhooks/${created.body.data.id}`)
    expect(deleted.status).toBe(200)
    expect(deleted.body.data).toMatchObject({ id: created.body.data.id, active: false })
    expect(deleted.body.data.deletedAt).toMatch(/Z$/)
    expect((await api.delete(`/api/v1/settings/webhooks/${created.body.data.id}`)).status).toBe(404)
    expect((await api.get("/api/v1/settings/webhooks")).body.data).toEqual([])
  })

  it("validates as the key API does; another account's webhook is 404; a sixth is 422", async () => {
    const { api } = await session()
    const bad = await api.post("/api/v1/settings/webhooks", { ...body, url: "http://hooks.example.com/" })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("VALIDATION_ERROR")
    const short = await api.post("/api/v1/settings/webhooks", { ...body, secret: "short" })
    expect(short.status).toBe(400)
    const ids: Array<string> = []
    for (let i = 0; i < 5; i++) ids.push((await api.post("/api/v1/settings/webhooks", body)).body.data.id)
    const sixth = await api.post("/api/v1/settings/webhooks", body)
    expect(sixth.status).toBe(422)
    expect(sixth.body.code).toBe("WEBHOOK_LIMIT_EXCEEDED")
    const { api: intruder } = await session()
    expect((await intruder.delete(`/api/v1/settings/webhooks/${ids[0]}`)).status).toBe(404)
    expect((await api.get("/api/v1/settings/webhooks")).body.data).toHaveLength(5)
  })
})

describe("Cache-Control: no-store on answers carrying tokens or keys", () => {
  it("login, refresh and API-key creation; and every authenticated read", async () => {
    const { account, api } = await session()
    const login = await request(`${server.baseUrl}/api/v1/auth/login`, {
      method: "POST",
      body: { email: account.email, password: PASSWORD }
    })
    expect(login.status).toBe(200)
    expect(login.headers.get("cache-control")).toBe("no-store")
    const refresh = await request(`${server.baseUrl}/api/v1/auth/refresh`, {
      method: "POST",
      body: { refreshToken: login.body.data.refreshToken }
    })
    expect(refresh.status).toBe(200)
    expect(refresh.headers.get("cache-control")).toBe("no-store")
    const key = await api.post("/api/v1/settings/api-keys", { name: "k" })
    expect(key.status).toBe(201)
    expect(key.headers.get("cache-control")).toBe("no-store")
    // An ordinary read with an access token is the account's own data: not stored either.
    expect((await api.get("/api/v1/companies")).headers.get("cache-control")).toBe("no-store")
    expect((await request(`${server.baseUrl}/health`)).headers.get("cache-control")).toBeNull()
  })

  it("webhook registration on the key API", async () => {
    const { api } = await session()
    const { key } = (await api.post("/api/v1/settings/api-keys", { name: "k" })).body.data
    const created = await client(server, key).post("/api/v1/webhooks", {
      url: "https://hooks.example.com/key",
      secret: "k".repeat(32),
      events: ["tender.matched"]
    })
    expect(created.status).toBe(201)
    expect(created.headers.get("cache-control")).toBe("no-store")
  })
})
