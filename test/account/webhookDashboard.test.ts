import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { JOBS_CHANNEL } from "../../src/infra/queue/JobQueue.js"
import { DeliverWebhook } from "../../src/infra/webhooks/Deliveries.js"
import { addDelivery } from "../api/webhookFixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, query, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

/** The dashboard's webhook endpoints (access token): last 10 deliveries per webhook, manual retry. */

interface Dashboard {
  readonly account: SeededAccount
  readonly token: string
  readonly key: string
}

describe("webhook dashboard (access token)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  const open = async (plan: SeededAccount["plan"] = "consultant"): Promise<Dashboard> => {
    const account = await seedAccount(server, plan)
    const { accessToken } = await signIn(server, account)
    const { key } = await server.run(
      Effect.flatMap(ApiKeysRepo, (keys) => keys.create({ tenantId: account.tenantId, name: "hooks" })).pipe(
        Effect.orDie
      )
    )
    return { account, token: accessToken, key }
  }

  /** Registers a webhook through the key API, as a client would. */
  const register = async (d: Dashboard, url: string) => {
    const res = await request(`${server.baseUrl}/api/v1/webhooks`, {
      method: "POST",
      token: d.key,
      body: { url, secret: "0123456789abcdef0123456789abcdef", events: ["tender.matched"] }
    })
    expect(res.status).toBe(201)
    return res.body.webhook_id as string
  }

  const addAttempt = (deliveryId: string, attemptNo: number, startedAt: Date, responseCode: number | null) =>
    query(
      server,
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt_no, started_at, finished_at, response_code, error)
       VALUES ($1, $2, $3, $3, $4, $5)`,
      [deliveryId, attemptNo, startedAt, responseCode, responseCode === null ? "connection refused" : null]
    )

  const retry = (d: Dashboard, deliveryId: string) =>
    client(server, d.token).post(`/api/v1/settings/webhooks/deliveries/${deliveryId}/retry`)

  it("lists the active webhooks with their last 10 deliveries: id, status, timestamp, response code", async () => {
    const d = await open()
    const first = await register(d, "https://one.example.com/hook")
    const second = await register(d, "https://two.example.com/hook")
    const base = Date.parse("2026-11-01T08:00:00.000Z")
    const at = (minutes: number) => new Date(base + minutes * 60_000)
    const ids: Array<string> = []
    for (let i = 0; i < 12; i++) {
      ids.push(
        await addDelivery(server, d.account, first, {
          status: i === 10 ? "pending" : "succeeded",
          attempts: i === 10 ? 0 : 1,
          createdAt: at(i)
        })
      )
    }
    for (let i = 0; i < 12; i++) if (i !== 10 && i !== 11) await addAttempt(ids[i]!, 1, at(i), 204)
    // The newest: a 500, then a 200 a minute later; the last attempt's code and time are shown.
    await addAttempt(ids[11]!, 1, at(11), 500)
    await addAttempt(ids[11]!, 2, at(12), 200)

    const res = await client(server, d.token).get("/api/v1/settings/webhooks")
    expect(res.status).toBe(200)
    expect(res.headers.get("x-api-credits-cost")).toBeNull()
    expect(res.body.data.map((w: { id: string }) => w.id)).toEqual([first, second])
    const [one, two] = res.body.data
    expect(Object.keys(one).sort()).toEqual(["active", "createdAt", "deliveries", "events", "id", "url"])
    expect(one).toMatchObject({ url: "https://one.example.com/hook", events: ["tender.matched"], active: true })
    expect(one.deliveries.map((x: { id: string }) => x.id)).toEqual(ids.slice(2).reverse())
    expect(one.deliveries[0]).toEqual({
      id: ids[11],
      status: "succeeded",
      timestamp: at(12).toISOString(),
      responseCode: 200
    })
    expect(one.deliveries[1]).toEqual({
      id: ids[10],
      status: "pending",
      timestamp: at(10).toISOString(),
      responseCode: null
    })
    expect(one.deliveries[2]).toEqual({
      id: ids[9],
      status: "succeeded",
      timestamp: at(9).toISOString(),
      responseCode: 204
    })
    expect(two.deliveries).toEqual([])
    expect(res.text).not.toContain("0123456789abcdef0123456789abcdef")
  })

  it("pages a webhook's older deliveries 10 at a time, in the dashboard's order, from the last one shown", async () => {
    const d = await open()
    const hook = await register(d, "https://many.example.com/hook")
    const other = await register(d, "https://other.example.com/hook")
    const base = new Date("2026-11-01T08:00:00.000Z")
    const ids: Array<string> = []
    for (let i = 0; i < 25; i++)
      ids.push(await addDelivery(server, d.account, hook, { status: "failed", attempts: 4, createdAt: base }))
    // Within one millisecond: two by two on the same microsecond (the id breaks the tie), so a
    // position kept to a JavaScript Date's milliseconds would skip or repeat deliveries.
    await query(
      server,
      `UPDATE webhook_deliveries d SET created_at = d.created_at + (n.i / 2) * interval '1 microsecond'
       FROM unnest($1::uuid[]) WITH ORDINALITY AS n(id, i) WHERE d.id = n.id`,
      [ids]
    )
    const order = (
      await query<{ id: string }>(
        server,
        "SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, id DESC",
        [hook]
      )
    ).map((row) => row.id)
    const api = client(server, d.token)
    const page = (before?: string) =>
      api.get(`/api/v1/settings/webhooks/${hook}/deliveries${before === undefined ? "" : `?before=${before}`}`)

    const dashboard = await api.get("/api/v1/settings/webhooks")
    const first = await page()
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual(dashboard.body.data.find((w: { id: string }) => w.id === hook).deliveries)
    expect(first.body.meta).toEqual({ hasMore: true })
    const seen: Array<string> = first.body.data.map((x: { id: string }) => x.id)
    const metas: Array<unknown> = [first.body.meta]
    while (metas.length < 3) {
      // An upper-case id is the same delivery.
      const next = await page(seen[seen.length - 1]!.toUpperCase())
      expect(next.status).toBe(200)
      seen.push(...next.body.data.map((x: { id: string }) => x.id))
      metas.push(next.body.meta)
    }
    expect(seen).toEqual(order)
    expect(metas).toEqual([{ hasMore: true }, { hasMore: true }, { hasMore: false }])
    const oldest = await page(order[24])
    expect(oldest.body).toEqual({ data: [], meta: { hasMore: false } })

    // 404: a delivery of another webhook as the position, an unknown one, another account's webhook,
    // a deleted one; 400: a malformed id.
    const elsewhere = await addDelivery(server, d.account, other, { status: "succeeded", attempts: 1 })
    for (const res of [await page(elsewhere), await page(randomUUID())]) {
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ statusCode: 404, code: "NOT_FOUND", message: expect.any(String) })
    }
    const stranger = await open()
    expect((await client(server, stranger.token).get(`/api/v1/settings/webhooks/${hook}/deliveries`)).status).toBe(404)
    expect((await api.get(`/api/v1/settings/webhooks/${randomUUID()}/deliveries`)).status).toBe(404)
    const malformed = await api.get(`/api/v1/settings/webhooks/${hook}/deliveries?before=12`)
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe("VALIDATION_ERROR")
    expect(
      (await request(`${server.baseUrl}/api/v1/webhooks/${hook}`, { method: "DELETE", token: d.key })).status
    ).toBe(200)
    expect((await page()).status).toBe(404)
    expect((await client(server).get(`/api/v1/settings/webhooks/${other}/deliveries`)).status).toBe(401)
  })

  it("shows no other tenant's webhooks and no deleted ones", async () => {
    const a = await open()
    const b = await open()
    const hookA = await register(a, "https://a.example.com/")
    const gone = await register(a, "https://gone.example.com/")
    await register(b, "https://b.example.com/")
    expect(
      (await request(`${server.baseUrl}/api/v1/webhooks/${gone}`, { method: "DELETE", token: a.key })).status
    ).toBe(200)
    const [listA, listB] = await Promise.all([
      client(server, a.token).get("/api/v1/settings/webhooks"),
      client(server, b.token).get("/api/v1/settings/webhooks")
    ])
    expect(listA.body.data.map((w: { id: string }) => w.id)).toEqual([hookA])
    expect(listB.body.data.map((w: { url: string }) => w.url)).toEqual(["https://b.example.com/"])
  })

  it("manual retry of a failed delivery: 202, pending with one more attempt allowed, due now, its job queued and the runner woken", async () => {
    const d = await open()
    const hook = await register(d, "https://retry.example.com/")
    const failed = await addDelivery(server, d.account, hook, { status: "failed", attempts: 4 })
    const start = Date.parse("2026-11-01T08:00:00.000Z")
    for (let n = 1; n <= 4; n++) await addAttempt(failed, n, new Date(start + n * 60_000), 503)

    const listener = new pg.Client({ connectionString: server.databaseUrl })
    await listener.connect()
    try {
      const notified = new Promise<string | undefined>((resolve) => {
        listener.on("notification", (message) => resolve(message.payload))
      })
      await listener.query(`LISTEN ${JOBS_CHANNEL}`)
      const before = Date.now()
      const res = await retry(d, failed)
      expect(res.status).toBe(202)
      expect(res.body).toEqual({
        data: {
          id: failed,
          status: "pending",
          timestamp: new Date(start + 4 * 60_000).toISOString(),
          responseCode: 503
        }
      })
      expect(await notified).toBe(DeliverWebhook.name)
      const [row] = await query<{
        status: string
        attempt_count: number
        attempts_allowed: number
        next_attempt_at: Date
      }>(
        server,
        "SELECT status, attempt_count, attempts_allowed, next_attempt_at FROM webhook_deliveries WHERE id = $1",
        [failed]
      )
      expect(row).toMatchObject({ status: "pending", attempt_count: 4, attempts_allowed: 5 })
      // Its job is queued in the webhook's group, due now.
      const jobs = await query<{ status: string; group_key: string }>(
        server,
        "SELECT status, group_key FROM jobs WHERE kind = $1 AND payload ->> 'deliveryId' = $2",
        [DeliverWebhook.name, failed]
      )
      expect(jobs).toEqual([{ status: "queued", group_key: hook }])
      expect(row!.next_attempt_at.getTime()).toBeGreaterThanOrEqual(before - 1_000)
      expect(row!.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now() + 1_000)
    } finally {
      await listener.end()
    }

    // Now pending: a second retry is refused until it has failed again.
    const again = await retry(d, failed)
    expect(again.status).toBe(409)
    expect(again.body).toEqual({ statusCode: 409, code: "DELIVERY_NOT_RETRYABLE", message: expect.any(String) })
  })

  it("409 for a delivery that is not failed; 404 for another tenant's or an unknown one; 400 for a malformed id", async () => {
    const a = await open()
    const b = await open()
    const hookA = await register(a, "https://a.example.com/")
    const hookB = await register(b, "https://b.example.com/")
    for (const status of ["pending", "delivering", "succeeded", "webhook_deleted"]) {
      const id = await addDelivery(server, a.account, hookA, { status, attempts: 1 })
      const res = await retry(a, id)
      expect(res.status, status).toBe(409)
      expect(res.body.code).toBe("DELIVERY_NOT_RETRYABLE")
      const [row] = await query<{ status: string }>(server, "SELECT status FROM webhook_deliveries WHERE id = $1", [id])
      expect(row!.status).toBe(status)
    }
    // A failed delivery of a deleted webhook stays failed: the webhook receives nothing more.
    const hookGone = await register(a, "https://gone.example.com/")
    const orphan = await addDelivery(server, a.account, hookGone, { status: "failed", attempts: 4 })
    await request(`${server.baseUrl}/api/v1/webhooks/${hookGone}`, { method: "DELETE", token: a.key })
    const refused = await retry(a, orphan)
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe("DELIVERY_NOT_RETRYABLE")
    const [orphanRow] = await query<{ status: string }>(server, "SELECT status FROM webhook_deliveries WHERE id = $1", [
      orphan
    ])
    expect(orphanRow!.status).toBe("failed")

    const foreign = await addDelivery(server, b.account, hookB, { status: "failed", attempts: 4 })
    const cross = await retry(a, foreign)
    expect(cross.status).toBe(404)
    expect(cross.body).toEqual({ statusCode: 404, code: "NOT_FOUND", message: expect.any(String) })
    const [row] = await query<{ status: string; attempts_allowed: number }>(
      server,
      "SELECT status, attempts_allowed FROM webhook_deliveries WHERE id = $1",
      [foreign]
    )
    expect(row).toEqual({ status: "failed", attempts_allowed: 4 })
    expect((await retry(a, randomUUID())).status).toBe(404)
    const malformed = await retry(a, "not-a-uuid")
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe("VALIDATION_ERROR")
  })

  it("plans below Consultant get 403 PLAN_UPGRADE_REQUIRED to register or retry, not to list or delete; no token is 401", async () => {
    const starter = await seedAccount(server, "starter")
    const { accessToken } = await signIn(server, starter)
    const created = await client(server, accessToken).post("/api/v1/settings/webhooks", {
      url: "https://hooks.example.com/",
      secret: "0123456789abcdef0123456789abcdef",
      events: ["tender.matched"]
    })
    expect(created.status).toBe(403)
    expect(created.body.code).toBe("PLAN_UPGRADE_REQUIRED")
    // Listing and deleting work on every plan (webhooks made before a downgrade: planDowngrade.test).
    expect((await client(server, accessToken).get("/api/v1/settings/webhooks")).body).toEqual({ data: [] })
    expect((await client(server, accessToken).delete(`/api/v1/settings/webhooks/${randomUUID()}`)).status).toBe(404)
    const res = await client(server, accessToken).post(`/api/v1/settings/webhooks/deliveries/${randomUUID()}/retry`)
    expect(res.status).toBe(403)
    expect(res.body.code).toBe("PLAN_UPGRADE_REQUIRED")
    expect((await client(server).get("/api/v1/settings/webhooks")).status).toBe(401)
  })
})
