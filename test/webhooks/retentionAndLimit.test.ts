import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { makeDeliveryRetention } from "../../src/infra/webhooks/DeliveryRetention.js"
import { client, query, seedAccount, signIn } from "../account/fixtures.js"
import { addDelivery } from "../api/webhookFixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** Resolves once `n` statements wait for a lock on a row of `table` (pg_locks, real time). */
const waitersOn = async (server: TestServer, table: string, n: number, seconds = 30) => {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const [row] = await query<{ n: number }>(
      server,
      `SELECT count(DISTINCT pid)::int AS n FROM pg_locks
       WHERE NOT granted AND (relation = $1::regclass OR locktype IN ('transactionid', 'tuple'))`,
      [table]
    )
    if (row!.n >= n) return
    if (Date.now() > until) throw new Error(`fewer than ${n} statements waited on ${table} within ${seconds} s`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe("webhook delivery retention meeting the dashboard's manual retry", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("a failed delivery past retention that a manual retry makes pending meanwhile is not deleted (README: pending ones are never deleted)", async () => {
    const account = await seedAccount(server, "consultant")
    const { accessToken } = await signIn(server, account)
    const { key } = await server.run(
      Effect.flatMap(ApiKeysRepo, (keys) => keys.create({ tenantId: account.tenantId, name: "hooks" })).pipe(
        Effect.orDie
      )
    )
    const created = await request(`${server.baseUrl}/api/v1/webhooks`, {
      method: "POST",
      token: key,
      body: {
        url: "https://retention.example.com/",
        secret: "0123456789abcdef0123456789abcdef",
        events: ["tender.matched"]
      }
    })
    expect(created.status).toBe(201)
    const old = new Date(Date.now() - 40 * 86_400_000)
    const deliveryId = await addDelivery(server, account, created.body.webhook_id, {
      status: "failed",
      attempts: 4,
      createdAt: old
    })
    await query(server, "UPDATE webhook_deliveries SET updated_at = $2 WHERE id = $1", [deliveryId, old])

    // A third party holds the delivery's row for a moment (any short lock does: a worker, another click).
    const blocker = new pg.Client({ connectionString: server.databaseUrl })
    await blocker.connect()
    try {
      await blocker.query("BEGIN")
      await blocker.query("SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE", [deliveryId])
      // The user clicks "retry" (real route) and the worker's retention round runs (real code), both
      // waiting for that row: the retry first.
      const retried = client(server, accessToken).post(`/api/v1/settings/webhooks/deliveries/${deliveryId}/retry`)
      await waitersOn(server, "webhook_deliveries", 1)
      const retention = server.run(
        Effect.flatMap(makeDeliveryRetention, (r) => r.run(new Date(), 30)).pipe(Effect.orDie)
      )
      await waitersOn(server, "webhook_deliveries", 2)
      await blocker.query("COMMIT")
      const answer = await retried
      expect(answer.status).toBe(202)
      expect(answer.body.data.status).toBe("pending")
      await retention
    } finally {
      await blocker.end()
    }
    // The retry said 202 pending: the delivery must still be there to be sent.
    const rows = await query<{ status: string }>(server, "SELECT status FROM webhook_deliveries WHERE id = $1", [
      deliveryId
    ])
    expect(rows).toEqual([{ status: "pending" }])
  })
})

describe("the 5-webhook limit across both registration routes", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 1_000_000 } })
  })
  afterAll(() => server.close())

  it("10 concurrent creations, 5 through the key API and 5 through the app, leave at most 5 active", async () => {
    const account = await seedAccount(server, "consultant")
    const { accessToken } = await signIn(server, account)
    const { key } = await server.run(
      Effect.flatMap(ApiKeysRepo, (keys) => keys.create({ tenantId: account.tenantId, name: "hooks" })).pipe(
        Effect.orDie
      )
    )
    const body = (i: number) => ({
      url: `https://limit.example.com/${i}`,
      secret: "0123456789abcdef0123456789abcdef",
      events: ["tender.matched"]
    })
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? request(`${server.baseUrl}/api/v1/webhooks`, { method: "POST", token: key, body: body(i) })
          : client(server, accessToken).post("/api/v1/settings/webhooks", body(i))
      )
    )
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 201, 422, 422, 422, 422, 422])
    const [row] = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM webhooks WHERE tenant_id = $1 AND active",
      [account.tenantId]
    )
    expect(row!.n).toBe(5)
  })
})
