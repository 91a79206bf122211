import * as fs from "node:fs"
import { parse } from "csv-parse/sync"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { DEMO_COMPANIES, demoTenders } from "../../src/demo/DemoData.js"
import { readDemoNotices } from "../../src/demo/DemoNotices.js"
import { EUR_RON } from "../../src/domain/Currency.js"
import { countyFromNuts } from "../../src/domain/tenders/Counties.js"
import { foldForMatching } from "../../src/domain/tenders/RomanianText.js"
import { CPV_CSV } from "../../src/infra/tenders/CpvTable.js"

/**
 * The demo's tenders are the real notices committed in data/demo/notices.json (built from the shared
 * samples by scripts/build-demo-notices.ts), with dates moved to `now`.
 */
describe("demo data", () => {
  const catalog = parse(fs.readFileSync(CPV_CSV, "utf8"), { columns: true, skip_empty_lines: true }) as Array<{
    code_full: string
  }>
  const known = new Set(catalog.map((row) => row.code_full))
  const notices = Effect.runSync(readDemoNotices)
  const now = Date.parse("2026-11-22T08:00:00Z")
  const tenders = demoTenders({ notices, now })
  const counties = new Set<string>()
  for (let n = 100; n < 500; n++) {
    const county = countyFromNuts(`RO${n}`)
    if (county !== null) counties.add(county)
  }

  it("is every kept notice once, enough for a list that looks alive", () => {
    expect(tenders.length).toBe(notices.length)
    expect(tenders.length).toBeGreaterThanOrEqual(250)
    expect(new Set(tenders.map((t) => t.sourceNoticeId)).size).toBe(tenders.length)
    expect(new Set(notices.map((n) => n.origin))).toEqual(new Set(["sicap", "ted-xml", "eforms"]))
  })

  it("keeps each notice's real title, CPV codes, authority and value", () => {
    const byId = new Map(notices.map((n) => [n.noticeId, n]))
    for (const t of tenders) {
      const notice = byId.get(t.sourceNoticeId)!
      expect(t.title).toBe(notice.title)
      expect(t.mainCpv).toBe(notice.mainCpv)
      expect(t.authority.name).toBe(notice.authorityName)
      expect(t.estimatedValueRon).toBe(notice.valueRon)
      expect(known.has(t.mainCpv), t.mainCpv).toBe(true)
      for (const extra of t.additionalCpvs) expect(known.has(extra), extra).toBe(true)
    }
  })

  it("has the real SEAP titles: each title is a direct award's contract object in the shared samples", () => {
    const samples = new URL(
      "../../../shared/data/samples/sicap/sicap_pnrr_direct_awards_until_2024-03.csv",
      import.meta.url
    )
    // The samples live beside the repository on the development and CI machines (not in a clone).
    if (!fs.existsSync(samples)) return expect(notices.filter((n) => n.origin === "sicap").length).toBeGreaterThan(200)
    const rows = parse(fs.readFileSync(samples, "utf8"), { columns: true }) as Array<Record<string, string>>
    const titles = new Map(rows.map((row) => [row["item.noticeNo"], foldForMatching(row["item.contractObject"]!)]))
    for (const notice of notices.filter((n) => n.origin === "sicap")) {
      const title = titles.get(notice.noticeId)
      expect(title, notice.noticeId).toBeDefined()
      expect(foldForMatching(notice.title).replace(/\s+/g, " ")).toBe(title!.replace(/\s+/g, " ").trim())
    }
  })

  it("names Romanian buyers with their county, from many counties; values are worth bidding for", () => {
    const seap = tenders.filter((t) => notices.find((n) => n.noticeId === t.sourceNoticeId)!.origin === "sicap")
    for (const t of seap) {
      expect(counties.has(t.authority.county ?? ""), `${t.authority.name}: ${t.authority.county}`).toBe(true)
      expect(t.authority.fiscalCode).toMatch(/^\d{2,10}$/)
      expect(t.estimatedValueRon).toBeGreaterThanOrEqual(1_000)
    }
    expect(new Set(seap.map((t) => t.authority.county)).size).toBeGreaterThanOrEqual(30)
    expect(new Set(seap.map((t) => t.authority.name)).size).toBeGreaterThanOrEqual(100)
  })

  it("gives EUR = RON / EUR_RON (to the cent), none without a RON value", () => {
    expect(EUR_RON).toBe(4.97)
    for (const t of tenders) {
      if (t.estimatedValueRon === null) expect(t.estimatedValueEur).toBeNull()
      else expect(Math.abs(t.estimatedValueEur! - t.estimatedValueRon / EUR_RON)).toBeLessThanOrEqual(0.005)
    }
  })

  it("publishes over the last weeks in the notices' real order, every deadline ahead of now", () => {
    const day = 86_400_000
    for (const t of tenders) {
      expect(t.publishDate.getTime()).toBeLessThan(now)
      expect(t.publishDate.getTime()).toBeGreaterThan(now - 46 * day)
      expect(t.deadline.getTime()).toBeGreaterThan(now + day)
      expect(t.deadline.getTime()).toBeLessThan(now + 62 * day)
    }
    const published = [...notices].sort((a, b) => a.publishedOn.localeCompare(b.publishedOn)).map((n) => n.publishedOn)
    const shifted = [...tenders]
      .sort((a, b) => a.publishDate.getTime() - b.publishDate.getTime())
      .map((t) => notices.find((n) => n.noticeId === t.sourceNoticeId)!.publishedOn)
    expect(shifted).toEqual(published)
  })

  it("is deterministic for (notices, now), and moves with now", () => {
    expect(demoTenders({ notices, now })).toEqual(tenders)
    const later = demoTenders({ notices, now: now + 30 * 86_400_000 })
    expect(later.every((t) => t.deadline.getTime() > now + 31 * 86_400_000)).toBe(true)
  })

  it("watches CPV codes of the table, and many demo tenders lie in each company's watched divisions", () => {
    for (const company of DEMO_COMPANIES) {
      const watched = company.watchlists.flatMap((w) => w.cpvCodes)
      for (const code of watched) expect(known.has(code), code).toBe(true)
      const divisions = new Set(watched.map((code) => code.slice(0, 2)))
      const relevant = tenders.filter((t) => divisions.has(t.mainCpv.slice(0, 2)))
      expect(relevant.length, company.name).toBeGreaterThanOrEqual(20)
    }
  })
})
