import http, { type IncomingHttpHeaders } from "node:http"
import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { client, query, seedAccount, signIn } from "../account/fixtures.js"
import { type Account, addCompany, createAccount, ledgerState } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * `Idempotency-Key` on report creation (ours; spec 4.3 is silent), against the real server and
 * database: a repeat answers the first job and holds nothing more, whatever the timing. No worker
 * runs: the jobs stay queued, which is all these tests look at.
 */

const BODY = { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 0 }

/** The tenant's report jobs and credit holds, as stored. */
const stored = async (server: TestServer, tenantId: string) => {
  const [row] = await query<{ jobs: number; holds: number; keys: number }>(
    server,
    `SELECT (SELECT count(*)::int FROM report_jobs WHERE tenant_id = $1) AS jobs,
            (SELECT count(*)::int FROM credit_ledger WHERE tenant_id = $1 AND kind = 'hold') AS holds,
            (SELECT count(*)::int FROM report_idempotency_keys WHERE tenant_id = $1) AS keys`,
    [tenantId]
  )
  return row!
}

/** Resolves once `n` statements of the test database wait for a lock. */
const lockWaits = async (server: TestServer, n: number) => {
  const until = Date.now() + 30_000
  for (;;) {
    const [row] = await query<{ n: number }>(
      server,
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`
    )
    if (row!.n >= n) return
    if (Date.now() > until) throw new Error(`fewer than ${n} statements waited for a lock within 30 s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A JSON POST of BODY through node:http, which sends an array header value as one line per item (fetch
 * joins them into one line): a client that repeats a header.
 */
const postWithHeaderLines = (url: string, token: string, headers: Record<string, string | Array<string>>) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const payload = JSON.stringify(BODY)
    const sent = http.request(
      url,
      {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers }
      },
      (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk) => {
          text += chunk
        })
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) })
        )
      }
    )
    sent.on("error", reject)
    sent.end(payload)
  })

