import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { describe, expect, inject, it } from "vitest"
import { PgLive } from "../../src/infra/db/PgPool.js"
import { Metrics } from "../../src/infra/metrics/Metrics.js"
import { scrapeSource } from "../../src/infra/metrics/MetricsEndpoint.js"
import { databaseUrl } from "../support/databaseNames.js"

const admin = (statement: string) =>
  Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(inject("adminDatabaseUrl")), maxConnections: 1 })),
    Effect.scoped,
    Effect.orDie
  )

/** The value of an unlabelled sample, or of the first sample of `name` whose labels contain `labels`. */
const sample = (text: string, name: string, labels = "") => {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels === "" ? " " : `{${labels}`}`))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1))
}

// The database-backed gauges of /metrics while PostgreSQL cannot be read: the scrape still answers
// with the process's own figures, the database's series are absent, and `database_up` says why
// (without it, an alert on `jobs{status="dead"}` simply stopped seeing its series).
describe("metrics while the database is away", () => {
  it("database_up is 1 with the database's series, then 0 without them once the database is gone", async () => {
    const name = `${inject("runDatabasePrefix")}outage_${randomBytes(4).toString("hex")}`
    await Effect.runPromise(admin(`CREATE DATABASE "${name}" TEMPLATE "${inject("templateDatabase")}"`))
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const metrics = yield* Metrics
          yield* Effect.acquireRelease(
            Effect.map(scrapeSource, (source) => metrics.addScrapeSource(source)),
            (remove) => Effect.sync(remove)
          )
          yield* sql`
            INSERT INTO jobs (kind, payload, status, run_at, last_error)
            VALUES ('ingest.ted-notice', '{}', 'dead', now(), 'no answer')`
          const up = yield* Effect.promise(() => metrics.registry.metrics())
          expect(sample(up, "database_up")).toBe(1)
          expect(sample(up, "jobs", 'kind="ingest.ted-notice",status="dead"')).toBe(1)

          yield* admin(`DROP DATABASE "${name}" WITH (FORCE)`)
          const down = yield* Effect.promise(() => metrics.registry.metrics())
          expect(sample(down, "database_up")).toBe(0)
          expect(sample(down, "jobs", 'kind="ingest.ted-notice"')).toBeUndefined()
          // The process's own figures are still there.
          expect(sample(down, "process_cpu_user_seconds_total")).toBeGreaterThan(0)
          expect(sample(down, "pg_pool_connections", 'state="total"')).toBeGreaterThanOrEqual(0)
        }).pipe(
          Effect.provide(
            PgLive({ url: Redacted.make(databaseUrl(inject("adminDatabaseUrl"), name)), maxConnections: 2 })
          ),
          Effect.scoped
        )
      )
    } finally {
      await Effect.runPromise(admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
    }
  })
})
