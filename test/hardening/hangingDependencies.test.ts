import { connect, createServer, type Server, type Socket } from "node:net"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Either, Redacted } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pingDatabase } from "../../src/infra/db/Database.js"
import { PgLive, PgPool } from "../../src/infra/db/PgPool.js"
import { isDatabaseUnavailable } from "../../src/infra/db/Unavailable.js"
import {
  apiUp,
  eventually,
  freePort,
  type OwnPostgres,
  type OwnRedis,
  pause,
  type ServiceProcess,
  seedAccount,
  spawnService,
  startOwnPostgres,
  startOwnRedis,
  stopProcess
} from "./OwnServers.js"

/**
 * A dependency that hangs rather than fails (it accepts the connection, then goes quiet): the API
 * still answers within a bound (503, or a rate limit failing open), and a start fails with its one
 * line. Real processes (src/bin/api.ts, src/bin/worker.ts) against a PostgreSQL and a Redis this file
 * owns (never the machine's shared ones); a request held for ever shows as "no answer" (status 0).
 */

interface Answer {
  readonly status: number
  readonly body: unknown
  readonly ms: number
}

/** A GET that gives up after `seconds` (status 0: no answer by then). */
const get = async (url: string, key: string, seconds: number): Promise<Answer> => {
  const started = Date.now()
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(seconds * 1000)
    })
    const body: unknown = await res.json().catch(() => null)
    return { status: res.status, body, ms: Date.now() - started }
  } catch (error) {
    return { status: 0, body: String(error), ms: Date.now() - started }
  }
}

