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
import { prepareCompany, prepareTender } from "../src/domain/scoring/Inputs.js"
import { isCandidate } from "../src/domain/scoring/Matching.js"
import { scorePair } from "../src/domain/scoring/Model.js"
import { buildCorpusStats } from "../src/domain/scoring/Semantic.js"
import { migrate } from "../src/infra/DatabaseSetup.js"
import { PgLive } from "../src/infra/db/PgPool.js"
import { ScoringLive } from "../src/infra/Repositories.js"
import { ScoringService } from "../src/infra/scoring/ScoringService.js"
import { TenderStore, TenderStoreLive } from "../src/infra/tenders/TenderStore.js"
import { seedPopulation } from "./ScoringPopulation.js"

const COMPANIES = 5_000
const WATCHLISTS_PER_COMPANY = 3
/** SCORING_BENCH_TENDERS scales the run down for a quick look (SCORING_BENCH_DEBUG=1 logs phases). */
const TENDERS = Number(process.env.SCORING_BENCH_TENDERS ?? 5_000)
const AWARDS = 2_000
const AUTHORITIES = 400

const elapsed = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9

const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* migrate
  // Setup (not timed): one tenant's companies with watchlists, authorities, award history.
  const { makeTender } = yield* seedPopulation({
    companies: COMPANIES,
    tenants: 1,
    watchlistsPerCompany: WATCHLISTS_PER_COMPANY,
    authorities: AUTHORITIES
  })
  const store = yield* TenderStore
  yield* store.upsert(Array.from({ length: AWARDS }, (_, i) => makeTender(i, "award")))
  const newTenders = Array.from({ length: TENDERS }, (_, i) => makeTender(i, "contract"))
  yield* sql`ANALYZE`

  // End to end (timed): import 5,000 new tenders, score them, write alerts and events.
  const scoring = yield* ScoringService
  const cpuAtStart = process.cpuUsage()
  const start = process.hrtime.bigint()
  const stored = yield* store.upsert(newTenders)
  const importSeconds = elapsed(start)
  const result = yield* scoring.scoreTenders(stored.inserted, { isNew: stored.inserted })
  const endToEnd = elapsed(start)
  const cpu = process.cpuUsage(cpuAtStart)

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
    // CPU of the timed part in this process (the service's code): steadier than the wall time on a
    // shared machine. PostgreSQL's is not counted (its autovacuum workers come and go mid-run).
    node_cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
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
            Layer.provideMerge(PgLive({ url: Redacted.make(urlOf(databaseName)), maxConnections: 4 }))
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
