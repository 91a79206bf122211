import { randomBytes, randomUUID } from "node:crypto"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SecretBox, SecretBoxLive } from "../../src/infra/webhooks/SecretBox.js"
import { query } from "../account/fixtures.js"
import { request, type TestResponse } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addScoredTenders, api, createAccount } from "./fixtures.js"
import { addDelivery } from "./webhookFixtures.js"

/** Spec 2.6 / 4.4: webhook registration over the key API, on a real server and database. */

const SECRET = "s3cret-of-the-receiver-0123456789abcdef"
const URL_A = "https://hooks.example.com/tss"
const valid = (overrides: Record<string, unknown> = {}) => ({
  url: URL_A,
  secret: SECRET,
  events: ["tender.matched"],
  ...overrides
})

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe("webhook registration (key API)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 1_000_000, exportPerHour: 1_000 } })
  })
  afterAll(() => server.close())

  const call = (account: Account, method: string, path: string, body?: unknown): Promise<TestResponse> =>
    request(api(server, path), { method, token: account.key, ...(body === undefined ? {} : { body }) })
  const create = (account: Account, body: unknown = valid()) => call(account, "POST", "/api/v1/webhooks", body)
  const list = (account: Account) => call(account, "GET", "/api/v1/webhooks")
  const remove = (account: Account, id: string) => call(account, "DELETE", `/api/v1/webhooks/${id}`)
  const activeCount = async (tenantId: string) =>
    (
      await query<{ n: number }>(server, "SELECT count(*)::int AS n FROM webhooks WHERE tenant_id = $1 AND active", [
        tenantId
      ])
    )[0]!.n

  it("webhook operations cost nothing: a tenant with 0 credits creates, lists and deletes (spec 8.2), never a 402", async () => {
    const account = await createAccount(server, { credits: 0 })
    const created = await create(account)
    expect(created.status).toBe(201)
    const listed = await list(account)
    expect(listed.status).toBe(200)
    expect(listed.body.data).toHaveLength(1)
    const removed = await remove(account, created.body.webhook_id)
    expect(removed.status).toBe(200)
    for (const res of [created, listed, removed]) {
      expect(res.headers.get("x-api-credits-cost")).toBe("0")
      expect(res.headers.get("x-api-credits-remaining")).toBe("0")
    }
  })

  it("POST → 201 {webhook_id, url, events, created_at}, free of charge, the secret nowhere in the answer", async () => {
    const account = await createAccount(server, { credits: 100 })
    const res = await create(account)
    expect(res.status).toBe(201)
    expect(Object.keys(res.body).sort()).toEqual(["created_at", "events", "url", "webhook_id"])
    expect(res.body).toEqual({
      webhook_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: URL_A,
      events: ["tender.matched"],
      created_at: expect.stringMatching(ISO_MS)
    })
    expect(Math.abs(Date.parse(res.body.created_at) - Date.now())).toBeLessThan(60_000)
    expect(res.text).not.toContain(SECRET)
    expect(res.headers.get("x-api-credits-cost")).toBe("0")
    expect(res.headers.get("x-api-credits-remaining")).toBe("100")

    const listed = await list(account)
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual({
      data: [
        {
          webhook_id: res.body.webhook_id,
          url: URL_A,
          events: ["tender.matched"],
          active: true,
          created_at: res.body.created_at
        }
      ]
    })
    expect(listed.text).not.toContain(SECRET)
    expect(listed.headers.get("x-api-credits-cost")).toBe("0")
    expect(listed.headers.get("x-api-credits-remaining")).toBe("100")
  })

  it("the secret is sealed at rest: the raw column holds neither it nor its hex or base64, and opens to it", async () => {
    const account = await createAccount(server)
    const secret = `${randomBytes(24).toString("hex")}-unique`
    const res = await create(account, valid({ secret }))
    expect(res.status).toBe(201)
    const [row] = await query<{ raw: Buffer; text: string }>(
      server,
      "SELECT secret_ciphertext AS raw, encode(secret_ciphertext, 'escape') AS text FROM webhooks WHERE id = $1",
      [res.body.webhook_id]
    )
    const raw = row!.raw
    const forms = [
      Buffer.from(secret, "utf8"),
      Buffer.from(Buffer.from(secret).toString("hex")),
      Buffer.from(Buffer.from(secret).toString("base64")),
      Buffer.from(secret.slice(0, 16))
    ]
    for (const form of forms) expect(raw.includes(form)).toBe(false)
    expect(row!.text).not.toContain(secret.slice(0, 16))
    expect(raw.length).toBe(12 + 16 + Buffer.byteLength(secret))
    // Sealed under this deployment's MASTER_KEY: the delivery worker can open it.
    const opened = await server.run(
      Effect.flatMap(SecretBox, (box) => box.open(raw)).pipe(Effect.provide(SecretBoxLive))
    )
    expect(Redacted.value(opened)).toBe(secret)
  })

  it("refuses invalid bodies with 400 VALIDATION_ERROR naming the field, and stores nothing", async () => {
    const account = await createAccount(server)
    const cases: ReadonlyArray<readonly [string, unknown, string]> = [
      ["url http://", valid({ url: "http://hooks.example.com/x" }), "url"],
      ["url relative", valid({ url: "/hooks" }), "url"],
      ["url not a URL", valid({ url: "not a url" }), "url"],
      ["url ftp", valid({ url: "ftp://hooks.example.com" }), "url"],
      ["url without host", valid({ url: "https://" }), "url"],
      ["url with credentials", valid({ url: "https://user:pw@hooks.example.com/" }), "url"],
      ["url with spaces", valid({ url: " https://hooks.example.com/" }), "url"],
      ["url 2049 characters", valid({ url: `https://h.example.com/${"a".repeat(2049 - 22)}` }), "url"],
      ["url missing", { secret: SECRET, events: ["tender.matched"] }, "url"],
      ["url a number", valid({ url: 42 }), "url"],
      ["secret 31 characters", valid({ secret: "x".repeat(31) }), "secret"],
      ["secret 16 emoji (32 UTF-16 units)", valid({ secret: "\u{1f600}".repeat(16) }), "secret"],
      ["secret 1025 characters", valid({ secret: "x".repeat(1025) }), "secret"],
      ["secret with a lone surrogate", valid({ secret: `${"x".repeat(40)}\ud800` }), "secret"],
      ["secret of 32 NUL characters", valid({ secret: "\u0000".repeat(32) }), "secret"],
      ["secret with a pasted newline", valid({ secret: `${"x".repeat(40)}\n` }), "secret"],
      ["secret with a tab", valid({ secret: `${"x".repeat(20)}\t${"x".repeat(20)}` }), "secret"],
      ["secret missing", { url: URL_A, events: ["tender.matched"] }, "secret"],
      ["secret null", valid({ secret: null }), "secret"],
      ["events empty", valid({ events: [] }), "events"],
      ["events unknown", valid({ events: ["tender.created"] }), "events.0"],
      ["events with a duplicate", valid({ events: ["tender.matched", "tender.matched"] }), "events"],
      ["events a string", valid({ events: "tender.matched" }), "events"],
      ["events missing", { url: URL_A, secret: SECRET }, "events"],
      ["a field the endpoint does not take", valid({ active: true }), "active"],
      ["a misspelt field", { url: URL_A, secret: SECRET, event: ["tender.matched"] }, "event"]
    ]
    const failures: Array<string> = []
    for (const [label, body, path] of cases) {
      const res = await create(account, body)
      const paths = (res.body?.details ?? []).map((d: { path: string }) => d.path)
      if (res.status !== 400 || res.body.code !== "VALIDATION_ERROR" || !paths.includes(path)) {
        failures.push(`${label} → ${res.status} ${res.text.slice(0, 200)}`)
      }
      if (res.headers.get("x-api-credits-cost") !== "0") failures.push(`${label}: no cost header`)
    }
    expect(failures).toEqual([])
    expect(await activeCount(account.tenantId)).toBe(0)
    // A refused secret is not echoed back in the error either.
    const shortSecret = "short-but-private-Q7xZ"
    const refused = await create(account, valid({ secret: shortSecret }))
    expect(refused.status).toBe(400)
    expect(refused.body.details).toEqual([{ path: "secret", message: "must be at least 32 characters" }])
    expect(refused.text).not.toContain(shortSecret)
  })

  it("accepts the boundaries: a 32-character and a 1024-character secret, a 2048-character URL", async () => {
    const account = await createAccount(server)
    const longUrl = `https://h.example.com/${"a".repeat(2048 - 22)}`
    expect(longUrl.length).toBe(2048)
    expect((await create(account, valid({ secret: "y".repeat(32) }))).status).toBe(201)
    expect((await create(account, valid({ secret: "y".repeat(1024) }))).status).toBe(201)
    const res = await create(account, valid({ url: longUrl }))
    expect(res.status).toBe(201)
    expect(res.body.url).toBe(longUrl)
  })

  it("a sixth active webhook is 422 WEBHOOK_LIMIT_EXCEEDED; after a deletion there is room again", async () => {
    const account = await createAccount(server)
    const ids: Array<string> = []
    for (let i = 0; i < 5; i++) {
      const res = await create(account, valid({ url: `https://hooks.example.com/${i}` }))
      expect(res.status).toBe(201)
      ids.push(res.body.webhook_id)
    }
    const sixth = await create(account)
    expect(sixth.status).toBe(422)
    expect(sixth.body).toEqual({ statusCode: 422, code: "WEBHOOK_LIMIT_EXCEEDED", message: expect.any(String) })
    expect(sixth.headers.get("x-api-credits-cost")).toBe("0")
    // Oldest first.
    expect((await list(account)).body.data.map((w: { webhook_id: string }) => w.webhook_id)).toEqual(ids)
    expect((await remove(account, ids[2]!)).status).toBe(200)
    expect((await create(account)).status).toBe(201)
    expect(await activeCount(account.tenantId)).toBe(5)
  })

  it("10 concurrent creations leave exactly 5 active webhooks (five 201, five 422)", async () => {
    const account = await createAccount(server)
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(account, valid({ url: `https://hooks.example.com/c${i}` })))
    )
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([201, 201, 201, 201, 201, 422, 422, 422, 422, 422])
    expect(await activeCount(account.tenantId)).toBe(5)
    expect((await list(account)).body.data).toHaveLength(5)
  })

  it("DELETE → 200 {webhook_id, active: false, deleted_at}; gone from the list; a second DELETE is 404", async () => {
    const account = await createAccount(server)
    const keep = (await create(account, valid({ url: "https://keep.example.com/" }))).body.webhook_id
    const id = (await create(account)).body.webhook_id
    const res = await remove(account, id)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ webhook_id: id, active: false, deleted_at: expect.stringMatching(ISO_MS) })
    expect(res.headers.get("x-api-credits-cost")).toBe("0")
    const [row] = await query<{ active: boolean; deleted_at: Date }>(
      server,
      "SELECT active, deleted_at FROM webhooks WHERE id = $1",
      [id]
    )
    expect(row!.active).toBe(false)
    expect(row!.deleted_at.toISOString()).toBe(res.body.deleted_at)
    expect((await list(account)).body.data.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([keep])

    const again = await remove(account, id)
    expect(again.status).toBe(404)
    expect(again.body.code).toBe("NOT_FOUND")
    // An uppercase id names the same webhook.
    expect((await remove(account, keep.toUpperCase())).status).toBe(200)
  })

  it("DELETE of an unknown id is 404, of a malformed id 400", async () => {
    const account = await createAccount(server)
    const unknown = await remove(account, randomUUID())
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ statusCode: 404, code: "NOT_FOUND", message: expect.any(String) })
    expect(unknown.headers.get("x-api-credits-cost")).toBe("0")
    const malformed = await remove(account, "not-a-uuid")
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe("VALIDATION_ERROR")
  })

  it("tenants are isolated: another tenant's webhook is absent from the list and 404 on DELETE, under concurrency", async () => {
    const a = await createAccount(server)
    const b = await createAccount(server)
    const [createdA, createdB] = await Promise.all([
      create(a, valid({ url: "https://a.example.com/" })),
      create(b, valid({ url: "https://b.example.com/" }))
    ])
    const idA = createdA.body.webhook_id
    const idB = createdB.body.webhook_id
    const rounds = await Promise.all(
      Array.from({ length: 5 }, () => Promise.all([list(a), list(b), remove(b, idA), remove(a, idB)]))
    )
    for (const [listA, listB, crossA, crossB] of rounds) {
      expect(listA.body.data.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([idA])
      expect(listB.body.data.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([idB])
      expect(crossA.status).toBe(404)
      expect(crossB.status).toBe(404)
    }
    expect(await activeCount(a.tenantId)).toBe(1)
    expect(await activeCount(b.tenantId)).toBe(1)
  })

  it("plans below Consultant get 403 PLAN_UPGRADE_REQUIRED on all three; no key is 401", async () => {
    const starter = await createAccount(server, { plan: "starter" })
    for (const res of [await create(starter), await list(starter), await remove(starter, randomUUID())]) {
      expect(res.status).toBe(403)
      expect(res.body.code).toBe("PLAN_UPGRADE_REQUIRED")
    }
    expect(await activeCount(starter.tenantId)).toBe(0)
    const anonymous = await request(api(server, "/api/v1/webhooks"))
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.code).toBe("API_KEY_MISSING")
  })

  it("DELETE ends the webhook's pending and delivering deliveries as webhook_deleted, in the same transaction", async () => {
    const account = await createAccount(server)
    const id = (await create(account)).body.webhook_id
    const other = (await create(account, valid({ url: "https://other.example.com/" }))).body.webhook_id
    const statuses = ["pending", "delivering", "succeeded", "failed"] as const
    const deliveries: Record<string, string> = {}
    for (const status of statuses) {
      deliveries[status] = await addDelivery(server, account, id, { status, attempts: status === "failed" ? 4 : 1 })
    }
    const otherPending = await addDelivery(server, account, other, { status: "pending", attempts: 0 })

    expect((await remove(account, id)).status).toBe(200)
    const rows = await query<{ id: string; status: string }>(
      server,
      "SELECT id, status FROM webhook_deliveries WHERE tenant_id = $1",
      [account.tenantId]
    )
    const statusOf = (deliveryId: string) => rows.find((r) => r.id === deliveryId)!.status
    expect(statusOf(deliveries.pending!)).toBe("webhook_deleted")
    expect(statusOf(deliveries.delivering!)).toBe("webhook_deleted")
    expect(statusOf(deliveries.succeeded!)).toBe("succeeded")
    expect(statusOf(deliveries.failed!)).toBe("failed")
    expect(statusOf(otherPending)).toBe("pending")
  })
})

