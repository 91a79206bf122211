import { randomBytes } from "node:crypto"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { inject } from "vitest"
import { PgLive } from "../../src/infra/db/PgPool.js"
import { databaseUrl } from "./databaseNames.js"

/** The URL of this test file's own database (for spawning processes against it). */
export class TestDatabaseUrl extends Context.Tag("TestDatabaseUrl")<TestDatabaseUrl, string>() {}

const adminStatement = (statement: string) =>
  Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(inject("adminDatabaseUrl")), maxConnections: 1 })),
    Effect.scoped,
    Effect.orDie
  )

/** A fresh database cloned from the run's migrated template, dropped when the scope closes. */
export const freshDatabase = Effect.acquireRelease(
  Effect.gen(function* () {
    const name = `${inject("runDatabasePrefix")}${randomBytes(6).toString("hex")}`
    yield* adminStatement(`CREATE DATABASE "${name}" TEMPLATE "${inject("templateDatabase")}"`)
    return { name, url: databaseUrl(inject("adminDatabaseUrl"), name) }
  }),
  ({ name }) => adminStatement(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
)

/** SqlClient + PgClient (+ PgPool) on a fresh, migrated database of this test file, plus its URL. */
export const TestDatabaseLive = Layer.unwrapScoped(
  Effect.map(freshDatabase, ({ url }) =>
    Layer.merge(PgLive({ url: Redacted.make(url), maxConnections: 10 }), Layer.succeed(TestDatabaseUrl, url))
  )
).pipe(Layer.orDie)
