import { describe, expect, it } from "vitest"
import { canonicalCounty } from "../../src/domain/tenders/CountyDistance.js"
import { databaseBeforeMigration } from "../support/MigrationDatabase.js"

/**
 * Migration 0049 rewrites the București sectors stored before imports read them as București, by the
 * rule imports now apply (CountyDistance.canonicalCounty); 0032 had left them as written.
 */
describe("migration 0049: București's sectors are București", () => {
  const { db, migrate } = databaseBeforeMigration("0049")

  it("rewrites every sector spelling as the importers now store it, and leaves other names alone", async () => {
    const written = [
      "Bucuresti Sector 4",
      "BUCUREȘTI SECTOR 1",
      "Municipiul București, Sectorul 2",
      "Mun. Bucuresti - Sector 6",
      "bucurești sectorul 3",
      "București",
      "Bucuresti Sector 7",
      "Ilfov",
      "Sector 5"
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
    // The sectors of the rule: what an import stores for them today.
    for (const i of [0, 1, 2, 3, 4]) expect(stored.get(`Autoritatea ${i}`), written[i]).toBe("București")
    for (const [i, county] of written.entries()) {
      const expected = /sector/i.test(county) ? (canonicalCounty(county) ?? county) : county
      expect(stored.get(`Autoritatea ${i}`), county).toBe(expected)
    }
    expect(stored.get("Autoritatea 6")).toBe("Bucuresti Sector 7")
    expect(stored.get("Autoritatea 9")).toBeNull()
  })
})
