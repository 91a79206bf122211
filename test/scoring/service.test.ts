import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { CpvType } from "../../src/domain/scoring/CpvMatch.js"
import { factorBreakdown, MODEL_VERSION, MODEL_WEIGHTS } from "../../src/domain/scoring/Model.js"
import { keywordAnchor } from "../../src/domain/scoring/Text.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { StoredScoreFloor } from "../../src/infra/scoring/ScoreWriter.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = ScoringLive.pipe(Layer.provideMerge(TestDatabaseLive))

/** Fixtures written with plain SQL, independent of the importer. */
const fixtures = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Scoring considers every active company of the database, and this file's tests share one: each
  // starts from a clean slate, so it sees its own companies only (tests run in any order).
  yield* sql`UPDATE companies SET active = false WHERE active`
  const one = <A extends object>(rows: ReadonlyArray<A>) => rows[0]!
  const tenant = one(yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`).id
  const authority = (name: string, fiscalCode: string) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO contracting_authorities (name, normalized_name, fiscal_code, county)
                          VALUES (${name}, ${name.toLowerCase()}, ${fiscalCode}, 'Cluj') RETURNING id`,
      (rows) => one(rows).id
    )
  const company = (name: string, description: string, fiscalCode: string | null = null) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO companies (tenant_id, name, description, fiscal_code)
                          VALUES (${tenant}, ${name}, ${description}, ${fiscalCode}) RETURNING id`,
      (rows) => one(rows).id
    )
  const watchlist = (
    companyId: string,
    w: {
      cpv?: Array<string>
      keywords?: Array<string>
      minScore?: number
      min?: number
      max?: number
      authority?: string
    }
  ) =>
    Effect.map(
      sql<{
        id: string
      }>`INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value,
                                                  authority_id, min_score)
        VALUES (${tenant}, ${companyId}, 'W', ${w.cpv ?? []}::char(10)[], ${w.keywords ?? []}::text[], ${w.min ?? null},
                ${w.max ?? null}, ${w.authority ?? null}, ${w.minScore ?? 50}) RETURNING id`,
      (rows) => one(rows).id
    )
  let n = 0
  const tender = (t: {
    title: string
    description?: string
    cpv: string
    additional?: Array<string>
    authority: string
    value?: number | null
    noticeType?: "contract" | "award"
    winners?: Array<string>
    deadline?: string | null
  }) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv,
                                               additional_cpvs, authority_id, estimated_value_ron, publish_date,
                                               deadline, winner_fiscal_codes, source_url)
        VALUES ('test', ${`n${++n}-${Math.random()}`}, ${t.noticeType ?? "contract"}, ${t.title}, ${t.description ?? ""},
                ${t.cpv}, ${t.additional ?? []}::char(10)[], ${t.authority}, ${t.value === undefined ? 1_000_000 : t.value},
                '2026-01-10T00:00:00Z', ${t.deadline === undefined ? null : t.deadline}, ${t.winners ?? []}::text[],
                'https://example.test/n')
        RETURNING id`,
      (rows) => one(rows).id
    )
  return { sql, tenant, authority, company, watchlist, tender }
})

/** Stored scores of a tender, with the breakdown the API derives from their factor columns. */
const scoresOf = (tenderId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      company_id: string
      overall_score: number
      model_version: string
      tender_ingest_seq: string
      semantic: number
      keyword: number
      cpv: number
      value_fit: number
      historical: number
      cpv_type: CpvType
    }>`
      SELECT company_id, overall_score, model_version, tender_ingest_seq::text, score_semantic::float8 AS semantic,
             score_keyword::float8 AS keyword, score_cpv::float8 AS cpv, score_value_fit::float8 AS value_fit,
             score_historical::float8 AS historical, cpv_type
      FROM tender_scores WHERE tender_id = ${tenderId} ORDER BY company_id`
  ).pipe(
    Effect.map((rows) =>
      rows.map(({ semantic, keyword, cpv, value_fit, historical, cpv_type, ...row }) => ({
        ...row,
        factors: factorBreakdown(
          { semantic, keyword, cpv, value_fit, historical, cpvType: cpv_type },
          MODEL_WEIGHTS[row.model_version]
        )
      }))
    )
  )

const countOf = (table: "alerts" | "match_events", tenderId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    table === "alerts"
      ? sql<{ n: number }>`SELECT count(*)::int AS n FROM alerts WHERE tender_id = ${tenderId}`
      : sql<{ n: number }>`SELECT count(*)::int AS n FROM match_events WHERE tender_id = ${tenderId}`
  ).pipe(Effect.map((rows) => rows[0]!.n))

