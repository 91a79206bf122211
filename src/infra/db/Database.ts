import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Option } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { startEmbeddedPostgres } from "./EmbeddedPostgres.js"
import { PgLive, ReadPoolLive } from "./PgPool.js"

/** The database the embedded cluster creates and serves. */
export const EMBEDDED_DATABASE = "tenders"

/** The process's pool on the primary: its size, its name in `pg_stat_activity`, its statements' lock wait limit. */
export interface PrimaryPool {
  readonly maxConnections: number
  readonly applicationName: string
  readonly lockTimeout?: Duration.Duration
}

/**
 * PgClient + SqlClient (+ the PgPool under them) for the whole process: the server named by DATABASE_URL, or (when it is
 * unset) an embedded PostgreSQL started under the data folder for the life of the layer; and, when
 * DATABASE_READ_URL names a replica, the ReadPool of the list pages.
 */
export const databaseLive = (pool: PrimaryPool) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const url = yield* Option.match(config.databaseUrl, {
        onSome: Effect.succeed,
        onNone: () =>
          startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, database: EMBEDDED_DATABASE })
      })
      const primary = PgLive({ url, ...pool })
      return Option.match(config.databaseReadUrl, {
        onNone: () => primary,
        onSome: (readUrl) => Layer.merge(primary, ReadPoolLive({ url: readUrl, maxConnections: 20 }))
      })
    })
  )

/** The API's and the worker's database (no lock wait limit: their own statements set one where they need it). */
export const DatabaseLive = databaseLive({ maxConnections: 20, applicationName: "tender-scoring-service" })

/** Succeeds when PostgreSQL answers within two seconds (the readiness check). */
export const pingDatabase = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
  Effect.timeout(Duration.seconds(2)),
  Effect.asVoid
)
