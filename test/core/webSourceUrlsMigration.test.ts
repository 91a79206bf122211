import { describe, expect, it } from "vitest"
import { isWebUrl } from "../../src/domain/tenders/SourceUrl.js"
import { databaseBeforeMigration, seedTenantAndTenders } from "../support/MigrationDatabase.js"

/** Migration 0040 brings the links stored before the http(s) rule under it (SourceUrl.ts). */
describe("migration 0040: only web links stay", () => {
  const { db, migrate } = databaseBeforeMigration("0040")

  const links = [
    "https://e-licitatie.ro/pub/notices/contract-notices/view/100215678",
    "http://ted.europa.eu/udl?uri=TED:NOTICE:566234-2020",
    "javascript:alert(document.cookie)",
    "JAVASCRIPT:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "//evil.example/x",
    "/pub/notices/1",
    "http:example.ro",
    "https://",
    "https://example.ro/a b",
    "https://example.ro/a\nb",
    ""
  ]

  it("empties every stored link the rule refuses, keeps the others as they are, in both link columns", async () => {
    const { tenders } = await seedTenantAndTenders(
      db,
      links.map(() => "2026-11-20T08:00:00Z")
    )
    for (const [i, link] of links.entries()) {
      await db.query("UPDATE tenders SET source_url = $1, other_source_urls = $2 WHERE id = $3", [
        link,
        [links[0]!, link, links[1]!],
        tenders[i]!.id
      ])
    }
    await migrate()
    const { rows } = await db.query<{ id: string; source_url: string; other_source_urls: Array<string> }>(
      "SELECT id, source_url, other_source_urls FROM tenders"
    )
    const stored = new Map(rows.map((row) => [row.id, row]))
    // The same verdict as the rule every notice now passes through.
    const kept = (link: string) => (isWebUrl(link) ? link : "")
    expect(tenders.map((t) => stored.get(t.id)?.source_url)).toEqual(links.map(kept))
    expect(links.filter(isWebUrl)).toEqual(links.slice(0, 2))
    expect(tenders.map((t) => stored.get(t.id)?.other_source_urls)).toEqual(
      links.map((link) => (isWebUrl(link) ? [links[0], link, links[1]] : [links[0], links[1]]))
    )
  })
})
