import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  AFFINITY_MAX_SCORE,
  AFFINITY_MIN_SUPPORT,
  affinityOf,
  affinityStrength,
  type ClassWin,
  learnAffinity,
  NO_AFFINITY
} from "../../src/domain/scoring/CpvAffinity.js"
import { type CompanyInput, prepareCompany, prepareTender, type TenderInput } from "../../src/domain/scoring/Inputs.js"
import { isCandidate } from "../../src/domain/scoring/Matching.js"
import { MODEL_VERSION, scorePair } from "../../src/domain/scoring/Model.js"
import { explainPair } from "../../src/domain/scoring/Reasons.js"
import { emptyCorpusStats } from "../../src/domain/scoring/Semantic.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { ScoreReasons, ScoreReasonsLive } from "../../src/infra/scoring/ScoreReasons.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** `n` suppliers named `${prefix}1…`, each winning in every one of `classes`. */
const winners = (prefix: string, n: number, classes: ReadonlyArray<string>): Array<ClassWin> =>
  Array.from({ length: n }, (_, i) => classes.map((cpvClass) => ({ supplier: `${prefix}${i + 1}`, cpvClass }))).flat()

describe("CPV affinity measure", () => {
  it("needs the minimum support of common suppliers", () => {
    expect(AFFINITY_MIN_SUPPORT).toBe(3)
    expect(affinityStrength({ common: 2, left: 2, right: 2, suppliers: 100 })).toBe(0)
    expect(affinityStrength({ common: 3, left: 3, right: 3, suppliers: 100 })).toBeGreaterThan(0)
    const few = learnAffinity([...winners("a", 2, ["7934", "3929"]), ...winners("x", 20, ["4523"])])
    expect(few).toEqual([])
  })

  it("is symmetric, and smoothing keeps small classes below certainty and below larger evidence", () => {
    const counts = { common: 3, left: 5, right: 40, suppliers: 500 }
    expect(affinityStrength(counts)).toBe(affinityStrength({ ...counts, left: 40, right: 5 }))
    // Three suppliers that win only these two classes: strong, but not 1 (add-k on the class counts).
    const three = affinityStrength({ common: 3, left: 3, right: 3, suppliers: 500 })
    expect(three).toBeGreaterThan(0.5)
    expect(three).toBeLessThan(1)
    // The same share on more suppliers says more.
    expect(affinityStrength({ common: 30, left: 30, right: 30, suppliers: 5000 })).toBeGreaterThan(three)
    // Two classes that every other supplier wins: no more often together than chance.
    expect(affinityStrength({ common: 3, left: 250, right: 250, suppliers: 500 })).toBe(0)
  })

  it("learns both directions with the evidence counts, the same for any order or repetition of the wins", () => {
    const wins = [
      ...winners("both", 3, ["7934", "3929"]),
      ...winners("ads", 2, ["7934"]),
      ...winners("x", 20, ["4523"])
    ]
    const learned = learnAffinity(wins)
    expect(learned.map((a) => [a.cpvClass, a.otherClass, a.commonSuppliers, a.classSuppliers])).toEqual([
      ["3929", "7934", 3, 3],
      ["7934", "3929", 3, 5]
    ])
    expect(learned[0]!.strength).toBe(learned[1]!.strength)
    const shuffled = [...wins, ...wins.slice(0, 4)].reverse()
    expect(learnAffinity(shuffled)).toEqual(learned)
  })
})

const tender = (t: Partial<TenderInput> = {}): TenderInput => ({
  id: "t1",
  title: "Materiale promoționale inscripționate",
  description: "Pixuri, agende și sacoșe",
  mainCpv: "39294100-0",
  additionalCpvs: [],
  authorityId: "auth-9",
  valueRon: null,
  ...t
})
const company = (c: Partial<CompanyInput> = {}): CompanyInput => ({
  id: "c1",
  description: "",
  fiscalCode: "90000001",
  watchlists: [],
  history: [{ authorityId: "auth-1", mainCpv: "79341000-6", valueRon: null, title: "Servicii de publicitate" }],
  ...c
})
const affinity = affinityOf(
  "r1",
  learnAffinity([
    ...winners("both", 14, ["7934", "3929"]),
    ...winners("ads", 38, ["7934"]),
    ...winners("x", 400, ["4523"])
  ])
)