describe("scoring service on PostgreSQL", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("stores scores for candidate pairs only, with the factor breakdown and model version", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const scoring = yield* ScoringService
        const auth = yield* f.authority("Primăria Cluj", "4305857")
        const roads = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        const it = yield* f.company("IT SRL", "Calculatoare și imprimante")
        const byKeyword = yield* f.company("Marcaje SRL", "")
        yield* f.watchlist(roads, { cpv: ["45233000-9"] })
        yield* f.watchlist(it, { cpv: ["30200000-1"], keywords: ["imprimante"] })
        yield* f.watchlist(byKeyword, { keywords: ["marcaje rutiere"] })
        const tender = yield* f.tender({
          title: "Reabilitare drumuri comunale",
          description: "Asfaltare și marcaje rutiere",
          cpv: "45233142-6",
          authority: auth
        })
        const result = yield* scoring.scoreTenders([tender], { isNew: [] })
        expect(result).toEqual({ scored: 2, alerts: 0, events: 0 })
        const rows = yield* scoresOf(tender)
        expect(rows.map((r) => r.company_id).sort()).toEqual([roads, byKeyword].sort())
        const roadScore = rows.find((r) => r.company_id === roads)!
        expect(roadScore.model_version).toBe(MODEL_VERSION)
        expect(Object.keys(roadScore.factors).sort()).toEqual(["cpv", "historical", "keyword", "semantic", "value_fit"])
        expect(roadScore.factors.cpv).toMatchObject({ score: 1, weight: 0.3, contribution: 30, cpv_type: "primary" })
        for (const factor of Object.values(roadScore.factors) as Array<any>) {
          expect(
            Object.keys(factor)
              .filter((k) => k !== "cpv_type")
              .sort()
          ).toEqual(["contribution", "score", "weight"])
        }
        const [seq] = yield* f.sql<{ s: string }>`SELECT ingest_seq::text AS s FROM tenders WHERE id = ${tender}`
        expect(roadScore.tender_ingest_seq).toBe(seq!.s)
      })
    )

    it.effect("a new tender raises one alert per watchlist and one event per company, never again on re-scoring", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const scoring = yield* ScoringService
        const auth = yield* f.authority("Spitalul Județean", "4288080")
        const company = yield* f.company("Med SRL", "Furnizăm echipamente medicale, ecografe")
        const wideWatch = yield* f.watchlist(company, { cpv: ["33100000-1"], minScore: 30 })
        const keywordWatch = yield* f.watchlist(company, { keywords: ["ecograf"], minScore: 30 })
        yield* f.watchlist(company, { cpv: ["33100000-1"], minScore: 100 }) // threshold not reached
        yield* f.watchlist(company, { cpv: ["33100000-1"], max: 1000, minScore: 30 }) // value filter fails
        const tender = yield* f.tender({
          title: "Furnizare ecograf",
          description: "Ecograf pentru secția de cardiologie",
          cpv: "33112200-0",
          authority: auth,
          value: 400_000
        })
        const firstScoredAt = () =>
          f.sql<{ at: Date }>`SELECT scored_at AS at FROM tender_first_scores WHERE tender_id = ${tender}`.pipe(
            Effect.map((rows) => rows[0]?.at ?? null)
          )
        expect(yield* firstScoredAt()).toBeNull()
        const first = yield* scoring.scoreTenders([tender], { isNew: [tender] })
        expect(first).toEqual({ scored: 1, alerts: 2, events: 1 })
        // Its first scoring is stamped with the scores' own time (the digest's "new" counts from it).
        const stamped = yield* firstScoredAt()
        const [{ scored_at }] = (yield* f.sql<{ scored_at: Date }>`
          SELECT scored_at FROM tender_scores WHERE tender_id = ${tender}`) as unknown as [{ scored_at: Date }]
        expect(stamped).toEqual(scored_at)
        const alerts = yield* f.sql<{
          watchlist_id: string
        }>`SELECT watchlist_id FROM alerts WHERE tender_id = ${tender}`
        expect(alerts.map((a) => a.watchlist_id).sort()).toEqual([wideWatch, keywordWatch].sort())
        const [event] = yield* f.sql<{ payload: any }>`SELECT payload FROM match_events WHERE tender_id = ${tender}`
        const [score] = yield* scoresOf(tender)
        expect(event!.payload).toMatchObject({
          event: "tender.matched",
          company_id: company,
          tender: {
            id: tender,
            title: "Furnizare ecograf",
            score: score!.overall_score,
            cpv_codes: ["33112200-0"],
            deadline: null,
            estimated_value_ron: 400_000,
            source_url: "https://example.test/n"
          }
        })
        expect(typeof event!.payload.timestamp).toBe("string")

        // Re-import: the same tender scored again (not new), or even marked new again, adds nothing.
        expect(yield* scoring.scoreTenders([tender], { isNew: [] })).toEqual({ scored: 1, alerts: 0, events: 0 })
        expect(yield* scoring.scoreTenders([tender], { isNew: [tender] })).toEqual({ scored: 1, alerts: 0, events: 0 })
        expect(yield* countOf("alerts", tender)).toBe(2)
        expect(yield* countOf("match_events", tender)).toBe(1)
        // Scored again (new or not), it keeps its first time.
        expect(yield* firstScoredAt()).toEqual(stamped)
      })
    )

    it.effect(
      "a tender closed or cancelled when it arrives (an old notice imported late) is stored, never alerted",
      () =>
        Effect.gen(function* () {
          const f = yield* fixtures
          const scoring = yield* ScoringService
          const auth = yield* f.authority("Spitalul Municipal", "4288081")
          const company = yield* f.company("Eco SRL", "Furnizăm echipamente medicale, ecografe")
          yield* f.watchlist(company, { cpv: ["33100000-1"], minScore: 0 })
          const ecograf = { title: "Furnizare ecograf", cpv: "33112200-0", authority: auth }
          const closed = yield* f.tender({ ...ecograf, deadline: "2020-03-01T10:00:00Z" })
          const cancelled = yield* f.tender({ ...ecograf, deadline: "2099-03-01T10:00:00Z" })
          yield* f.sql`UPDATE tenders SET cancelled_at = now() WHERE id = ${cancelled}`
          const open = yield* f.tender({ ...ecograf, deadline: "2099-03-01T10:00:00Z" })
          const all = [closed, cancelled, open]
          expect(yield* scoring.scoreTenders(all, { isNew: all })).toEqual({ scored: 3, alerts: 1, events: 1 })
          for (const tender of all) expect(yield* scoresOf(tender)).toHaveLength(1)
          expect(yield* countOf("alerts", open)).toBe(1)
          expect(yield* countOf("alerts", closed)).toBe(0)
          expect(yield* countOf("match_events", cancelled)).toBe(0)
        })
    )

    it.effect("rescoreCompany updates open tenders' scores after a description change, without alerts", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const scoring = yield* ScoringService
        const auth = yield* f.authority("Primăria Turda", "4322637")
        const company = yield* f.company("Verde SRL", "Servicii de curățenie")
        yield* f.watchlist(company, { cpv: ["77310000-6"], minScore: 0 })
        const open = yield* f.tender({
          title: "Amenajare spații verzi și plantare arbori",
          description: "Întreținere parcuri, tuns gazon, plantare arbori ornamentali",
          cpv: "77310000-6",
          authority: auth
        })
        const closed = yield* f.tender({
          title: "Plantare arbori ornamentali",
          cpv: "77310000-6",
          authority: auth,
          deadline: "2020-01-01T00:00:00Z"
        })
        yield* scoring.scoreTenders([open, closed], { isNew: [] })
        const [before] = yield* scoresOf(open)
        const [closedBefore] = yield* scoresOf(closed)
        yield* f.sql`UPDATE companies SET description = 'Amenajare spații verzi, plantare arbori, întreținere parcuri'
                     WHERE id = ${company}`
        expect(yield* scoring.rescoreCompany(company)).toEqual({ scored: 1 })
        const [after] = yield* scoresOf(open)
        expect(after!.factors.semantic.score).toBeGreaterThan(before!.factors.semantic.score)
        expect(after!.overall_score).toBeGreaterThan(before!.overall_score)
        expect(yield* scoresOf(closed)).toEqual([closedBefore]) // closed tenders keep their score
        expect(yield* countOf("alerts", open)).toBe(0)

        // A watchlist change that drops the tender's CPV keeps it through the description's words;
        // without those either, the now-stale score is removed.
        yield* f.sql`UPDATE watchlists SET cpv_codes = '{30200000-1}' WHERE company_id = ${company}`
        expect(yield* scoring.rescoreCompany(company)).toEqual({ scored: 1 })
        // No code matches now, and the stated-text route (tsm-1.7.0) does not count either: the
        // tender is a service, the one watched code a supply (StatedText.ts).
        expect((yield* scoresOf(open))[0]!.factors.cpv.score).toBe(0)
        // (Words no tender of this file has: a rescore considers every open tender of the database.)
        yield* f.sql`UPDATE companies SET description = 'Contabilitate și audit financiar' WHERE id = ${company}`
        expect(yield* scoring.rescoreCompany(company)).toEqual({ scored: 0 })
        expect(yield* scoresOf(open)).toEqual([])
      })
    )

    it.effect("award notices won by the company raise its historical factor and make it a candidate", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const scoring = yield* ScoringService
        const auth = yield* f.authority("Consiliul Județean Alba", "4562583")
        const other = yield* f.authority("Primăria Blaj", "4331449")
        const withHistory = yield* f.company("Proiect SRL", "Proiectare", "12345678")
        const without = yield* f.company("Nou SRL", "Proiectare", "87654321")
        yield* f.watchlist(withHistory, { cpv: ["71320000-7"] })
        yield* f.watchlist(without, { cpv: ["71320000-7"] })
        yield* f.tender({
          title: "Proiectare pod",
          cpv: "71322000-1",
          authority: auth,
          value: 300_000,
          noticeType: "award",
          winners: ["12345678"]
        })
        const tender = yield* f.tender({ title: "Proiectare drum", cpv: "71322000-1", authority: auth, value: 280_000 })
        yield* scoring.scoreTenders([tender], { isNew: [] })
        const rows = yield* scoresOf(tender)
        const historical = (id: string) => rows.find((r) => r.company_id === id)!.factors.historical.score
        expect(historical(without)).toBe(0.5)
        expect(historical(withHistory)).toBeGreaterThan(0.9)

        // History alone (an award from the same authority) makes a company a candidate.
        const unrelated = yield* f.tender({ title: "Furnizare hârtie", cpv: "30190000-7", authority: auth })
        const elsewhere = yield* f.tender({ title: "Furnizare hârtie", cpv: "30190000-7", authority: other })
        // (At floor 0: the pair is a candidate, but history alone scores it below SCORE_FLOOR.)
        yield* scoring
          .scoreTenders([unrelated, elsewhere], { isNew: [] })
          .pipe(Effect.provideService(StoredScoreFloor, 0))
        // (Among this test's companies: other tests' description-only companies may match by text.)
        const ours = (rows: ReadonlyArray<{ company_id: string }>) =>
          rows.map((r) => r.company_id).filter((id) => id === withHistory || id === without)
        expect(ours(yield* scoresOf(unrelated))).toEqual([withHistory])
        expect(ours(yield* scoresOf(elsewhere))).toEqual([])
      })
    )

    it.effect("backfill rescores pairs of an older model version", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const auth = yield* f.authority("Primăria Dej", "4288000")
        const company = yield* f.company("Back SRL", "")
        yield* f.watchlist(company, { cpv: ["45000000-7"] })
        const tender = yield* f.tender({ title: "Lucrări", cpv: "45210000-2", authority: auth })
        const scoring = yield* ScoringService
        yield* scoring.scoreTenders([tender], { isNew: [] })
        yield* f.sql`UPDATE tender_scores SET model_version = 'tsm-0.9.0' WHERE tender_id = ${tender}`
        const pairs = (yield* scoresOf(tender)).length
        expect(pairs).toBeGreaterThanOrEqual(1)
        // The open tenders are scored afresh (this one and the file's earlier open ones).
        expect(yield* scoring.backfillModelVersion).toBeGreaterThanOrEqual(pairs)
        expect(new Set((yield* scoresOf(tender)).map((r) => r.model_version))).toEqual(new Set([MODEL_VERSION]))
        expect(yield* scoring.backfillModelVersion).toBe(0)
      })
    )

    it.effect("the SQL keyword anchors equal the domain's", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const keywords = [
          "Servicii de curățenie",
          "Lucrări de construcţii drumuri",
          "pentru",
          "IT",
          "Mobilier ȘCOLAR",
          "ecograf"
        ]
        const [row] = yield* sql<{
          anchors: Array<string>
        }>`SELECT scoring_keyword_anchors(${keywords}::text[]) AS anchors`
        const expected = [...new Set(keywords.map(keywordAnchor).filter((a): a is string => a !== null))].sort()
        expect(row!.anchors).toEqual(expected)
      })
    )
  })
})
