/**
 * Scoring benchmark: 5,000 companies with 3 watchlists each (CPV codes and keywords drawn from the
 * real cpv_codes table, weighted like Romanian procurement), 2,000 past award notices as history,
 * then 5,000 new tenders end to end: TenderStore upsert, scoring, alerts and events written.
 * Runs on a fresh database on the server of DATABASE_URL, dropped afterwards.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- scoring
 */
import { randomBytes } from "node:crypto"
import { availableParallelism } from "node:os"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { EUR_RON } from "../src/domain/Currency.js"
import { prepareCompany, prepareTender } from "../src/domain/scoring/Inputs.js"
import { isCandidate } from "../src/domain/scoring/Matching.js"
import { scorePair } from "../src/domain/scoring/Model.js"
import { buildCorpusStats } from "../src/domain/scoring/Semantic.js"
import { STOP_WORDS, words } from "../src/domain/scoring/Text.js"
import type { Tender } from "../src/domain/tenders/TenderRecord.js"
import { migrate } from "../src/infra/DatabaseSetup.js"
import { ScoringLive } from "../src/infra/Repositories.js"
import { ScoringService } from "../src/infra/scoring/ScoringService.js"
import { TenderStore, TenderStoreLive } from "../src/infra/tenders/TenderStore.js"
import { syntheticDraws } from "./SyntheticData.js"

const COMPANIES = 5_000
const WATCHLISTS_PER_COMPANY = 3
/** SCORING_BENCH_TENDERS scales the run down for a quick look (SCORING_BENCH_DEBUG=1 logs phases). */
const TENDERS = Number(process.env.SCORING_BENCH_TENDERS ?? 5_000)
const AWARDS = 2_000
const AUTHORITIES = 400

const { random, pick, weightedDivision, logNormalValue } = syntheticDraws(20260101)

interface CpvRow {
  readonly code_full: string
  readonly level: string
  readonly label_ro: string
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

const elapsed = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9

const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* migrate
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

