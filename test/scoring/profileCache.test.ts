import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { makeCompanyProfileCache } from "../../src/infra/scoring/CompanyProfileCache.js"
import { makeScoringReads } from "../../src/infra/scoring/ScoringReads.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

// One ScoringService for the whole file, as in a worker process: its company profiles are cached
// between calls (CompanyProfileCache). After each change to a profile, the next call must score
// exactly as a service built afresh (a cold cache) does.
const TestLayer = ScoringLive.pipe(Layer.provideMerge(TestDatabaseLive))

const FISCAL_CODE = "18547290"

const setup = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Each test sees its own companies only.
  yield* sql`UPDATE companies SET active = false WHERE active`
  const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`
  const [authority] = yield* sql<{ id: string }>`
    INSERT INTO contracting_authorities (name, normalized_name, fiscal_code, county)
    VALUES ('Primăria Cluj', 'primăria cluj', ${String(4_305_857 + Math.floor(Math.random() * 1e6))}, 'Cluj')
    RETURNING id`
  const [company] = yield* sql<{ id: string }>`
    INSERT INTO companies (tenant_id, name, description, fiscal_code)
    VALUES (${tenant!.id}, 'Drumuri SA', 'Servicii de curățenie a clădirilor', ${FISCAL_CODE}) RETURNING id`
  const [watchlist] = yield* sql<{ id: string }>`
    INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score)
    VALUES (${tenant!.id}, ${company!.id}, 'W', ${["45233000-9"]}::char(10)[], ${["panouri solare"]}::text[], 40)
    RETURNING id`
  let n = 0
  const tender = (noticeType: "contract" | "award" = "contract") =>
    Effect.map(
      sql<{ id: string }>`
        INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv, authority_id,
                             estimated_value_ron, publish_date, winner_fiscal_codes, source_url)
        VALUES ('test', ${`p${++n}-${Math.random()}`}, ${noticeType}, 'Reabilitare drumuri comunale',
                'Asfaltare și marcaje rutiere pe drumurile comunale', '45233142-6', ${authority!.id}, 1000000,
                '2026-01-10T00:00:00Z', ${noticeType === "award" ? [FISCAL_CODE] : []}::text[], 'https://example.test/n')
        RETURNING id`,
      (rows) => rows[0]!.id
    )
  return { sql, tenant: tenant!.id, company: company!.id, watchlist: watchlist!.id, tender }
})

/** What scoring stored for a tender: every score column and the alerts, without the tender's id. */
const storedFor = (tenderId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const scores = yield* sql`
      SELECT company_id, overall_score, verdict, model_version, score_semantic, score_keyword, score_cpv,
             score_value_fit, score_historical, cpv_type
      FROM tender_scores WHERE tender_id = ${tenderId} ORDER BY company_id`
    const alerts = yield* sql`
      SELECT company_id, watchlist_id, score FROM alerts WHERE tender_id = ${tenderId} ORDER BY watchlist_id`
    return { scores, alerts }
  })

/** Scores a new tender with the file's (warm) service. */
const scoreWarm = (tenderId: string) =>
  Effect.flatMap(ScoringService, (scoring) => scoring.scoreTenders([tenderId], { isNew: [tenderId] }))

/** Scores a new tender with a service built now: nothing cached. */
const scoreCold = (tenderId: string) => Effect.provide(scoreWarm(tenderId), ScoringLive)

type Setup = Effect.Effect.Success<typeof setup>

const changes: ReadonlyArray<readonly [string, (s: Setup) => Effect.Effect<unknown, unknown>]> = [
  [
    "a watchlist's keywords change",
    (s) => s.sql`UPDATE watchlists SET keywords = '{marcaje rutiere}' WHERE id = ${s.watchlist}`
  ],
  [
    "a watchlist's keywords are cleared and its threshold lowered",
    (s) => s.sql`UPDATE watchlists SET keywords = '{}', min_score = 0 WHERE id = ${s.watchlist}`
  ],
  [
    "a watchlist is added",
    (s) => s.sql`INSERT INTO watchlists (tenant_id, company_id, name, keywords, min_score)
                 VALUES (${s.tenant}, ${s.company}, 'W2', '{asfaltare}', 0)`
  ],
  ["a watchlist is deleted", (s) => s.sql`DELETE FROM watchlists WHERE id = ${s.watchlist}`],
  [
    "the company's description changes",
    (s) => s.sql`UPDATE companies SET description = 'Reabilitare drumuri și asfaltare' WHERE id = ${s.company}`
  ],
  ["the company becomes inactive", (s) => s.sql`UPDATE companies SET active = false WHERE id = ${s.company}`],
  [
    "the company's counties are set (its tenders' authority is in Cluj)",
    (s) => s.sql`UPDATE companies SET counties = '{Cluj}' WHERE id = ${s.company}`
  ],
  ["an award notice names the company as winner", (s) => s.tender("award")],
  [
    "a tender of its CPV class is marked not relevant",
    (s) =>
      Effect.flatMap(
        s.tender(),
        (marked) => s.sql`INSERT INTO tender_feedback (company_id, tender_id, tenant_id, relevant, marked_at)
                          VALUES (${s.company}, ${marked}, ${s.tenant}, false, now())`
      )
  ]
]

describe("company profiles cached between scoring calls", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    for (const [change, apply] of changes) {
      it.effect(`${change}: the next call scores as a cold service does`, () =>
        Effect.gen(function* () {
          const s = yield* setup
          const before = yield* s.tender()
          yield* scoreWarm(before) // caches the profile
          expect((yield* storedFor(before)).scores).toHaveLength(1)

          yield* apply(s)
          const warm = yield* s.tender()
          const cold = yield* s.tender()
          yield* scoreWarm(warm)
          yield* scoreCold(cold)

          expect(yield* storedFor(warm)).toEqual(yield* storedFor(cold))
          // And the change made a difference, so the test would catch a stale profile.
          expect(yield* storedFor(warm)).not.toEqual(yield* storedFor(before))
        })
      )
    }

    it.effect("an unchanged profile is reused and scores as a cold service does", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const first = yield* s.tender()
        yield* scoreWarm(first)
        // A change that is not part of a profile keeps its revision.
        const [rev] = yield* s.sql<{ r: string }>`SELECT profile_rev::text AS r FROM companies WHERE id = ${s.company}`
        yield* s.sql`UPDATE companies SET name = 'Drumuri Nord SA', updated_at = now() WHERE id = ${s.company}`
        const [after] = yield* s.sql<{
          r: string
        }>`SELECT profile_rev::text AS r FROM companies WHERE id = ${s.company}`
        expect(after!.r).toBe(rev!.r)
        const warm = yield* s.tender()
        const cold = yield* s.tender()
        yield* scoreWarm(warm)
        yield* scoreCold(cold)
        expect(yield* storedFor(warm)).toEqual(yield* storedFor(cold))
      })
    )

    it.effect("two batches asking at once for uncached profiles read and prepare them once", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const reads = yield* makeScoringReads
        const requested: Array<string> = []
        const counting = {
          ...reads,
          companyProfiles: (ids: ReadonlyArray<string>) => {
            requested.push(...ids)
            return reads.companyProfiles(ids)
          }
        }
        const view = yield* (yield* makeCompanyProfileCache(counting)).begin
        const [first, second] = yield* Effect.all([view.profilesOf([s.company]), view.profilesOf([s.company])], {
          concurrency: 2
        })
        expect(requested).toEqual([s.company])
        expect(first.get(s.company)).toBeDefined()
        expect(second.get(s.company)).toBe(first.get(s.company))
      })
    )
  })
})
