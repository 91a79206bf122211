import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import pg from "pg"
import { afterAll, beforeAll, inject } from "vitest"
import { projectFile } from "../../src/infra/config/ProjectFiles.js"
import { databaseUrl } from "./databaseNames.js"

const MIGRATIONS = projectFile("migrations")
const files = readdirSync(MIGRATIONS)
  .filter((f) => f.endsWith(".sql"))
  .sort()

/**
 * A database of this test file migrated up to the migration numbered `number` (e.g. "0024"), not
 * included, for a test of what that migration does to existing rows: `db` is connected before the
 * tests run, `migrate` applies the migration, and the database is dropped after the file.
 */
export const databaseBeforeMigration = (number: string) => {
  const admin = new pg.Client({ connectionString: inject("adminDatabaseUrl") })
  const name = `${inject("runDatabasePrefix")}m${number}_${randomBytes(4).toString("hex")}`
  const db = new pg.Client({ connectionString: databaseUrl(inject("adminDatabaseUrl"), name) })
  const migration = files.find((f) => f.startsWith(number))!

  beforeAll(async () => {
    await admin.connect()
    await admin.query(`CREATE DATABASE "${name}"`)
    await db.connect()
    for (const file of files.filter((f) => f < number)) await db.query(readFileSync(`${MIGRATIONS}/${file}`, "utf8"))
  })
  afterAll(async () => {
    await db.end().catch(() => undefined)
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.end()
  })

  return { db, migrate: () => db.query(readFileSync(`${MIGRATIONS}/${migration}`, "utf8")) }
}
