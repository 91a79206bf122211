import { describe, expect, it } from "vitest"
import { databaseBeforeMigration, seedTenantAndTenders } from "../support/MigrationDatabase.js"

/** Migration 0033 rewrites the stored links of SEAP's direct award notices to the page SEAP serves. */
describe("migration 0033: direct award links", () => {
  const { db, migrate } = databaseBeforeMigration("0033")

  it("rewrites the old direct award path and leaves every other link alone", async () => {
    const { tenders } = await seedTenantAndTenders(db, [
      "2024-03-28T22:00:00Z",
      "2024-03-28T22:00:00Z",
      "2024-03-28T22:00:00Z"
    ])
    const links = [
      "https://e-licitatie.ro/pub/direct-acquisitions/view/101206459",
      "https://e-licitatie.ro/pub/direct-acquisition/view/105000123",
      "https://ted.europa.eu/en/notice/-/detail/566234-2020"
    ]
    for (const [i, link] of links.entries()) {
      await db.query("UPDATE tenders SET source_url = $1 WHERE id = $2", [link, tenders[i]!.id])
    }
    await migrate()
    const { rows } = await db.query<{ id: string; source_url: string }>("SELECT id, source_url FROM tenders")
    const stored = new Map(rows.map((row) => [row.id, row.source_url]))
    expect(tenders.map((t) => stored.get(t.id))).toEqual([
      "https://e-licitatie.ro/pub/direct-acquisition/award-notice/view/101206459",
      links[1],
      links[2]
    ])
  })
})
