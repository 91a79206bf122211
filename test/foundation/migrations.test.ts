import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { freePort } from "../hardening/OwnServers.js"
import { databaseUrl } from "../support/databaseNames.js"
import { expectJson, expectOneLineFailure, PROJECT_ROOT, runCli, runEntryPoint } from "./processes.js"

const admin = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.scoped
    )
  )

/** Migrations on an EMPTY database (not the migrated template): twice at once, then again. */
describe("migrations", () => {
  const name = `${inject("runDatabasePrefix")}empty_${randomBytes(4).toString("hex")}`
  const url = databaseUrl(inject("adminDatabaseUrl"), name)
  const files = fs
    .readdirSync(path.join(PROJECT_ROOT, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort()

  beforeAll(() => admin(inject("adminDatabaseUrl"), `CREATE DATABASE "${name}"`))
  afterAll(() => admin(inject("adminDatabaseUrl"), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))

  it("two processes migrating at once apply each file exactly once; a later run applies nothing", async () => {
    const [first, second] = (await Promise.all([runCli(url, "migrate"), runCli(url, "migrate")])).map(expectJson)
    const applied: Array<string> = [...first.applied, ...second.applied]
    // One of them did all the work under the lock; the other found nothing left to do.
    expect(applied.sort()).toEqual(files)
    expect([first.applied.length, second.applied.length].sort()).toEqual([0, files.length])

    const rows = await admin(url, "SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name ORDER BY name")
    expect(rows).toEqual(files.map((file) => ({ name: file, n: 1 })))
    const [cpv] = await admin(url, "SELECT count(*)::int AS n FROM cpv_codes")
    expect(cpv).toEqual({ n: 9454 })

    expect(expectJson(await runCli(url, "migrate"))).toEqual({ applied: [] })
    const [again] = await admin(url, "SELECT count(*)::int AS n FROM cpv_codes")
    expect(again).toEqual({ n: 9454 })
  })

  it("a migration that fails names its file and PostgreSQL's reason, from the API, the worker and `migrate` alike", async () => {
    const name = `${inject("runDatabasePrefix")}failing_${randomBytes(4).toString("hex")}`
    const url = databaseUrl(inject("adminDatabaseUrl"), name)
    await admin(inject("adminDatabaseUrl"), `CREATE DATABASE "${name}"`)
    try {
      // A table left by hand (or a half-restored dump): 0001_accounts.sql cannot create it.
      await admin(url, "CREATE TABLE tenants (x int)")
      const [api, worker, cli] = await Promise.all([
        runEntryPoint("api", { DATABASE_URL: url, REDIS_URL: "", PORT: String(await freePort()) }),
        runEntryPoint("worker", { DATABASE_URL: url, REDIS_URL: "" }),
        runCli(url, "migrate")
      ])
      const reason = 'Migration 0001_accounts.sql failed: relation "tenants" already exists'
      expect(expectOneLineFailure(api)).toBe(reason)
      expect(expectOneLineFailure(worker)).toBe(reason)
      expect(expectOneLineFailure(cli)).toBe(`Database error: ${reason}`)
      // One transaction: nothing of the run is left behind.
      expect(await admin(url, "SELECT to_regclass('schema_migrations') AS t")).toEqual([{ t: null }])
    } finally {
      await admin(inject("adminDatabaseUrl"), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    }
  })
})