/** POST /api/v1/auth/login for an unknown e-mail, giving up after `seconds`. */
const postLogin = async (baseUrl: string, seconds: number): Promise<Answer> => {
  const started = Date.now()
  try {
    const res = await fetch(`${baseUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "nobody@example.com", password: "wrong-password" }),
      signal: AbortSignal.timeout(seconds * 1000)
    })
    const body: unknown = await res.json().catch(() => null)
    return { status: res.status, body, ms: Date.now() - started }
  } catch (error) {
    return { status: 0, body: String(error), ms: Date.now() - started }
  }
}

/** GET /ready's status (0: no answer within 10 s). */
const ready = (baseUrl: string) =>
  fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(10_000) }).then(
    (res) => res.status,
    () => 0
  )

/** A TCP server that accepts connections and never writes a byte (a hung Redis). */
const silentServer = async () => {
  const sockets: Array<Socket> = []
  const server: Server = createServer((socket) => {
    sockets.push(socket)
    socket.on("error", () => {})
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}

/**
 * A TCP proxy to `targetPort` that can be frozen: it keeps every socket open but drops what either
 * side sends (the network to the server gone quiet), until thawed.
 */
const freezableProxy = async (targetPort: number) => {
  let frozen = false
  const pairs: Array<[Socket, Socket]> = []
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1")
    pairs.push([client, upstream])
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
    client.on("data", (chunk) => {
      if (!frozen) upstream.write(chunk)
    })
    upstream.on("data", (chunk) => {
      if (!frozen) client.write(chunk)
    })
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    port,
    freeze: () => {
      frozen = true
    },
    thaw: () => {
      frozen = false
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy()
          b.destroy()
        }
        server.close(() => resolve())
      })
  }
}

const query = async (url: string, text: string, values: Array<unknown> = []) => {
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    return (await db.query(text, values)).rows
  } finally {
    await db.end()
  }
}

/** `url` with its port replaced (through a proxy). */
const viaPort = (url: string, port: number) => {
  const parsed = new URL(url)
  parsed.port = String(port)
  return parsed.toString()
}

const UNIFORM_503 = { statusCode: 503, code: "SERVICE_UNAVAILABLE", message: expect.any(String) }

describe("a dependency that hangs", () => {
  let database: OwnPostgres
  const processes: Array<ServiceProcess> = []
  const spawned = (which: "api" | "worker", env: Record<string, string>) => {
    const p = spawnService(which, env)
    processes.push(p)
    return p
  }
  const startApi = async (env: Record<string, string> = {}) => {
    const port = await freePort()
    const api = spawned("api", { DATABASE_URL: database.url, PORT: String(port), ...env })
    const baseUrl = `http://127.0.0.1:${port}`
    await apiUp(baseUrl)
    return { api, baseUrl }
  }

  beforeAll(async () => {
    database = await startOwnPostgres()
  }, 120_000)

  afterAll(async () => {
    for (const p of processes) await stopProcess(p.child, "SIGKILL")
    await database.destroy()
  }, 60_000)

  it("Redis that stops answering (frozen after the start): a key API request and a login are still answered within 10 s (rate limits and login locks fail open), not held", async () => {
    const redis: OwnRedis = await startOwnRedis()
    try {
      const { api, baseUrl } = await startApi({ REDIS_URL: redis.url })
      const account = await seedAccount(database.url)
      const url = `${baseUrl}/api/v1/tenders?companyId=${account.companyId}&limit=1`
      expect((await get(url, account.key, 10)).status).toBe(200)

      // The TCP connection stays up; the server never answers again (a hung or overloaded Redis).
      redis.freeze()
      // /ready notices within its 1 s ping timeout...
      expect(await ready(baseUrl)).toBe(503)
      // ...and the rate limiter's script and the login lock's reads and writes give up as soon.
      const [answer, login] = await Promise.all([get(url, account.key, 20), postLogin(baseUrl, 20)])
      expect(answer.status, `key API answered after ${answer.ms} ms: ${JSON.stringify(answer.body)}`).not.toBe(0)
      expect([200, 503]).toContain(answer.status)
      expect(answer.ms).toBeLessThan(10_000)
      // A failed login (unknown e-mail): 401 (lock store failing open) or 503, within the bound.
      expect(login.status, `login answered after ${login.ms} ms: ${JSON.stringify(login.body)}`).not.toBe(0)
      expect([401, 503]).toContain(login.status)
      expect(login.ms).toBeLessThan(10_000)
      expect(api.output()).toContain("Rate-limit store unavailable; request allowed")

      // Answering again: ready again, nothing left behind.
      redis.thaw()
      await eventually(async () => ((await ready(baseUrl)) === 200 ? true : undefined), 30)
      expect((await get(url, account.key, 10)).status).toBe(200)
      await stopProcess(api.child, "SIGKILL")
    } finally {
      redis.thaw()
      await redis.kill()
    }
  }, 180_000)

  it("REDIS_URL naming a server that accepts and never answers: the API and a worker exit 1 within 30 s saying `Cannot connect to Redis at REDIS_URL`", async () => {
    const silent = await silentServer()
    try {
      const env = { DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${silent.port}` }
      const api = spawned("api", { ...env, PORT: String(await freePort()) })
      const worker = spawned("worker", env)
      for (const service of [api, worker]) {
        const code = await Promise.race([service.exited, pause(30_000).then(() => "still running after 30 s" as const)])
        expect(code, service.output()).toBe(1)
        expect(service.output()).toContain(`Cannot connect to Redis at REDIS_URL (127.0.0.1:${silent.port})`)
      }
    } finally {
      await silent.close()
    }
  }, 120_000)

  it("a key API request blocked by a lock (tender_scores held by another session): answered 503 with the uniform body at the request pool's lock timeout, not held", async () => {
    const { api, baseUrl } = await startApi()
    const account = await seedAccount(database.url)
    const url = `${baseUrl}/api/v1/tenders?companyId=${account.companyId}&limit=1`
    expect((await get(url, account.key, 10)).status).toBe(200)

    // A migration of a rolling deploy, or an operator's ALTER, holding the table.
    const holder = new pg.Client({ connectionString: database.url })
    await holder.connect()
    try {
      await holder.query("BEGIN")
      await holder.query("LOCK TABLE tender_scores IN ACCESS EXCLUSIVE MODE")
      const answer = await get(url, account.key, 40)
      const waiting = await query(
        database.url,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'tender-scoring-service' AND wait_event_type = 'Lock'"
      )
      expect(answer.status, `after ${answer.ms} ms; API statements waiting on a lock: ${waiting[0].n}`).toBe(503)
      expect(answer.body).toEqual(UNIFORM_503)
      // REQUEST_LOCK_TIMEOUT (5 s), not the statement timeout.
      expect(answer.ms).toBeLessThan(14_000)
      // The waiting statement was cancelled with its request: nothing of the API waits on the lock any more.
      expect(waiting[0].n).toBe(0)
    } finally {
      await holder.query("ROLLBACK").catch(() => {})
      await holder.end()
    }
    expect((await get(url, account.key, 10)).status).toBe(200)
    await stopProcess(api.child, "SIGKILL")
  }, 180_000)

  it("PostgreSQL that stops answering (the network to it frozen): a key API request is answered 503 within 30 s, not held; thawed, the API serves again", async () => {
    const proxy = await freezableProxy(Number(new URL(database.url).port))
    try {
      const { api, baseUrl } = await startApi({ DATABASE_URL: viaPort(database.url, proxy.port) })
      const account = await seedAccount(database.url)
      const url = `${baseUrl}/api/v1/tenders?companyId=${account.companyId}&limit=1`
      expect((await get(url, account.key, 10)).status).toBe(200)

      proxy.freeze()
      // /ready's ping has a 2 s timeout...
      expect(await ready(baseUrl)).toBe(503)
      // ...and a request's statements the request pool's limits (no answer: REQUEST_READ_TIMEOUT, 20 s).
      const answer = await get(url, account.key, 40)
      expect(answer.status, `after ${answer.ms} ms: ${JSON.stringify(answer.body)}`).toBe(503)
      expect(answer.body).toEqual(UNIFORM_503)
      expect(answer.ms).toBeLessThan(30_000)
      expect(await ready(baseUrl)).toBe(503)

      // The connections whose statements went unanswered were closed, not handed out again: once the
      // network answers, every request is served at once.
      proxy.thaw()
      await eventually(async () => ((await ready(baseUrl)) === 200 ? true : undefined), 30)
      for (let i = 0; i < 5; i++) {
        const again = await get(url, account.key, 10)
        expect(again.status, `after ${again.ms} ms: ${JSON.stringify(again.body)}`).toBe(200)
        expect(again.ms).toBeLessThan(5_000)
      }
      await stopProcess(api.child, "SIGKILL")
    } finally {
      await proxy.close()
    }
  }, 180_000)

  it("a pool with statement limits: a lock wait, a slow statement and an unanswered one each fail within their limit as 'database unavailable'; /ready's pings do not drain the pool", async () => {
    const proxy = await freezableProxy(Number(new URL(database.url).port))
    await query(database.url, "CREATE TABLE IF NOT EXISTS hang_probe (id int)")
    const holder = new pg.Client({ connectionString: database.url })
    await holder.connect()
    /** Runs `effect`, giving its failure and how long it took. */
    const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const started = Date.now()
        const result = yield* Effect.either(effect)
        return { result, ms: Date.now() - started }
      })
    const expectUnavailableWithin = (
      outcome: { readonly result: Either.Either<unknown, unknown>; readonly ms: number },
      ms: number
    ) => {
      expect(Either.isLeft(outcome.result), `${outcome.ms} ms`).toBe(true)
      if (Either.isLeft(outcome.result)) expect(isDatabaseUnavailable(outcome.result.left)).toBe(true)
      expect(outcome.ms).toBeLessThan(ms)
    }
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const pool = yield* PgPool
          // Three connections open and idle, as a pool that has served a while.
          yield* Effect.all(
            [1, 2, 3].map(() => sql`SELECT pg_sleep(0.05)`),
            { concurrency: 3 }
          )

          // lock_timeout: SQLSTATE 55P03.
          yield* Effect.promise(() => holder.query("BEGIN"))
          yield* Effect.promise(() => holder.query("LOCK TABLE hang_probe IN ACCESS EXCLUSIVE MODE"))
          expectUnavailableWithin(yield* timed(sql`SELECT count(*) FROM hang_probe`), 4_000)
          yield* Effect.promise(() => holder.query("ROLLBACK"))

          // statement_timeout: SQLSTATE 57014.
          expectUnavailableWithin(yield* timed(sql`SELECT pg_sleep(10)`), 5_000)

          /** Every connection of the pool at once, three times: each statement answered at once. */
          const allServed = Effect.gen(function* () {
            for (let round = 0; round < 3; round++) {
              const outcomes = yield* Effect.all(
                [1, 2, 3].map(() => timed(sql`SELECT 1 AS one`)),
                { concurrency: 3 }
              )
              for (const outcome of outcomes) {
                expect(outcome.result).toEqual(Either.right([{ one: 1 }]))
                expect(outcome.ms).toBeLessThan(2_000)
              }
            }
          })

          // query_timeout ("Query read timeout"), through @effect/sql and straight on the pool.
          proxy.freeze()
          expectUnavailableWithin(yield* timed(Effect.tryPromise(() => pool.query("SELECT 1"))), 8_000)
          expectUnavailableWithin(yield* timed(sql`SELECT 1`), 8_000)
          // The network back: the connection whose statement went unanswered was closed, not handed
          // out again (the next statement would have waited behind that one for its read timeout).
          proxy.thaw()
          yield* allServed

          // More pings than the pool has connections: each answers at its 2 s bound...
          proxy.freeze()
          const pings = yield* Effect.all(
            Array.from({ length: 6 }, () => timed(pingDatabase)),
            { concurrency: "unbounded" }
          )
          for (const ping of pings) {
            expect(Either.isLeft(ping.result)).toBe(true)
            expect(ping.ms).toBeLessThan(4_000)
          }
          // ...and leave no connection behind: once the connections opened while frozen reach their
          // 5 s connect timeout, the pool serves as before.
          proxy.thaw()
          const first = yield* timed(sql`SELECT 1 AS one`)
          expect(first.result).toEqual(Either.right([{ one: 1 }]))
          expect(first.ms).toBeLessThan(8_000)
          yield* allServed
          expect(Either.isRight((yield* timed(pingDatabase)).result)).toBe(true)
        }).pipe(
          Effect.provide(
            PgLive({
              url: Redacted.make(viaPort(database.url, proxy.port)),
              maxConnections: 3,
              lockTimeout: Duration.millis(500),
              statementTimeout: Duration.seconds(1),
              readTimeout: Duration.seconds(3)
            })
          ),
          Effect.scoped
        )
      )
    } finally {
      await holder.query("ROLLBACK").catch(() => {})
      await holder.end()
      await proxy.close()
    }
  }, 120_000)
})
