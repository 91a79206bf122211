import { Effect, Option } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RedisConnection } from "../../src/infra/redis/RedisConnection.js"
import { api, createAccount } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { testRedisUrl } from "../support/testRedis.js"

describe("system endpoints and the uniform error body", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("GET /health answers 200 ok", async () => {
    const response = await fetch(`${server.baseUrl}/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: "ok" })
  })

  it("GET /ready checks the database and Redis", async () => {
    const { status, body } = await request(`${server.baseUrl}/ready`)
    expect(status).toBe(200)
    expect(body.status).toBe("ready")
    expect(body.checks.database).toBe("ok")
    expect(body.checks.redis).toBe(testRedisUrl() ? "ok" : "in-process")
  })

  it("/ready answers within a few seconds when a table it reads is locked: 503 naming the database", async () => {
    const holder = new pg.Client({ connectionString: server.databaseUrl })
    await holder.connect()
    try {
      // What a migration of another process starting (a rolling deploy) or any DDL on the table holds.
      await holder.query("BEGIN")
      await holder.query("LOCK TABLE ingest_sources IN ACCESS EXCLUSIVE MODE")
      const started = Date.now()
      const answer = await fetch(`${server.baseUrl}/ready`, { signal: AbortSignal.timeout(15_000) }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as any }),
        () => ({ status: 0, body: undefined })
      )
      const seconds = (Date.now() - started) / 1000
      // A probe polled every second with a short timeout needs an answer (200 or 503) in bounded time.
      const seen = { status: answer.status === 0 ? "no answer in 15 s" : answer.status, seconds }
      expect(seconds, JSON.stringify(seen)).toBeLessThanOrEqual(5)
      expect(answer.status).toBe(503)
      expect(answer.body).toEqual({
        statusCode: 503,
        code: "SERVICE_UNAVAILABLE",
        message: "Not ready: a dependency is unreachable",
        details: [{ path: "database", message: "PostgreSQL did not answer" }]
      })
    } finally {
      await holder.query("ROLLBACK")
      await holder.end()
    }
    // The lock gone, it is ready again.
    expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(200)
  })

  it("an unknown route is a JSON 404 in the uniform shape", async () => {
    const response = await fetch(`${server.baseUrl}/no/such/route?x=1`)
    expect(response.status).toBe(404)
    expect(response.headers.get("content-type")).toContain("application/json")
    expect(await response.json()).toEqual({
      statusCode: 404,
      code: "NOT_FOUND",
      message: "No route for GET /no/such/route"
    })
  })

  it("serves the OpenAPI document generated from the API definition", async () => {
    const { status, body: spec } = await request(`${server.baseUrl}/api/v1/openapi.json`)
    expect(status).toBe(200)
    expect(spec.openapi).toMatch(/^3\./)
    expect(spec.paths["/health"].get).toBeDefined()
    expect(spec.paths["/ready"].get.responses["503"]).toBeDefined()
  })

  it("serves interactive docs at /docs", async () => {
    const response = await fetch(`${server.baseUrl}/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    expect(await response.text()).toContain("/api/v1/openapi.json")
  })
})

// With a Redis (CI, or one answering locally) the limiter and /ready share its connection; without one
// (a fresh machine) the same limit is counted in process and /ready says so.
describe("/ready and the rate limiter share the process's Redis connection, or the process when there is none", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 1, exportPerHour: 20 } })
  })
  afterAll(() => server.close())

  // Defined, never skipped: which of the two depends on whether the run has a Redis.
  const inProcess = testRedisUrl() === undefined
  if (inProcess)
    it("without Redis, /ready reports in-process windows and the limit still holds", async () => {
      const account = await createAccount(server)
      const list = () =>
        request(api(server, "/api/v1/tenders", { companyId: account.companyId }), { token: account.key })
      expect((await list()).status).toBe(200)
      expect((await list()).status).toBe(429)
      const ready = await request(`${server.baseUrl}/ready`)
      expect(ready.status).toBe(200)
      expect(ready.body.checks.redis).toBe("in-process")
    })

  if (!inProcess)
    it("once that connection is lost, /ready answers 503 and the limiter lets requests through", async () => {
      const account = await createAccount(server)
      const list = () =>
        request(api(server, "/api/v1/tenders", { companyId: account.companyId }), { token: account.key })
      expect((await list()).status).toBe(200)
      // The window is counted in Redis.
      expect((await list()).status).toBe(429)

      await server.run(
        Effect.flatMap(RedisConnection, (redis) => Effect.sync(() => Option.getOrThrow(redis).disconnect()))
      )

      const ready = await request(`${server.baseUrl}/ready`)
      expect(ready.status).toBe(503)
      expect(ready.body.code).toBe("SERVICE_UNAVAILABLE")
      expect(ready.body.details).toEqual([{ path: "redis", message: "Redis did not answer" }])
      // The limiter counted on the same connection: its store is now unreachable, so it fails open.
      expect((await list()).status).toBe(200)
    })
})