describe("CPV affinity in the cpv factor and the candidate rule", () => {
  it("a tender of a class the company's suppliers also win is a candidate with a capped cpv score", () => {
    const c = prepareCompany(company())
    const t = prepareTender(tender())
    expect(isCandidate(c, t, emptyCorpusStats, NO_AFFINITY)).toBe(false)
    expect(isCandidate(c, t, emptyCorpusStats, affinity)).toBe(true)
    expect(scorePair(c, t, emptyCorpusStats).factors.cpv.score).toBe(0)
    const cpv = scorePair(c, t, emptyCorpusStats, affinity).factors.cpv
    expect(cpv.score).toBeGreaterThan(0)
    expect(cpv.score).toBeLessThanOrEqual(AFFINITY_MAX_SCORE)
    expect(cpv.cpv_type).toBe("primary")
    // A tree match of the same class keeps its own, higher score.
    const sameClass = prepareTender(tender({ mainCpv: "79342000-3" }))
    expect(scorePair(c, sameClass, emptyCorpusStats, affinity).factors.cpv.score).toBe(0.75)
  })

  it("the reason names the evidence: common suppliers of the company's class, in English and Romanian", () => {
    const c = prepareCompany(company())
    const t = prepareTender(tender())
    expect(explainPair(c, t, emptyCorpusStats, "en", affinity).cpv).toBe(
      "firms that win 79341000 also win 39294100: 14 of 52"
    )
    expect(explainPair(c, t, emptyCorpusStats, "ro", affinity).cpv).toBe(
      "firmele care câștigă 79341000 câștigă și 39294100: 14 din 52"
    )
  })
})

const TestLayer = Layer.merge(ScoringLive, ScoreReasonsLive).pipe(Layer.provideMerge(TestDatabaseLive))

const fixtures = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE companies SET active = false WHERE active`
  const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`
  let n = 0
  const authority = Effect.suspend(() =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO contracting_authorities (name, normalized_name, county)
                        VALUES (${`Primăria ${++n}`}, ${`primaria ${n} ${Math.random()}`}, 'Cluj') RETURNING id`,
      (rows) => rows[0]!.id
    )
  )
  const notice = (t: { cpv: string; title: string; winner?: string }) =>
    Effect.flatMap(authority, (authorityId) =>
      Effect.suspend(() =>
        Effect.map(
          sql<{ id: string }>`INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv,
                                                 authority_id, publish_date, deadline, winner_fiscal_codes, source_url)
          VALUES ('test', ${`a${++n}-${Math.random()}`}, ${t.winner === undefined ? "contract" : "award"},
                  ${t.title}, '', ${t.cpv}, ${authorityId}, '2026-01-10T00:00:00Z',
                  ${t.winner === undefined ? "2099-01-01T00:00:00Z" : null},
                  ${t.winner === undefined ? [] : [t.winner]}::text[], 'https://example.test/n')
          RETURNING id`,
          (rows) => rows[0]!.id
        )
      )
    )
  /** Award notices: each supplier wins in each of the codes. */
  const awards = (suppliers: ReadonlyArray<string>, codes: ReadonlyArray<string>) =>
    Effect.forEach(
      suppliers.flatMap((winner) => codes.map((cpv) => ({ winner, cpv }))),
      ({ winner, cpv }) => notice({ cpv, title: "Contract atribuit", winner })
    )
  const companyWithFiscalCode = (fiscalCode: string) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO companies (tenant_id, name, description, fiscal_code)
                          VALUES (${tenant!.id}, 'Publicitate SRL', '', ${fiscalCode}) RETURNING id`,
      (rows) => rows[0]!.id
    )
  const watcher = (cpv: string) =>
    Effect.gen(function* () {
      const [row] = yield* sql<{ id: string }>`INSERT INTO companies (tenant_id, name, description)
                                                VALUES (${tenant!.id}, 'Agenție SRL', '') RETURNING id`
      yield* sql`INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score)
                 VALUES (${tenant!.id}, ${row!.id}, 'W', ${[cpv]}::char(10)[], '{}'::text[], 50)`
      return row!.id
    })
  const cpvScore = (companyId: string, tenderId: string) =>
    Effect.map(
      sql<{ cpv: number }>`SELECT score_cpv::float8 AS cpv FROM tender_scores
                           WHERE company_id = ${companyId} AND tender_id = ${tenderId}`,
      (rows) => (rows.length === 0 ? null : rows[0]!.cpv)
    )
  const state = Effect.map(
    sql<{ revision: string; model_version: string | null }>`
      SELECT revision::text AS revision, model_version FROM cpv_affinity_state`,
    (rows) => rows[0]!
  )
  return { sql, notice, awards, companyWithFiscalCode, watcher, cpvScore, state }
})

