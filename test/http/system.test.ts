import { randomBytes } from "node:crypto"
import net from "node:net"
import { Effect, Option, Redacted } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { RedisConnection } from "../../src/infra/redis/RedisConnection.js"
import { api, createAccount } from "../api/fixtures.js"
import { databaseUrl } from "../support/databaseNames.js"
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
    // No DATABASE_READ_URL: the lists read the primary, nothing more to check.
    expect(body.checks.replica).toBe("none")
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

/** A TCP proxy to PostgreSQL that can hold the bytes it passes on: a network gone quiet (no answer, no error). */
const quietableProxy = async (target: URL) => {
  let quiet = false
  const held: Array<() => void> = []
  const sockets = new Set<net.Socket>()
  const pass = (from: net.Socket, to: net.Socket) =>
    from.on("data", (chunk) => (quiet ? held.push(() => to.write(chunk)) : to.write(chunk)))
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname)
    const close = () => {
      client.destroy()
      upstream.destroy()
    }
    for (const socket of [client, upstream]) socket.on("close", close).on("error", close)
    sockets.add(client).add(upstream)
    pass(client, upstream)
    pass(upstream, client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    silence: () => {
      quiet = true
    },
    resume: () => {
      quiet = false
      for (const write of held.splice(0)) write()
    },
    close: () => {
      for (const socket of sockets) socket.destroy()
      server.close()
    }
  }
}

describe("/ready checks the read replica (DATABASE_READ_URL) when the process has one", () => {
  // A database of its own, reached through a proxy, stands for the replica: silenced, it answers
  // nothing; dropped, its connections end and new ones are refused.
  const replica = `${inject("runDatabasePrefix")}replica_${randomBytes(4).toString("hex")}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: inject("adminDatabaseUrl") })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  let proxy: Awaited<ReturnType<typeof quietableProxy>>
  let server: TestServer
  beforeAll(async () => {
    await admin(`CREATE DATABASE "${replica}"`)
    proxy = await quietableProxy(new URL(inject("adminDatabaseUrl")))
    const url = new URL(databaseUrl(inject("adminDatabaseUrl"), replica))
    url.hostname = "127.0.0.1"
    url.port = String(proxy.port)
    server = await startTestServer({ databaseReadUrl: Option.some(Redacted.make(url.toString())) })
  })
  afterAll(async () => {
    await server?.close()
    proxy?.close()
    await admin(`DROP DATABASE IF EXISTS "${replica}" WITH (FORCE)`)
  })

  /** /ready's answer and how long it took, in seconds. */
  const ready = async () => {
    const started = Date.now()
    const answer = await request(`${server.baseUrl}/ready`)
    return { ...answer, seconds: (Date.now() - started) / 1000 }
  }
  const replicaDown = {
    statusCode: 503,
    code: "SERVICE_UNAVAILABLE",
    message: "Not ready: a dependency is unreachable",
    details: [{ path: "replica", message: "The read replica (DATABASE_READ_URL) did not answer" }]
  }

  it("ready while the replica answers; 503 naming it within seconds when it is silent or gone", async () => {
    const up = await ready()
    expect(up.status).toBe(200)
    expect(up.body.checks).toMatchObject({ database: "ok", replica: "ok" })

    // Silent: the check is bounded as the primary's is (2 s), not held by the replica.
    proxy.silence()
    const silent = await ready()
    expect(silent.status).toBe(503)
    expect(silent.body).toEqual(replicaDown)
    expect(silent.seconds).toBeLessThanOrEqual(5)
    proxy.resume()
    expect((await ready()).status).toBe(200)

    // Gone (the database does not exist any more): refused at once.
    await admin(`DROP DATABASE "${replica}" WITH (FORCE)`)
    const gone = await ready()
    expect(gone.status).toBe(503)
    expect(gone.body).toEqual(replicaDown)
    expect(gone.seconds).toBeLessThanOrEqual(5)
  })
})
