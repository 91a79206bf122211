import { PgClient } from "@effect/sql-pg"
import chromium from "@sparticuz/chromium"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { buildServerBundle } from "../../scripts/build-server.mjs"
import { buildWeb } from "../../scripts/build-web.mjs"
import { migrate } from "../../src/infra/DatabaseSetup.js"
import { startEmbeddedPostgres } from "../../src/infra/db/EmbeddedPostgres.js"
import { databaseUrl, TEST_DB_PREFIX } from "./databaseNames.js"
import { findTestRedis } from "./findTestRedis.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A URL on the test server with rights to create databases. */
    adminDatabaseUrl: string
    /** A migrated database that each test file clones. */
    templateDatabase: string
    /** Prefix of every database this run creates (unique per run, so parallel runs never collide). */
    runDatabasePrefix: string
  }
}

/**
 * Runs once per `npm test`: the PostgreSQL named by DATABASE_URL, or (when it is unset) an
 * embedded one under `.data/test-pg`; then one migrated template database for the run.
 */
export default async function setup(project: TestProject) {
  // Inflate the shipped Chromium once, before test files race to do it in parallel.
  if (!process.env.CHROMIUM_PATH) await chromium.executablePath()
  // The browser tests drive the app as served from dist/web: build it once (a no-op when up to date).
  await buildWeb()
  // The CLI and process tests run the CLI and the services as `npm run cli` / `npm run api` … do, from
  // their bundles: build them once (a no-op when up to date), not in each test's process at once.
  for (const entryPoint of ["cli", "api", "worker", "all-in-one"]) await buildServerBundle(entryPoint)
  const scope = Effect.runSync(Scope.make())
  const adminUrl = process.env.DATABASE_URL
    ? process.env.DATABASE_URL
    : Redacted.value(
        await Effect.runPromise(
          startEmbeddedPostgres({
            dataDir: ".data/test",
            port: Number(process.env.TEST_EMBEDDED_PG_PORT ?? 54339),
            database: "postgres"
          }).pipe(Scope.extend(scope))
        )
      )
  const runPrefix = `${TEST_DB_PREFIX}${process.pid}_`
  const template = `${runPrefix}template`
  const admin = (statement: string) =>
    Effect.runPromise(
      Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl) })),
        Effect.scoped
      )
    )
  await admin(`DROP DATABASE IF EXISTS "${template}"`)
  await admin(`CREATE DATABASE "${template}"`)
  await Effect.runPromise(
    migrate.pipe(
      Effect.provide(Layer.orDie(PgClient.layer({ url: Redacted.make(databaseUrl(adminUrl, template)) }))),
      Effect.scoped
    )
  )
  project.provide("adminDatabaseUrl", adminUrl)
  project.provide("templateDatabase", template)
  project.provide("runDatabasePrefix", runPrefix)
  project.provide("redisUrl", await findTestRedis())

  return async () => {
    const leftovers = await Effect.runPromise(
      Effect.flatMap(
        PgClient.PgClient,
        (sql) => sql<{ datname: string }>`SELECT datname FROM pg_database WHERE datname LIKE ${`${runPrefix}%`}`
      ).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl) })), Effect.scoped)
    )
    for (const { datname } of leftovers) await admin(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
