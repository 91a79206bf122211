import * as RateLimiter from "@effect/experimental/RateLimiter"
import { it as effectIt } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, TestClock } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultRateLimitPolicies } from "../../src/domain/RateLimitPolicy.js"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { RateLimits, RateLimitsLive } from "../../src/infra/limits/RateLimits.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addScoredTenders, api, createAccount, ledgerState } from "./fixtures.js"

describe("rate limits over HTTP (per tenant and group)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 3, exportPerHour: 2 } })
  })
  afterAll(() => server.close())

  /** A tenant per test: the windows are per tenant, so no test inherits another's spent requests. */
  const freshAccount = async () => {
    const account = await createAccount(server)
    await addScoredTenders(server, account, [{ score: 80, publishDate: "2026-05-05T08:00:00Z" }])
    return account
  }

  const list = (a: Account) => request(api(server, "/api/v1/tenders", { companyId: a.companyId }), { token: a.key })
  const exportPage = (a: Account) =>
    request(api(server, "/api/v1/export/tenders", { companyId: a.companyId, from: "2026-05-01", to: "2026-05-31" }), {
      token: a.key
    })

  it("429 RATE_LIMIT_EXCEEDED past the limit, Retry-After equal to retry_after_seconds, nothing charged", async () => {
    const account = await freshAccount()
    for (let i = 0; i < 3; i++) expect((await list(account)).status).toBe(200)
    const before = await ledgerState(server, account.tenantId)
    const res = await list(account)
    expect(res.status).toBe(429)
    expect(res.body).toEqual({
      statusCode: 429,
      code: "RATE_LIMIT_EXCEEDED",
      message: expect.any(String),
      retry_after_seconds: expect.any(Number)
    })
    expect(res.body.retry_after_seconds).toBeGreaterThanOrEqual(1)
    expect(res.body.retry_after_seconds).toBeLessThanOrEqual(60)
    expect(res.headers.get("retry-after")).toBe(String(res.body.retry_after_seconds))
    expect(res.headers.get("x-api-credits-cost")).toBe("0")
    expect(res.headers.get("x-api-credits-remaining")).toBe(String(before.remaining))
    // The score endpoint shares the general group.
    const score = await request(
      api(server, "/api/v1/tenders/11111111-1111-4111-8111-111111111111/score", { companyId: account.companyId }),
      { token: account.key }
    )
    expect(score.status).toBe(429)
    const after = await ledgerState(server, account.tenantId)
    expect(after.remaining).toBe(before.remaining)
    expect(after.ledgerSum).toBe(after.remaining)
  })

  it("the export group has its own window", async () => {
    const account = await freshAccount()
    // The general window spent does not touch the export one.
    for (let i = 0; i < 3; i++) expect((await list(account)).status).toBe(200)
    expect((await list(account)).status).toBe(429)
    expect((await exportPage(account)).status).toBe(200)
    expect((await exportPage(account)).status).toBe(200)
    const res = await exportPage(account)
    expect(res.status).toBe(429)
    expect(res.body.code).toBe("RATE_LIMIT_EXCEEDED")
    expect(Number(res.headers.get("retry-after"))).toBe(res.body.retry_after_seconds)
    expect(res.body.retry_after_seconds).toBeGreaterThan(60)
    expect(res.body.retry_after_seconds).toBeLessThanOrEqual(3600)
  })

  it("counts per tenant, shared by the tenant's keys", async () => {
    const account = await freshAccount()
    for (let i = 0; i < 3; i++) expect((await list(account)).status).toBe(200)
    const other = await createAccount(server)
    expect((await list(other)).status).toBe(200)
    // A second key of the first tenant is limited too: the window belongs to the tenant.
    const { key } = await server.run(
      Effect.flatMap(ApiKeysRepo, (keys) => keys.create({ tenantId: account.tenantId, name: "second" }))
    )
    const res = await list({ ...account, key })
    expect(res.status).toBe(429)
  })
})

describe("rate windows with the TestClock (in-process store)", () => {
  const TestRateLimits = RateLimitsLive.pipe(Layer.provide(RateLimiter.layerStoreMemory))

  effectIt.effect("60 per minute: the 61st waits for the window, then passes", () =>
    Effect.gen(function* () {
      const limits = yield* RateLimits
      const policy = defaultRateLimitPolicies.general
      for (let i = 0; i < 60; i++) yield* limits.consume(policy, "tenant-a")
      const hit = yield* Effect.flip(limits.consume(policy, "tenant-a"))
      expect(hit.retryAfterSeconds).toBe(60)
      // Another tenant is unaffected.
      yield* limits.consume(policy, "tenant-b")
      yield* TestClock.adjust(Duration.seconds(30))
      const later = yield* Effect.flip(limits.consume(policy, "tenant-a"))
      expect(later.retryAfterSeconds).toBe(30)
      yield* TestClock.adjust(Duration.seconds(30))
      yield* limits.consume(policy, "tenant-a")
    }).pipe(Effect.provide(TestRateLimits))
  )

  effectIt.effect("20 per hour for export, reported in whole seconds", () =>
    Effect.gen(function* () {
      const limits = yield* RateLimits
      const policy = defaultRateLimitPolicies.export
      for (let i = 0; i < 20; i++) yield* limits.consume(policy, "tenant-a")
      yield* TestClock.adjust(Duration.millis(1500))
      const hit = yield* Effect.flip(limits.consume(policy, "tenant-a"))
      expect(hit.retryAfterSeconds).toBe(3599)
      // A client that sleeps for the announced wait gets through.
      const retry = yield* Effect.fork(
        Effect.sleep(Duration.seconds(hit.retryAfterSeconds)).pipe(Effect.zipRight(limits.consume(policy, "tenant-a")))
      )
      yield* TestClock.adjust(Duration.seconds(hit.retryAfterSeconds))
      yield* Fiber.join(retry)
    }).pipe(Effect.provide(TestRateLimits))
  )
})
