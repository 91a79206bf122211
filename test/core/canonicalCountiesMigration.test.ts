import { describe, expect, it } from "vitest"
import { ROMANIAN_COUNTIES } from "../../src/domain/tenders/Counties.js"
import { canonicalCounty } from "../../src/domain/tenders/CountyDistance.js"
import { databaseBeforeMigration } from "../support/MigrationDatabase.js"

/**
 * Migration 0032 rewrites the counties stored before imports kept one spelling per county, by the
 * rule imports now apply (CountyDistance.canonicalCounty): every spelling here ends as that rule says.
 */
describe("migration 0032: one spelling per county", () => {
  const { db, migrate } = databaseBeforeMigration("0032")

  it("rewrites every spelling of a county as the importers now store it, and leaves other names alone", async () => {
    const written = [
      "Constanta",
      "CONSTANȚA",
      "JUDETUL CONSTANTA",
      "Jud. Constanţa",
      "Municipiul Bucuresti",
      "BUCURESTI",
      "Bistrita Nasaud",
      "Caras-Severin",
      "Vâlcea",
      "Ilfov (Sector agricol)",
      "Île-de-France",
      "",
      ...ROMANIAN_COUNTIES.map((county) => county.toUpperCase())
    ]
    for (const [i, county] of [...written, null].entries()) {
      await db.query(`INSERT INTO contracting_authorities (name, normalized_name, county) VALUES ($1, $1, $2)`, [
        `Autoritatea ${i}`,
        county
      ])
    }
    await migrate()
    const { rows } = await db.query<{ name: string; county: string | null }>(
      `SELECT name, county FROM contracting_authorities WHERE name LIKE 'Autoritatea %' ORDER BY name`
    )
    const stored = new Map(rows.map((row) => [row.name, row.county]))
    for (const [i, county] of [...written, null].entries()) {
      const expected = county === null ? null : (canonicalCounty(county) ?? county)
      expect(stored.get(`Autoritatea ${i}`), String(county)).toBe(expected)
    }
    expect(stored.get("Autoritatea 2")).toBe("Constanța")
    expect(stored.get("Autoritatea 9")).toBe("Ilfov (Sector agricol)")
  })
})