describe("CPV affinity learned from award notices (PostgreSQL)", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect(
      "relearned when award notices arrive: the third common supplier makes a co-awarded class a candidate, with the reason",
      () =>
        Effect.gen(function* () {
          const f = yield* fixtures
          const scoring = yield* ScoringService
          const reasons = yield* ScoreReasons
          const companyId = yield* f.companyWithFiscalCode("90000001")
          // The company wins publicity services (class 7934); two other firms win both 7934 and 3929;
          // eight others work in construction, so the pair is rarer than chance would make it.
          const first = [
            ...(yield* f.awards(["90000001"], ["79341000-6"])),
            ...(yield* f.awards(["80000001", "80000002"], ["79341000-6", "39294100-0"])),
            ...(yield* f.awards(
              Array.from({ length: 8 }, (_, i) => `7000000${i}`),
              ["45233142-6"]
            ))
          ]
          yield* scoring.scoreTenders(first, { isNew: [] })
          const before = yield* f.state
          expect(before.model_version).toBe(MODEL_VERSION)
          const promo = yield* f.notice({ cpv: "39294100-0", title: "Materiale promoționale inscripționate" })
          yield* scoring.scoreTenders([promo], { isNew: [promo] })
          // Two common suppliers: below the minimum support, so not a candidate.
          expect(yield* f.cpvScore(companyId, promo)).toBeNull()

          // A third firm's awards in both classes arrive (an import or a poll): the table is relearned.
          yield* scoring.scoreTenders(yield* f.awards(["80000003"], ["79341000-6", "39294100-0"]), { isNew: [] })
          const after = yield* f.state
          expect(BigInt(after.revision)).toBeGreaterThan(BigInt(before.revision))
          const learned = yield* f.sql<{ common: number; suppliers: number }>`
            SELECT common_suppliers AS common, class_suppliers AS suppliers FROM cpv_class_affinity
            WHERE cpv_class = '7934' AND other_class = '3929'`
          expect(learned).toEqual([{ common: 3, suppliers: 4 }])

          // A company that only watches publicity services is reached too (the prefilter's watchlist keys).
          const watching = yield* f.watcher("79341000-6")
          const promo2 = yield* f.notice({ cpv: "39294100-0", title: "Materiale promoționale inscripționate" })
          yield* scoring.scoreTenders([promo2], { isNew: [promo2] })
          expect(yield* f.cpvScore(watching, promo2)).toBeGreaterThan(0)
          const cpv = yield* f.cpvScore(companyId, promo2)
          expect(cpv).toBeGreaterThan(0)
          expect(cpv).toBeLessThanOrEqual(AFFINITY_MAX_SCORE)
          // A company rescore (the path every profile change takes) finds the earlier tender too.
          yield* scoring.rescoreCompany(companyId)
          expect(yield* f.cpvScore(companyId, promo)).toBeCloseTo(cpv!, 4)

          const en = (yield* reasons.reasonsFor(companyId, [promo2], "en")).get(promo2)!
          expect(en.cpv).toBe("firms that win 79341000 also win 39294100: 3 of 4")
          const ro = (yield* reasons.reasonsFor(companyId, [promo2], "ro")).get(promo2)!
          expect(ro.cpv).toBe("firmele care câștigă 79341000 câștigă și 39294100: 3 din 4")
        })
    )

    it.effect("a model version bump relearns the table with the new measure and backfills the older scores", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const scoring = yield* ScoringService
        const companyId = yield* f.companyWithFiscalCode("90000002")
        yield* f.awards(["81000001", "81000002", "81000003"], ["79341000-6", "39294100-0"])
        yield* f.awards(
          Array.from({ length: 8 }, (_, i) => `7100000${i}`),
          ["45233142-6"]
        )
        yield* scoring.scoreTenders(yield* f.awards(["90000002"], ["79341000-6"]), { isNew: [] })
        const promo = yield* f.notice({ cpv: "39294100-0", title: "Materiale promoționale" })
        yield* scoring.scoreTenders([promo], { isNew: [] })
        // As after migration 0023 on a database of the previous model: the table never computed by
        // this version, scores of tsm-1.3.0.
        yield* f.sql`UPDATE cpv_affinity_state SET model_version = NULL`
        yield* f.sql`DELETE FROM cpv_class_affinity`
        yield* f.sql`UPDATE tender_scores SET model_version = 'tsm-1.3.0'`
        expect(yield* scoring.backfillModelVersion).toBeGreaterThan(0)
        expect((yield* f.state).model_version).toBe(MODEL_VERSION)
        const [{ n }] = yield* f.sql<{ n: number }>`SELECT count(*)::int AS n FROM cpv_class_affinity`
        expect(n).toBeGreaterThan(0)
        const versions = yield* f.sql<{ v: string }>`SELECT DISTINCT model_version AS v FROM tender_scores`
        expect(versions.map((r) => r.v)).toEqual([MODEL_VERSION])
        // The company's class now reaches the promotional tender by affinity.
        expect(yield* f.cpvScore(companyId, promo)).toBeGreaterThan(0)
      })
    )

    it.effect("migration 0023 queues the backfill only when scores exist", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const migration = yield* Effect.promise(() =>
          import("node:fs").then((fs) =>
            fs.readFileSync(new URL("../../migrations/0023_cpv_affinity.sql", import.meta.url), "utf8")
          )
        )
        expect(migration).toContain("'scores.backfill'")
        expect(migration).toContain("WHERE EXISTS (SELECT 1 FROM tender_scores)")
        expect((yield* f.sql`SELECT 1 FROM cpv_affinity_state`).length).toBe(1)
      })
    )
  })
})