  // Setup (not timed): tenant, companies with watchlists, authorities, award history.
  const [tenant] = yield* sql<{
    id: string
  }>`INSERT INTO tenants (name, plan) VALUES ('Bench', 'consultant') RETURNING id`
  const companyNames = Array.from({ length: COMPANIES }, (_, i) => `Firma ${i} SRL`)
  const fiscalCodes = Array.from({ length: COMPANIES }, (_, i) => String(10_000_000 + i))
  const descriptions: Array<string> = []
  const watchlistRows: Array<{
    company: number
    cpv: Array<string>
    keywords: Array<string>
    min: number | null
    max: number | null
    minScore: number
  }> = []
  for (let c = 0; c < COMPANIES; c++) {
    const divisions = [weightedDivision(), ...(random() < 0.3 ? [weightedDivision()] : [])]
    const labels: Array<string> = []
    for (let w = 0; w < WATCHLISTS_PER_COMPANY; w++) {
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
  const companyIds = (yield* sql<{ id: string }>`
    INSERT INTO companies (tenant_id, name, description, fiscal_code)
    SELECT ${tenant!.id}, * FROM unnest(${companyNames}::text[], ${descriptions}::text[], ${fiscalCodes}::text[])
    RETURNING id`).map((r) => r.id)
  yield* sql`
    INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value, min_score)
    SELECT ${tenant!.id}, c, 'Watchlist', string_to_array(codes, ',')::char(10)[], string_to_array(kw, '|'), lo, hi, ms
    FROM unnest(${watchlistRows.map((w) => companyIds[w.company]!)}::uuid[], ${watchlistRows.map((w) => w.cpv.join(","))}::text[],
                ${watchlistRows.map((w) => w.keywords.join("|"))}::text[], ${watchlistRows.map((w) => w.min)}::numeric[],
                ${watchlistRows.map((w) => w.max)}::numeric[], ${watchlistRows.map((w) => w.minScore)}::smallint[])
      AS w(c, codes, kw, lo, hi, ms)`

  const authorities = Array.from({ length: AUTHORITIES }, (_, i) => ({
    name: `Primăria ${i}`,
    normalizedName: `primaria ${i}`,
    fiscalCode: String(4_000_000 + i),
    county: "Cluj"
  }))
  const makeTender = (i: number, kind: "contract" | "award"): Tender => {
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
      publishDate: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
      sourceUrl: `https://e-licitatie.ro/bench/${kind}/${i}`,
      winnerFiscalCodes: kind === "award" ? [pick(fiscalCodes)] : []
    }
  }
  const store = yield* TenderStore
  yield* store.upsert(Array.from({ length: AWARDS }, (_, i) => makeTender(i, "award")))
  const newTenders = Array.from({ length: TENDERS }, (_, i) => makeTender(i, "contract"))
  yield* sql`ANALYZE`

  // End to end (timed): import 5,000 new tenders, score them, write alerts and events.
  const scoring = yield* ScoringService
  const start = process.hrtime.bigint()
  const stored = yield* store.upsert(newTenders)
  const importSeconds = elapsed(start)
  const result = yield* scoring.scoreTenders(stored.inserted, { isNew: stored.inserted })
  const endToEnd = elapsed(start)

  // Pure scorer throughput: the same pairs, scored in memory (no I/O).
  const profiles = yield* sql<{
    company_id: string
    description: string
    id: string
    cpv: Array<string>
    kw: Array<string>
    lo: number | null
    hi: number | null
    ms: number
  }>`
    SELECT w.company_id, c.description, w.id, w.cpv_codes::text[] AS cpv, w.keywords AS kw,
           w.min_value::float8 AS lo, w.max_value::float8 AS hi, w.min_score AS ms
    FROM watchlists w JOIN companies c ON c.id = w.company_id`
  const companies = new Map<string, ReturnType<typeof prepareCompany>>()
  const grouped = new Map<string, typeof profiles>()
  for (const p of profiles) grouped.set(p.company_id, [...(grouped.get(p.company_id) ?? []), p])
  for (const [id, rows] of grouped) {
    companies.set(
      id,
      prepareCompany({
        id,
        description: rows[0]!.description,
        history: [],
        watchlists: rows.map((r) => ({
          id: r.id,
          cpvCodes: r.cpv,
          keywords: r.kw,
          minValue: r.lo,
          maxValue: r.hi,
          authorityId: null,
          minScore: r.ms
        }))
      })
    )
  }
  const tenders = newTenders.map((t, i) =>
    prepareTender({
      id: String(i),
      title: t.title,
      description: t.description,
      mainCpv: t.mainCpv,
      additionalCpvs: t.additionalCpvs,
      authorityId: "a",
      valueRon: t.estimatedValueRon
    })
  )
  const stats = buildCorpusStats(tenders)
  const companyList = [...companies.values()]
  const pairs = 500_000
  let sink = 0
  const pureStart = process.hrtime.bigint()
  for (let n = 0; n < pairs; n++) {
    sink += scorePair(companyList[n % companyList.length]!, tenders[(n * 7919) % tenders.length]!, stats).overallScore
  }
  const pureSeconds = elapsed(pureStart)
  let candidateChecks = 0
  const filterStart = process.hrtime.bigint()
  for (let n = 0; n < pairs; n++) {
    if (isCandidate(companyList[n % companyList.length]!, tenders[(n * 7919) % tenders.length]!, stats))
      candidateChecks++
  }
  const filterSeconds = elapsed(filterStart)

  const [counts] = yield* sql<{ scores: number; alerts: number; events: number }>`
    SELECT (SELECT count(*)::int FROM tender_scores) AS scores, (SELECT count(*)::int FROM alerts) AS alerts,
           (SELECT count(*)::int FROM match_events) AS events`
  const report = {
    machine: `${availableParallelism()} cores, node ${process.version}`,
    companies: COMPANIES,
    watchlists: COMPANIES * WATCHLISTS_PER_COMPANY,
    award_history: AWARDS,
    new_tenders: stored.inserted.length,
    end_to_end_seconds: Number(endToEnd.toFixed(2)),
    import_seconds: Number(importSeconds.toFixed(2)),
    scoring_seconds: Number((endToEnd - importSeconds).toFixed(2)),
    pairs_stored: result.scored,
    pairs_per_tender: Number((result.scored / TENDERS).toFixed(1)),
    alerts: result.alerts,
    events: result.events,
    end_to_end_pairs_per_second: Math.round(result.scored / (endToEnd - importSeconds)),
    pure_scorer_pairs_per_second: Math.round(pairs / pureSeconds),
    pure_candidate_filter_pairs_per_second: Math.round(pairs / filterSeconds),
    in_memory_candidate_share: Number((candidateChecks / pairs).toFixed(4)),
    rows_check: counts,
    checksum: sink % 1000
  }
  console.log(JSON.stringify(report, null, 2))
})

const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const databaseName = `bench_scoring_${randomBytes(4).toString("hex")}`
const urlOf = (name: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}
const admin = (statement: string) =>
  Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1 })),
    Effect.scoped
  )

await Effect.runPromise(
  Effect.acquireUseRelease(
    admin(`CREATE DATABASE "${databaseName}"`),
    () =>
      program.pipe(
        Effect.provide(
          Layer.mergeAll(ScoringLive, TenderStoreLive).pipe(
            Layer.provideMerge(PgClient.layer({ url: Redacted.make(urlOf(databaseName)), maxConnections: 4 }))
          )
        )
      ),
    // SCORING_BENCH_KEEP=1 keeps the database for EXPLAIN and the like (drop it by hand).
    () =>
      process.env.SCORING_BENCH_KEEP === "1"
        ? Effect.log(`kept database ${databaseName}`)
        : Effect.orDie(admin(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`))
  ).pipe(
    Effect.orDie,
    Logger.withMinimumLogLevel(process.env.SCORING_BENCH_DEBUG === "1" ? LogLevel.Debug : LogLevel.Info)
  )
)
