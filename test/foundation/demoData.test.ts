import * as fs from "node:fs"
import { parse } from "csv-parse/sync"
import { describe, expect, it } from "vitest"
import { DEMO_AUTHORITIES } from "../../src/demo/DemoAuthorities.js"
import { type CpvRow, DEMO_COMPANIES, DEMO_TENDER_COUNT, generateDemoTenders } from "../../src/demo/DemoData.js"
import { EUR_RON } from "../../src/domain/Currency.js"
import { CPV_CSV } from "../../src/infra/tenders/CpvTable.js"

/** Properties of the pure demo generator, over the real CPV table the migrations load. */
describe("demo data generator", () => {
  const catalog = parse(fs.readFileSync(CPV_CSV, "utf8"), { columns: true, skip_empty_lines: true }) as Array<CpvRow>
  const known = new Map(catalog.map((row) => [row.code_full, row]))
  const now = Date.parse("2026-11-22T08:00:00Z")
  const tenders = generateDemoTenders({ catalog, now })

  it("makes at least 2,000 tenders with unique notice ids", () => {
    expect(tenders.length).toBe(DEMO_TENDER_COUNT)
    expect(tenders.length).toBeGreaterThanOrEqual(2000)
    expect(new Set(tenders.map((t) => t.sourceNoticeId)).size).toBe(tenders.length)
  })

  it("uses only CPV codes of the table, and titles built from their Romanian labels", () => {
    for (const t of tenders) {
      expect(known.has(t.mainCpv), t.mainCpv).toBe(true)
      for (const extra of t.additionalCpvs) expect(known.has(extra), extra).toBe(true)
      expect(t.additionalCpvs).not.toContain(t.mainCpv)
    }
    // Spot check: the label (in comma-below spelling) appears in the description.
    const t = tenders[0]!
    const label = known.get(t.mainCpv)!.label_ro.replace(/ş/g, "ș").replace(/ţ/g, "ț").toLowerCase()
    expect(t.description.toLowerCase()).toContain(label.slice(0, 20))
    expect(new Set(tenders.map((x) => x.mainCpv)).size).toBeGreaterThan(300)
  })

  it("spreads over several counties and many contracting authorities", () => {
    const counties = new Set(tenders.map((t) => t.authority.county))
    const authorities = new Set(tenders.map((t) => t.authority.name))
    expect(counties.size).toBeGreaterThanOrEqual(10)
    expect(authorities.size).toBeGreaterThanOrEqual(100)
    expect(authorities.size).toBeLessThanOrEqual(DEMO_AUTHORITIES.length)
  })

  it("gives RON values with EUR = RON / EUR_RON (to the cent)", () => {
    expect(EUR_RON).toBe(4.97)
    for (const t of tenders) {
      expect(t.estimatedValueRon).toBeGreaterThan(0)
      expect(Math.abs(t.estimatedValueEur - t.estimatedValueRon / EUR_RON)).toBeLessThanOrEqual(0.005)
    }
  })

  it("publishes over the last months with deadlines both past and future", () => {
    const day = 86_400_000
    for (const t of tenders) {
      expect(t.publishDate.getTime()).toBeLessThanOrEqual(now)
      expect(t.publishDate.getTime()).toBeGreaterThan(now - 121 * day)
      expect(t.deadline.getTime()).toBeGreaterThan(t.publishDate.getTime())
    }
    const future = tenders.filter((t) => t.deadline.getTime() > now).length
    expect(future).toBeGreaterThan(tenders.length * 0.2)
    expect(future).toBeLessThan(tenders.length * 0.8)
  })

  it("is deterministic for a seed, and another seed gives other tenders", () => {
    expect(generateDemoTenders({ catalog, now })).toEqual(tenders)
    const other = generateDemoTenders({ catalog, now, seed: 7 })
    expect(other.map((t) => t.title)).not.toEqual(tenders.map((t) => t.title))
  })

  it("watches for CPV codes of the table, and some demo tenders match each company's watchlists", () => {
    for (const company of DEMO_COMPANIES) {
      const watched = company.watchlists.flatMap((w) => w.cpvCodes)
      for (const code of watched) expect(known.has(code), code).toBe(true)
      const prefixes = watched.map((code) => code.slice(0, 3))
      const relevant = tenders.filter((t) => prefixes.some((p) => t.mainCpv.startsWith(p)))
      expect(relevant.length, company.name).toBeGreaterThan(50)
    }
  })
})
