import * as fs from "node:fs/promises"
import * as path from "node:path"
import { SqlClient, SqlError } from "@effect/sql"
import { Effect, Schema } from "effect"
import { projectFile } from "../config/ProjectFiles.js"
import { driverReason } from "./SqlFailure.js"

const MIGRATIONS_DIR = projectFile("migrations")
// Any constant will do; it only has to be the same in every process.
const MIGRATION_LOCK = 7_246_813

const AppliedRow = Schema.Struct({ name: Schema.String })
const decodeApplied = Schema.decodeUnknown(Schema.Array(AppliedRow))

/**
 * Applies the SQL files of `migrations/` that this database has not seen, in name order, each
 * recorded in `schema_migrations`, then runs `loadReferenceData` (a capability's tables that ship
 * with the service, such as the CPV table; composed in infra/DatabaseSetup). Everything runs in one
 * transaction under an advisory lock, so two processes starting at once apply each migration
 * exactly once and the loser sees the winner's result.
 */
export const applyMigrations = <E, R>(loadReferenceData: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const files = (yield* Effect.promise(() => fs.readdir(MIGRATIONS_DIR))).filter((f) => f.endsWith(".sql")).sort()

    return yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
        yield* sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`
        const recorded = yield* sql`SELECT name FROM schema_migrations`.pipe(
          Effect.flatMap((rows) => Effect.orDie(decodeApplied(rows)))
        )
        const done = new Set(recorded.map((r) => r.name))
        const applied: Array<string> = []
        for (const file of files) {
          if (done.has(file)) continue
          const text = yield* Effect.promise(() => fs.readFile(path.join(MIGRATIONS_DIR, file), "utf8"))
          yield* sql.unsafe(text).pipe(
            // Which file failed and why: the one line a process that cannot start prints.
            Effect.mapError(
              (cause) =>
                new SqlError.SqlError({
                  cause,
                  message: `Migration ${file} failed: ${driverReason(cause) ?? cause.message}`
                })
            )
          )
          yield* sql`INSERT INTO schema_migrations (name) VALUES (${file})`
          applied.push(file)
        }
        yield* loadReferenceData
        return applied
      })
    )
  })