describe("report creation with an Idempotency-Key", { timeout: 120_000 }, () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 100_000, reportsPerHour: 1_000 } })
  })
  afterAll(() => server.close())

  const post = (account: Account, body: unknown, key?: string, companyId = account.companyId) =>
    request(`${server.baseUrl}/api/v1/reports/${companyId}/pdf`, {
      method: "POST",
      token: account.key,
      body,
      ...(key === undefined ? {} : { headers: { "idempotency-key": key } })
    })

  it("the same key and request answers the first job again and holds nothing more", async () => {
    const account = await createAccount(server, { credits: 100 })
    const first = await post(account, BODY, "order-4711")
    expect(first.status).toBe(202)
    expect(first.body).toEqual({ job_id: expect.any(String), status: "generating", estimated_seconds: 5 })
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    expect(first.headers.get("x-api-credits-remaining")).toBe("90")

    // The same request as decoded: min_score 0 is its default, the company id in upper case is the same id.
    const again = await post(account, { date_from: BODY.date_from, date_to: BODY.date_to }, "order-4711")
    expect(again.status).toBe(202)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.headers.get("x-api-credits-cost")).toBe("0")
    expect(again.headers.get("x-api-credits-remaining")).toBe("90")
    const upper = await post(account, BODY, "order-4711", account.companyId.toUpperCase())
    expect(upper.body.job_id).toBe(first.body.job_id)

    expect(await stored(server, account.tenantId)).toEqual({ jobs: 1, holds: 1, keys: 1 })
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)
    // Keys are case-sensitive, as sent: another key is another report.
    const other = await post(account, BODY, "ORDER-4711")
    expect(other.status).toBe(202)
    expect(other.body.job_id).not.toBe(first.body.job_id)
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 2, holds: 2, keys: 2 })
  })

  it("the same key with another body or company is 409 IDEMPOTENCY_KEY_REUSED, and holds nothing", async () => {
    const account = await createAccount(server, { credits: 100 })
    const secondCompany = await addCompany(server, account.tenantId)
    const key = "5f2b6c1e-8d4a-4c3e-9b7a-2e1f0d9c8b7a"
    expect((await post(account, BODY, key)).status).toBe(202)
    for (const [body, companyId] of [
      [{ ...BODY, min_score: 1 }, account.companyId],
      [{ ...BODY, date_to: "2026-11-29" }, account.companyId],
      [BODY, secondCompany]
    ] as const) {
      const reused = await post(account, body, key, companyId)
      expect(reused.status, JSON.stringify(body)).toBe(409)
      expect(reused.body).toEqual({
        statusCode: 409,
        code: "IDEMPOTENCY_KEY_REUSED",
        message: expect.stringContaining("Idempotency-Key")
      })
    }
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 1, holds: 1, keys: 1 })
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)
  })

  it("10 concurrent creations with one key: one job, one hold, every answer naming it", async () => {
    const account = await createAccount(server, { credits: 100 })
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(account, BODY, "concurrent")))
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202))
    const ids = new Set(answers.map((a) => a.body.job_id))
    expect(ids.size).toBe(1)
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(9)
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 1, holds: 1, keys: 1 })
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)

    // Concurrent twins with another body under the same key: each one 409, still one job.
    const mixed = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post(account, i % 2 === 0 ? BODY : { ...BODY, min_score: 50 }, "mixed"))
    )
    const created = mixed.filter((a) => a.status === 202)
    expect(new Set(created.map((a) => a.body.job_id)).size).toBe(1)
    expect(mixed.filter((a) => a.status === 409)).toHaveLength(3)
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 2, holds: 2, keys: 2 })
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(80)
  })

  it("a twin arriving while the first creation's transaction is open waits for it, then answers its job", async () => {
    const account = await createAccount(server, { credits: 100 })
    const holder = new pg.Client({ connectionString: server.databaseUrl })
    await holder.connect()
    try {
      await holder.query("BEGIN")
      // Stops the first creation at its hold, after it stored its (uncommitted) key.
      await holder.query("SELECT 1 FROM credit_periods WHERE tenant_id = $1 FOR UPDATE", [account.tenantId])
      const first = post(account, BODY, "in-flight")
      await lockWaits(server, 1)
      // The twin finds no committed key, creates its own job and waits at the key's unique index.
      const twin = post(account, BODY, "in-flight")
      await lockWaits(server, 2)
      await holder.query("COMMIT")
      const [a, b] = await Promise.all([first, twin])
      expect([a.status, b.status]).toEqual([202, 202])
      expect(b.body.job_id).toBe(a.body.job_id)
      expect(b.headers.get("idempotent-replayed")).toBe("true")
    } finally {
      await holder.end()
    }
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 1, holds: 1, keys: 1 })
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)
  })

  it("another tenant's equal key is its own key: its own job and hold", async () => {
    const [a, b] = await Promise.all([createAccount(server, { credits: 100 }), createAccount(server, { credits: 100 })])
    const [fromA, fromB] = await Promise.all([post(a, BODY, "shared-key"), post(b, BODY, "shared-key")])
    expect([fromA.status, fromB.status]).toEqual([202, 202])
    expect(fromA.body.job_id).not.toBe(fromB.body.job_id)
    expect(fromB.headers.get("idempotent-replayed")).toBeNull()
    // A different body under B's key is B's business only: A's key still answers A's job.
    expect((await post(b, { ...BODY, min_score: 70 }, "shared-key")).status).toBe(409)
    expect((await post(a, BODY, "shared-key")).body.job_id).toBe(fromA.body.job_id)
    for (const account of [a, b]) {
      expect(await stored(server, account.tenantId)).toEqual({ jobs: 1, holds: 1, keys: 1 })
      expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)
    }
  })

  it("a key that is not 1-255 printable ASCII characters is 400 VALIDATION_ERROR; nothing is created", async () => {
    const account = await createAccount(server, { credits: 100 })
    for (const key of ["", "k".repeat(256), "tab\there", "cheie-é"]) {
      const refused = await post(account, BODY, key)
      expect(refused.status, JSON.stringify(key)).toBe(400)
      expect(refused.body).toMatchObject({
        statusCode: 400,
        code: "VALIDATION_ERROR",
        details: [{ path: "idempotency-key", message: expect.any(String) }]
      })
    }
    // The bounds themselves are keys: 255 characters, the whole printable range, a space inside.
    expect((await post(account, BODY, "k".repeat(255))).status).toBe(202)
    expect((await post(account, BODY, " !\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~")).status).toBe(202)
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 2, holds: 2, keys: 2 })
  })

  it("an Idempotency-Key sent on two header lines is 400 VALIDATION_ERROR before any work, on both routes", async () => {
    const account = await createAccount(server, { credits: 100 })
    const seeded = await seedAccount(server, "consultant")
    const { accessToken } = await signIn(server, seeded)
    const keyRoute = `${server.baseUrl}/api/v1/reports/${account.companyId}/pdf`
    const appRoute = `${server.baseUrl}/api/v1/app/companies/${seeded.companyId}/reports`
    const refusal = {
      statusCode: 400,
      code: "VALIDATION_ERROR",
      message: expect.stringContaining("Idempotency-Key"),
      details: [{ path: "idempotency-key", message: "must be sent once" }]
    }
    // A key already standing for a job: its repetition replays nothing either.
    expect((await post(account, BODY, "k")).status).toBe(202)
    for (const keys of [
      ["k1", "k2"],
      ["k", "k"],
      ["fresh", "fresh"]
    ]) {
      const refused = await postWithHeaderLines(keyRoute, account.key, { "idempotency-key": keys })
      expect(refused.status, keys.join(" / ")).toBe(400)
      expect(refused.body).toEqual(refusal)
      expect(refused.headers["x-api-credits-cost"]).toBe("0")
      expect(refused.headers["idempotent-replayed"]).toBeUndefined()
      const app = await postWithHeaderLines(appRoute, accessToken, { "idempotency-key": keys })
      expect(app.status, keys.join(" / ")).toBe(400)
      expect(app.body).toEqual(refusal)
    }
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 1, holds: 1, keys: 1 })
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)
    expect(await stored(server, seeded.tenantId)).toEqual({ jobs: 0, holds: 0, keys: 0 })
    // One line whose value holds a comma is one key, as sent.
    const oneLine = await postWithHeaderLines(keyRoute, account.key, { "idempotency-key": "k1, k2" })
    expect(oneLine.status).toBe(202)
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 2, holds: 2, keys: 2 })
  })

  it("a refused creation (402, 403, 400) stores no key: the same key works once the request can be served", async () => {
    const account = await createAccount(server, { credits: 5 })
    const foreign = await createAccount(server, { credits: 100 })
    const poor = await post(account, BODY, "retry-me")
    expect(poor.status).toBe(402)
    expect(poor.body.code).toBe("API_CREDITS_EXHAUSTED")
    const denied = await post(account, BODY, "retry-me", foreign.companyId)
    expect(denied.status).toBe(403)
    const badWatchlist = await post(
      account,
      { ...BODY, watchlist_id: "00000000-0000-4000-8000-000000000000" },
      "retry-me"
    )
    expect(badWatchlist.status).toBe(400)
    const badBody = await post(account, { ...BODY, date_to: "2026-10-01" }, "retry-me")
    expect(badBody.status).toBe(400)
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 0, holds: 0, keys: 0 })

    // Topped up: the same key (with a body none of the refusals had) creates the report.
    await server.run(
      Effect.flatMap(CreditLedger, (ledger) =>
        ledger.set({ tenantId: account.tenantId, remaining: 100, reason: "top-up" })
      ).pipe(Effect.orDie)
    )
    const served = await post(account, { ...BODY, min_score: 10 }, "retry-me")
    expect(served.status).toBe(202)
    expect(served.headers.get("idempotent-replayed")).toBeNull()
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 1, holds: 1, keys: 1 })
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)
  })

  it("after 24 hours a key is free again: the next creation with it is a new report", async () => {
    const account = await createAccount(server, { credits: 100 })
    const first = await post(account, BODY, "daily")
    // Just inside the window it still stands for its job.
    await query(
      server,
      "UPDATE report_idempotency_keys SET created_at = now() - interval '23 hours 59 minutes' WHERE tenant_id = $1",
      [account.tenantId]
    )
    expect((await post(account, BODY, "daily")).body.job_id).toBe(first.body.job_id)
    await query(
      server,
      "UPDATE report_idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE tenant_id = $1",
      [account.tenantId]
    )
    // Even with another body: the expired row is taken over by the new job.
    const next = await post(account, { ...BODY, min_score: 40 }, "daily")
    expect(next.status).toBe(202)
    expect(next.body.job_id).not.toBe(first.body.job_id)
    const [row] = await query<{ job_id: string }>(
      server,
      "SELECT job_id FROM report_idempotency_keys WHERE tenant_id = $1 AND key = 'daily'",
      [account.tenantId]
    )
    expect(row!.job_id).toBe(next.body.job_id)
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 2, holds: 2, keys: 1 })
  })

  it("the browser app's creation takes the same header: a repeat answers the job as it is now", async () => {
    const seeded = await seedAccount(server, "consultant")
    const app = client(server, (await signIn(server, seeded)).accessToken)
    const path = `/api/v1/app/companies/${seeded.companyId}/reports`
    const first = await app.post(path, BODY, { "idempotency-key": "app-click-1" })
    expect(first.status).toBe(202)
    const held = (await ledgerState(server, seeded.tenantId)).remaining
    await query(server, "UPDATE report_jobs SET status = 'pending' WHERE id = $1", [first.body.data.id])
    const again = await app.post(path, BODY, { "idempotency-key": "app-click-1" })
    expect(again.status).toBe(202)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body.data).toMatchObject({ id: first.body.data.id, status: "pending" })
    expect((await app.post(path, { ...BODY, min_score: 5 }, { "idempotency-key": "app-click-1" })).body.code).toBe(
      "IDEMPOTENCY_KEY_REUSED"
    )
    expect((await app.post(path, BODY, { "idempotency-key": "" })).body.code).toBe("VALIDATION_ERROR")
    expect(await stored(server, seeded.tenantId)).toEqual({ jobs: 1, holds: 1, keys: 1 })
    expect((await ledgerState(server, seeded.tenantId)).remaining).toBe(held)
  })
})

describe("Idempotency-Key and the hourly report limit", { timeout: 120_000 }, () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { reportsPerHour: 2 } })
  })
  afterAll(() => server.close())

  it("repeats, concurrent or later, do not count against the limit; a repeat is answered past it", async () => {
    const account = await createAccount(server, { credits: 100 })
    const post = (key: string) =>
      request(`${server.baseUrl}/api/v1/reports/${account.companyId}/pdf`, {
        method: "POST",
        token: account.key,
        body: BODY,
        headers: { "idempotency-key": key }
      })
    const twins = await Promise.all(Array.from({ length: 10 }, () => post("first")))
    expect(twins.map((a) => a.status)).toEqual(Array(10).fill(202))
    expect((await post("first")).status).toBe(202)
    expect((await post("second")).status).toBe(202)
    const limited = await post("third")
    expect(limited.status).toBe(429)
    // Refused by the limit: no key stored, and the earlier keys still answer their jobs.
    expect((await post("first")).status).toBe(202)
    expect(await stored(server, account.tenantId)).toEqual({ jobs: 2, holds: 2, keys: 2 })
  })
})
