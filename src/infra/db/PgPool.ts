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

/** A `pg` pool of `maxConnections`, ended with the scope; fails (as PgClient.layer does) when the server cannot be reached. */
const acquirePool = (options: {
  readonly url: Redacted.Redacted
  readonly maxConnections: number
  readonly applicationName?: string
  /** The longest any statement of the pool waits for a lock (PostgreSQL's `lock_timeout`); unset: no limit. */
  readonly lockTimeout?: Duration.Duration
  /** The variable the URL came from, named when the server cannot be reached. */
  readonly variable?: string
}) =>
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
          keepAlive: true,
          ...(options.lockTimeout === undefined ? {} : { lock_timeout: Duration.toMillis(options.lockTimeout) })
        })
        // An idle client's error (server restart) is reported on its next use, not here.
        pool.on("error", () => {})
        return pool
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption("1 second"))
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
export const PgLive = (options: {
  readonly url: Redacted.Redacted
  readonly maxConnections: number
  readonly applicationName?: string
  readonly lockTimeout?: Duration.Duration
}) =>
  Layer.unwrapScoped(
    Effect.map(acquirePool(options), (pool) =>
      Layer.merge(Layer.succeed(PgPool, pool), PgClient.layerFromPool({ acquire: Effect.succeed(pool) }))
    )
  )

/** ReadPool over the replica at `url`, ended with the layer. */
export const ReadPoolLive = (options: { readonly url: Redacted.Redacted; readonly maxConnections: number }) =>
  Layer.scoped(
    ReadPool,
    acquirePool({ ...options, applicationName: "tender-scoring-service-read", variable: "DATABASE_READ_URL" })
  )
