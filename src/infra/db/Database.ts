import { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, type Redacted } from "effect"
import type pg from "pg"
import { AppConfig } from "../config/AppConfig.js"
import { startEmbeddedPostgres } from "./EmbeddedPostgres.js"
import { PgLive, ReadPoolLive, type StatementLimits } from "./PgPool.js"

/** The database the embedded cluster creates and serves. */
export const EMBEDDED_DATABASE = "tenders"

/**
 * The process's PostgreSQL: DATABASE_URL, or (when it is unset) an embedded PostgreSQL started under
 * the data folder for the life of the layer. Every pool of the process connects to it.
 */
export class DatabaseUrl extends Context.Tag("DatabaseUrl")<DatabaseUrl, Redacted.Redacted>() {}

export const DatabaseUrlLive = Layer.scoped(
  DatabaseUrl,
  Effect.gen(function* () {
    const config = yield* AppConfig
    return yield* Option.match(config.databaseUrl, {
      onSome: Effect.succeed,
      onNone: () =>
        startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, database: EMBEDDED_DATABASE })
    })
  })
)

/** A pool on the primary: its size, its name in `pg_stat_activity`, its statements' time limits. */
export interface PrimaryPool extends StatementLimits {
  readonly maxConnections: number
  readonly applicationName: string
  /**
   * Whether DATABASE_READ_URL's replica is opened beside it: only for the HTTP requests, whose list
   * pages read it. A worker or a CLI command reads nothing there, so it neither opens it nor stops
   * when the replica does not answer.
   */
  readonly withReadReplica?: boolean
}

/**
 * PgClient + SqlClient (+ the PgPool under them) over a pool on DatabaseUrl; and, for a pool
 * `withReadReplica` when DATABASE_READ_URL names a replica, the ReadPool of the list pages, with the
 * same limits.
 */
export const poolsLive = ({ withReadReplica = false, ...pool }: PrimaryPool) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const url = yield* DatabaseUrl
      const { maxConnections: _, applicationName: __, ...limits } = pool
      const primary = PgLive({ url, ...pool })
      const readUrl = withReadReplica ? config.databaseReadUrl : Option.none()
      return Option.match(readUrl, {
        onNone: () => primary,
        onSome: (readUrl) => Layer.merge(primary, ReadPoolLive({ url: readUrl, maxConnections: 20, ...limits }))
      })
    })
  )

/** `poolsLive` on a DatabaseUrl of its own (the CLI: one pool for the whole process). */
export const databaseLive = (pool: PrimaryPool) => poolsLive(pool).pipe(Layer.provide(DatabaseUrlLive))

/**
 * The longest a request's statement waits for a lock: a migration of a rolling deploy or an
 * operator's ALTER holding a table would otherwise hold every request that reads it (and its
 * connection) for as long as it runs. A request's own locks (a tenant's credit row, a webhook being
 * updated) are held for milliseconds.
 */
export const REQUEST_LOCK_TIMEOUT = Duration.seconds(5)

/**
 * The longest a request's statement runs. The API's statements take milliseconds (p99 1.6 s at 70%
 * of capacity on two cores, an export page of 1,000 rows included: BENCHMARKS.md, "Reliability").
 */
export const REQUEST_STATEMENT_TIMEOUT = Duration.seconds(15)

/**
 * The longest the API waits for any answer to a request's statement (the network to PostgreSQL gone:
 * no cancel, no error ever comes). Above REQUEST_STATEMENT_TIMEOUT, so that a statement that is only
 * slow is cancelled by the server and leaves its connection usable.
 */
export const REQUEST_READ_TIMEOUT = Duration.seconds(20)

/**
 * The pool of the HTTP requests (the API process, and the API inside `npm start`): every statement
 * under the limits above, each failure past them answered 503 SERVICE_UNAVAILABLE (Unavailable.ts).
 * A pool of its own, because the limits are the pool's connection settings.
 */
export const RequestDatabaseLive = poolsLive({
  maxConnections: 20,
  applicationName: "tender-scoring-service",
  withReadReplica: true,
  lockTimeout: REQUEST_LOCK_TIMEOUT,
  statementTimeout: REQUEST_STATEMENT_TIMEOUT,
  readTimeout: REQUEST_READ_TIMEOUT
})

/**
 * The pool of everything else: migrations, the worker's jobs (a backfill runs for hours; scoring
 * batches, partition and retention maintenance wait for their locks), the demo seed. No time limit:
 * the statements that must not wait for ever set their own (`SET LOCAL lock_timeout`).
 */
export const BackgroundDatabaseLive = poolsLive({ maxConnections: 20, applicationName: "tender-scoring-service" })

/** Succeeds when PostgreSQL answers within two seconds (the readiness check). */
export const pingDatabase = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
  // Answered at the bound: the statement's cancel (when the server does not answer) goes on behind it.
  Effect.disconnect,
  Effect.timeout(Duration.seconds(2)),
  Effect.asVoid
)

/** Succeeds when the read replica's pool (ReadPool) answers within two seconds, as pingDatabase (the readiness check). */
export const pingReadPool = (pool: pg.Pool) =>
  // Answered at the bound: `pg` cannot cancel the query, which ends behind it (the pool's read timeout).
  Effect.tryPromise(() => pool.query("SELECT 1")).pipe(Effect.timeout(Duration.seconds(2)), Effect.asVoid)