describe("webhook calls count against the general rate limit", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 4, exportPerHour: 20 } })
  })
  afterAll(() => server.close())

  it("webhook and tender calls share one window per tenant; past it, 429 with Retry-After", async () => {
    const account = await createAccount(server)
    await addScoredTenders(server, account, [{ score: 80, publishDate: "2026-05-05T08:00:00Z" }])
    const hook = (method: string, path: string, body?: unknown) =>
      request(api(server, path), { method, token: account.key, ...(body === undefined ? {} : { body }) })
    expect((await hook("POST", "/api/v1/webhooks", valid())).status).toBe(201)
    expect((await hook("GET", "/api/v1/webhooks")).status).toBe(200)
    expect((await hook("POST", "/api/v1/webhooks", valid({ url: "http://x" }))).status).toBe(400)
    expect(
      (await request(api(server, "/api/v1/tenders", { companyId: account.companyId }), { token: account.key })).status
    ).toBe(200)
    const limited = await hook("GET", "/api/v1/webhooks")
    expect(limited.status).toBe(429)
    expect(limited.body.code).toBe("RATE_LIMIT_EXCEEDED")
    expect(limited.headers.get("retry-after")).toBe(String(limited.body.retry_after_seconds))
    expect(limited.headers.get("x-api-credits-cost")).toBe("0")
    expect((await hook("DELETE", `/api/v1/webhooks/${randomUUID()}`)).status).toBe(429)
    // Another tenant has its own window.
    const other = await createAccount(server)
    expect((await request(api(server, "/api/v1/webhooks"), { token: other.key })).status).toBe(200)
  })
})
