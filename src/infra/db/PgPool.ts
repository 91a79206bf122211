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

/** A `pg` pool of `maxConnections`, ended with the scope; fails (as PgClient.layer does) when the server cannot be reached. */
const acquirePool = (
  options: PoolOptions & {
    /** The variable the URL came from, named when the server cannot be reached. */
    readonly variable?: string
  }
) =>
  Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new pg.Pool({
          connectionString: Redacted.value(options.url),
          max: options.maxConnections,
          application_name: options.applicationName ?? "tender-scoring-service",
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
        pool.on("release", (error, client) => {
          if (!error && stillBusy(client)) void client.end().catch(() => {})
        })
        return pool
      }),
      // Interruptible: a finalizer runs uninterruptibly, where the timeout could never cut a close
      // held by a statement still running (the pool waits for its clients).
      (pool) => Effect.interruptible(Effect.promise(() => pool.end())).pipe(Effect.timeoutOption("1 second"))
    )
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
