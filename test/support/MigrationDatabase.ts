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

/** The migrations of model versions (`NNNN_tsm_X_Y_Z.sql`), in order. */
export const modelVersionMigrations = files.filter((f) => /^\d{4}_tsm_/.test(f))

/** A migration's SQL, by file name. */
export const migrationText = (file: string) => readFileSync(`${MIGRATIONS}/${file}`, "utf8")

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
    for (const file of files.filter((f) => f < number)) await db.query(migrationText(file))
  })
  afterAll(async () => {
    await db.end().catch(() => undefined)
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.end()
  })

  return { db, migrate: () => db.query(migrationText(migration)) }
}

/**
 * For the partition migrations' tests: a tenant with three companies, and one contract notice per
 * publication date (ids and publish dates), written with the columns every migration has had.
 */
export const seedTenantAndTenders = async (db: pg.Client, publishDates: ReadonlyArray<string>) => {
  const one = async (text: string, values: Array<unknown> = []) => (await db.query(text, values)).rows[0]
  const tenant = await one(`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`)
  const authority = await one(
    `INSERT INTO contracting_authorities (name, normalized_name) VALUES ('A', 'a') RETURNING id`
  )
  const companies = await db.query(
    `INSERT INTO companies (tenant_id, name) SELECT $1, 'C' || i FROM generate_series(1, 3) i RETURNING id`,
    [tenant.id]
  )
  const tenders: Array<{ id: string; publish_date: Date }> = []
  for (const [i, publishDate] of publishDates.entries()) {
    tenders.push(
      await one(
        `INSERT INTO tenders (source, source_notice_id, notice_type, title, main_cpv, authority_id, publish_date, source_url)
         VALUES ('t', $1, 'contract', 'Lucrări', '45233142-6', $2, $3, 'https://example.test') RETURNING id, publish_date`,
        [`n${i}`, authority.id, publishDate]
      )
    )
  }
  return { tenant: tenant as { id: string }, companies: companies.rows as Array<{ id: string }>, tenders, one }
}
