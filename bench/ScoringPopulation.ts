import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { EUR_RON } from "../src/domain/Currency.js"
import { STOP_WORDS, words } from "../src/domain/scoring/Text.js"
import type { Tender } from "../src/domain/tenders/TenderRecord.js"
import { syntheticDraws } from "./SyntheticData.js"

/**
 * The population the scoring benches score against (bench/scoring.ts, bench/country.ts): companies
 * with watchlists (CPV codes and keywords drawn from the real cpv_codes table, weighted like
 * Romanian procurement), spread over Consultant tenants, and the notices they compete for. The same
 * seed gives the same population.
 */

interface CpvRow {
  readonly code_full: string
  readonly level: string
  readonly label_ro: string
}

export interface PopulationOptions {
  readonly companies: number
  readonly tenants: number
  readonly watchlistsPerCompany: number
  readonly authorities: number
  readonly seed?: number
}

export interface Population {
  readonly tenantIds: ReadonlyArray<string>
  readonly companyIds: ReadonlyArray<string>
  /** Notice `i` of a kind: a contract notice to score, or an award notice naming a company as winner. */
  readonly makeTender: (i: number, kind: "contract" | "award", publishDate?: Date) => Tender
}

/**
 * Keywords a buyer would type: specific words of the CPV labels, not the generic ones ("servicii",
 * "lucrari", "echipamente") that occur in more than 1% of all labels.
 */
const specificWords = (labels: ReadonlyArray<string>) => {
  const frequency = new Map<string, number>()
  for (const label of labels) for (const w of new Set(words(label))) frequency.set(w, (frequency.get(w) ?? 0) + 1)
  return (label: string) =>
    words(label).filter((w) => w.length >= 6 && !STOP_WORDS.has(w) && (frequency.get(w) ?? 0) <= labels.length / 100)
}

/** Inserts the tenants, companies and watchlists (not timed by the benches) and returns their ids. */
export const seedPopulation = (options: PopulationOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { random, pick, weightedDivision, logNormalValue } = syntheticDraws(options.seed ?? 20260101)
    const cpv = yield* sql<CpvRow>`SELECT code_full, level, label_ro FROM cpv_codes ORDER BY code_full`
    const contentWords = specificWords(cpv.map((row) => row.label_ro))
    const byDivision = new Map<string, { watchable: Array<CpvRow>; tenderable: Array<CpvRow> }>()
    for (const row of cpv) {
      const division = row.code_full.slice(0, 2)
      const entry = byDivision.get(division) ?? { watchable: [], tenderable: [] }
      // Watchlists name classes and categories (what a supplier sells), not whole groups.
      if (row.level === "class" || row.level === "category") entry.watchable.push(row)
      if (row.level !== "division" && row.level !== "group") entry.tenderable.push(row)
      byDivision.set(division, entry)
    }

    const tenantIds = (yield* sql<{ id: string }>`
      INSERT INTO tenants (name, plan)
      SELECT 'Bench ' || n, 'consultant' FROM generate_series(1, ${options.tenants}::int) AS n
      RETURNING id`).map((row) => row.id)
    const companyNames = Array.from({ length: options.companies }, (_, i) => `Firma ${i} SRL`)
    const fiscalCodes = Array.from({ length: options.companies }, (_, i) => String(10_000_000 + i))
    const descriptions: Array<string> = []
    const watchlistRows: Array<{
      company: number
      cpv: Array<string>
      keywords: Array<string>
      min: number | null
      max: number | null
      minScore: number
    }> = []
    for (let c = 0; c < options.companies; c++) {
      const divisions = [weightedDivision(), ...(random() < 0.3 ? [weightedDivision()] : [])]
      const labels: Array<string> = []
      for (let w = 0; w < options.watchlistsPerCompany; w++) {
        const division = byDivision.get(pick(divisions))!
        const codes = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(division.watchable))
        labels.push(...codes.map((code) => code.label_ro))
        const candidates = codes.flatMap((code) => contentWords(code.label_ro))
        const keywords =
          candidates.length === 0
            ? []
            : [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(candidates)))]
        const ranged = random() < 0.5
        watchlistRows.push({
          company: c,
          cpv: [...new Set(codes.map((code) => code.code_full))],
          keywords,
          min: ranged ? 10_000 : null,
          max: ranged ? 5_000_000 : null,
          minScore: 50 + Math.floor(random() * 21)
        })
      }
      descriptions.push(`Firmă specializată în ${labels.slice(0, 4).join(", ").toLowerCase()}`)
    }
    const tenantOf = companyNames.map((_, i) => tenantIds[i % tenantIds.length]!)
    const companyIds = (yield* sql<{ id: string }>`
      INSERT INTO companies (tenant_id, name, description, fiscal_code)
      SELECT * FROM unnest(${tenantOf}::uuid[], ${companyNames}::text[], ${descriptions}::text[], ${fiscalCodes}::text[])
      RETURNING id`).map((r) => r.id)
    yield* sql`
      INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value, min_score)
      SELECT c.tenant_id, w.c, 'Watchlist', string_to_array(w.codes, ',')::char(10)[], string_to_array(w.kw, '|'),
             w.lo, w.hi, w.ms
      FROM unnest(${watchlistRows.map((w) => companyIds[w.company]!)}::uuid[], ${watchlistRows.map((w) => w.cpv.join(","))}::text[],
                  ${watchlistRows.map((w) => w.keywords.join("|"))}::text[], ${watchlistRows.map((w) => w.min)}::numeric[],
                  ${watchlistRows.map((w) => w.max)}::numeric[], ${watchlistRows.map((w) => w.minScore)}::smallint[])
        AS w(c, codes, kw, lo, hi, ms)
      JOIN companies c ON c.id = w.c`

    const authorities = Array.from({ length: options.authorities }, (_, i) => ({
      name: `Primăria ${i}`,
      normalizedName: `primaria ${i}`,
      fiscalCode: String(4_000_000 + i),
      county: "Cluj"
    }))
    const makeTender = (i: number, kind: "contract" | "award", publishDate?: Date): Tender => {
      const division = byDivision.get(weightedDivision())!
      const main = pick(division.tenderable)
      const additional = random() < 0.4 ? [pick(division.tenderable)] : []
      const value = random() < 0.8 ? logNormalValue() : null
      return {
        source: "bench",
        sourceNoticeId: `${kind}-${i}`,
        noticeType: kind,
        title: `${main.label_ro} - lot ${i % 7}`,
        description: `Achiziție ${additional.map((a) => a.label_ro.toLowerCase()).join(", ")} conform caietului de sarcini`,
        mainCpv: main.code_full,
        additionalCpvs: additional.map((a) => a.code_full).filter((c) => c !== main.code_full),
        authority: pick(authorities),
        deadline: null,
        estimatedValueRon: value,
        estimatedValueEur: value === null ? null : Math.round(value / EUR_RON),
        publishDate: publishDate ?? new Date(Date.UTC(2026, 0, 1) + i * 60_000),
        sourceUrl: `https://e-licitatie.ro/bench/${kind}/${i}`,
        winnerFiscalCodes: kind === "award" ? [pick(fiscalCodes)] : []
      }
    }
    return { tenantIds, companyIds, makeTender } satisfies Population
  })
