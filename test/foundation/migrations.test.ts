import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { databaseUrl } from "../support/databaseNames.js"
import { expectJson, PROJECT_ROOT, runCli } from "./processes.js"

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
})
