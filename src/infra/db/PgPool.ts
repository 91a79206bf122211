import { SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import pg from "pg"

/** The `pg` pool under the process's PgClient; `PgLive` provides both, so they share the connections. */
export class PgPool extends Context.Tag("PgPool")<PgPool, pg.Pool>() {}

/**
 * The pool of a read replica (DATABASE_READ_URL), for the reads that may lag the primary by the
 * replication delay (the key API's list pages). Optional: where none is provided they read PgPool.
 */
export class ReadPool extends Context.Tag("ReadPool")<ReadPool, pg.Pool>() {}

/** Time limits of every statement of a pool; each unset: no limit. */
export interface StatementLimits {
  /** The longest a statement waits for a lock (PostgreSQL's `lock_timeout`; SQLSTATE 55P03 past it). */
  readonly lockTimeout?: Duration.Duration
  /** The longest a statement runs (PostgreSQL's `statement_timeout`; SQLSTATE 57014 past it). */
  readonly statementTimeout?: Duration.Duration
  /**
   * The longest the client waits for a statement's answer (`pg`'s `query_timeout`, "Query read
   * timeout"): what is left when the server cannot answer at all (the network to it gone). Keep it
   * above `statementTimeout`, so that a slow statement is cancelled by the server first.
   */
  readonly readTimeout?: Duration.Duration
}

/** A pool's options: its server, size, name in `pg_stat_activity` and statement limits. */
export interface PoolOptions extends StatementLimits {
  readonly url: Redacted.Redacted
  readonly maxConnections: number
  readonly applicationName?: string
}

/**
 * Whether a connection handed back to the pool is still waiting for a statement's answer: its read
 * timeout fired (the caller was answered with the error, the statement is still on the wire), or its
 * caller was interrupted (@effect/sql-pg sends a cancel, then releases it without waiting for the
 * statement to end). `pg` would hand it out again and queue the next statement behind that one, which
 * on a dead network never ends. `pg` 8 has no public accessor for this (`activeQuery` is deprecated).
 */
const stillBusy = (client: pg.PoolClient) =>
  (client as unknown as { _getActiveQuery?: () => unknown })._getActiveQuery?.() != null

/** The server process of a connection (what `pg_cancel_backend` names); `pg` 8 does not type it. */
const backendOf = (client: pg.PoolClient) => (client as unknown as { processID?: number }).processID

const CANCEL_STATEMENT = /^SELECT pg_cancel_backend\((\d+)\)$/

/**
 * @effect/sql-pg stops an interrupted statement with `SELECT pg_cancel_backend(pid)` sent through the
 * pool, and hands the statement's connection back as soon as the statement ends, cancel or not. So
 * the cancel could wait in the pool's queue while every connection was busy, and run once that
 * connection served another statement, which it then stopped ("canceling statement due to user
 * request": a request failed for another's disconnect). Here a cancel runs at once on a connection of
 * its own (`cancels`), and the returned set names the server processes whose cancel is on its way:
 * a connection handed back meanwhile is closed, never handed out again.
 */
const cancelsOnTheirOwn = (pool: pg.Pool, cancels: pg.Pool): ReadonlySet<number> => {
  const underway = new Set<number>()
  const query = pool.query.bind(pool) as (...args: Array<unknown>) => unknown
  const ownQuery = (...args: Array<unknown>) => {
    const [text, done] = args
    const backend = typeof text === "string" ? CANCEL_STATEMENT.exec(text)?.[1] : undefined
    if (backend === undefined || typeof done !== "function" || args.length !== 2) return query(...args)
    underway.add(Number(backend))
    cancels.query(text as string, (error: Error | undefined, result: unknown) => {
      underway.delete(Number(backend))
      done(error, result)
    })
  }
  Object.assign(pool, { query: ownQuery })
  return underway
}

/** A `pg` pool of `maxConnections`, ended with the scope; fails (as PgClient.layer does) when the server cannot be reached. */
const acquirePool = (
  options: PoolOptions & {
    /** The variable the URL came from, named when the server cannot be reached. */
    readonly variable?: string
  }
) =>
  Effect.gen(function* () {
    const applicationName = options.applicationName ?? "tender-scoring-service"
    const pools = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const cancels = new pg.Pool({
          connectionString: Redacted.value(options.url),
          max: 2,
          application_name: `${applicationName}-cancel`,
          connectionTimeoutMillis: 5_000
        })
        cancels.on("error", () => {})
        const pool = new pg.Pool({
          connectionString: Redacted.value(options.url),
          max: options.maxConnections,
          application_name: applicationName,
          // A connection attempt caught by a server restart can otherwise wait forever (a request
          // hung through a PostgreSQL restart in test/hardening/faults.test.ts); bounded, it is a
          // 503 the client may retry.
          connectionTimeoutMillis: 5_000,
          // A server gone without a word (host down, network cut): the system's keepalive probes
          // start after 10 s of silence rather than its default two hours.
          keepAlive: true,
          keepAliveInitialDelayMillis: 10_000,
          ...(options.lockTimeout === undefined ? {} : { lock_timeout: Duration.toMillis(options.lockTimeout) }),
          ...(options.statementTimeout === undefined
            ? {}
            : { statement_timeout: Duration.toMillis(options.statementTimeout) }),
          ...(options.readTimeout === undefined ? {} : { query_timeout: Duration.toMillis(options.readTimeout) })
        })
        // An idle client's error (server restart) is reported on its next use, not here.
        pool.on("error", () => {})
        // Closed instead of kept: ending it here makes the pool drop it (and open a fresh one when needed).
        const cancelling = cancelsOnTheirOwn(pool, cancels)
        pool.on("release", (error, client) => {
          if (error) return
          if (stillBusy(client) || cancelling.has(backendOf(client) ?? -1)) void client.end().catch(() => {})
        })
        return { pool, cancels }
      }),
      // Interruptible: a finalizer runs uninterruptibly, where the timeout could never cut a close
      // held by a statement still running (the pool waits for its clients).
      ({ pool, cancels }) =>
        Effect.interruptible(Effect.promise(() => Promise.all([pool.end(), cancels.end()]))).pipe(
          Effect.timeoutOption("1 second")
        )
    )
    const pool = pools.pool
    const unreachable = `${options.variable ?? "DATABASE_URL"}: cannot connect to PostgreSQL`
    yield* Effect.tryPromise({
      try: () => pool.query("SELECT 1"),
      catch: (cause) =>
        new SqlError.SqlError({
          cause,
          // The reason (refused, no such database, wrong password) is what an operator acts on.
          message: `${unreachable}: ${cause instanceof Error && cause.message !== "" ? cause.message : String(cause)}`
        })
    }).pipe(
      Effect.timeoutFail({
        duration: "5 seconds",
        onTimeout: () =>
          new SqlError.SqlError({
            cause: new Error("Connection timed out"),
            message: `${unreachable}: no answer within 5 s`
          })
      })
    )
    return pool
  })

/** PgPool, PgClient and SqlClient over one pool of `maxConnections`, ended with the layer. */
export const PgLive = (options: PoolOptions) =>
  Layer.unwrapScoped(
    Effect.map(acquirePool(options), (pool) =>
      Layer.merge(Layer.succeed(PgPool, pool), PgClient.layerFromPool({ acquire: Effect.succeed(pool) }))
    )
  )

/** ReadPool over the replica at `url`, ended with the layer. */
export const ReadPoolLive = (options: PoolOptions) =>
  Layer.scoped(
    ReadPool,
    acquirePool({ ...options, applicationName: "tender-scoring-service-read", variable: "DATABASE_READ_URL" })
  )
