import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { StoredScoreFloor } from "../../src/infra/scoring/ScoreWriter.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = ScoringLive.pipe(
  Layer.provideMerge(TestDatabaseLive),
  Layer.provideMerge(Layer.succeed(StoredScoreFloor, 0))
)

describe("partitioned scores (migration 0024)", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a change notice that moves the publish date keeps one row per pair, in the new month's partition", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        yield* f.sql`SELECT score_partitions_ensure('2026-01-01', '2026-04-01')`
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        yield* f.watchlist(company, { cpv: ["45233000-9"] })
        const tender = yield* f.tender({
          title: "Reabilitare drumuri comunale",
          cpv: "45233142-6",
          publishDate: "2026-01-10T08:00:00Z"
        })
        yield* scoring.scoreTenders([tender], { isNew: [tender] })
        const rowsOf = f.sql<{ partition: string; tender_publish_date: Date }>`
          SELECT tableoid::regclass::text AS partition, tender_publish_date FROM tender_scores
          WHERE company_id = ${company} AND tender_id = ${tender}`
        expect((yield* rowsOf).map((r) => r.partition)).toEqual(["tender_scores_p2026_01"])

        // The change notice moves it to March: the tender's rescore.
        yield* f.sql`UPDATE tenders SET publish_date = '2026-03-05T08:00:00Z' WHERE id = ${tender}`
        yield* scoring.scoreTenders([tender], { isNew: [], changed: [tender] })
        const moved = yield* rowsOf
        expect(moved.map((r) => [r.partition, r.tender_publish_date.toISOString()])).toEqual([
          ["tender_scores_p2026_03", "2026-03-05T08:00:00.000Z"]
        ])
        // The January row is a removed version (a cursor opened before still sees it, once).
        const [versions] = yield* f.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM tender_score_history
          WHERE company_id = ${company} AND tender_id = ${tender} AND tender_publish_date = '2026-01-10T08:00:00Z'`
        expect(versions!.n).toBe(1)

        // Moved again, then the company's rescore (the other writer) rewrites the pair: still one row.
        yield* f.sql`UPDATE tenders SET publish_date = '2026-02-14T08:00:00Z' WHERE id = ${tender}`
        yield* scoring.rescoreCompany(company)
        expect((yield* rowsOf).map((r) => r.partition)).toEqual(["tender_scores_p2026_02"])
        // And a rescore with the date unchanged updates in place.
        yield* scoring.rescoreCompany(company)
        yield* scoring.scoreTenders([tender], { isNew: [] })
        expect((yield* rowsOf).length).toBe(1)
      })
    )

    it.effect("a deactivated company's row moves with the publish date, its score as it was", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        yield* f.sql`SELECT score_partitions_ensure('2026-01-01', '2026-04-01')`
        const active = yield* f.company("Drumuri SA", "Asfaltare drumuri")
        yield* f.watchlist(active, { cpv: ["45233000-9"] })
        const paused = yield* f.company("Construcții SA", "Construcții civile")
        yield* f.watchlist(paused, { cpv: ["45000000-7"] })
        const tender = yield* f.tender({
          title: "Asfaltare drumuri comunale",
          cpv: "45233142-6",
          publishDate: "2026-01-10T08:00:00Z"
        })
        // Only the deactivated company's: its rescore writes no row at all.
        const lone = yield* f.tender({
          title: "Construcție pod peste râul Olt",
          cpv: "45221111-3",
          publishDate: "2026-01-12T08:00:00Z"
        })
        yield* scoring.scoreTenders([tender, lone], { isNew: [tender, lone] })
        const rowsOf = (tenderId: string) =>
          f.sql<{ company_id: string; tender_publish_date: Date; overall_score: number; scored_at: Date }>`
            SELECT company_id, tender_publish_date, overall_score, scored_at FROM tender_scores
            WHERE tender_id = ${tenderId} ORDER BY company_id`
        expect((yield* rowsOf(tender)).map((row) => row.company_id).sort()).toEqual([active, paused].sort())
        expect((yield* rowsOf(lone)).map((row) => row.company_id)).toEqual([paused])
        const [before] = (yield* rowsOf(tender)).filter((row) => row.company_id === paused)
        const [loneBefore] = yield* rowsOf(lone)
        yield* f.sql`UPDATE companies SET active = false WHERE id = ${paused}`
        yield* f.sql`UPDATE tenders SET publish_date = '2026-03-05T08:00:00Z' WHERE id IN (${tender}, ${lone})`
        yield* scoring.scoreTenders([tender, lone], { isNew: [], changed: [tender, lone] })
        const moved = yield* rowsOf(tender)
        expect(moved.map((row) => row.tender_publish_date.toISOString())).toEqual([
          "2026-03-05T08:00:00.000Z",
          "2026-03-05T08:00:00.000Z"
        ])
        expect(moved.find((row) => row.company_id === paused)).toEqual({
          ...before,
          tender_publish_date: new Date("2026-03-05T08:00:00Z")
        })
        expect(yield* rowsOf(lone)).toEqual([{ ...loneBefore, tender_publish_date: new Date("2026-03-05T08:00:00Z") }])
      })
    )

    it.effect(
      "a row whose month has no partition lands in the default partition, and moves out when its month is created",
      () =>
        Effect.gen(function* () {
          const f = yield* scoringFixtures
          const scoring = yield* ScoringService
          const company = yield* f.company("Med SRL", "Furnizăm echipamente medicale, ecografe")
          yield* f.watchlist(company, { cpv: ["33100000-1"] })
          const tender = yield* f.tender({
            title: "Furnizare ecograf",
            cpv: "33112200-0",
            publishDate: "2019-05-06T08:00:00Z"
          })
          yield* scoring.scoreTenders([tender], { isNew: [] })
          const partitionOf = f.sql<{ partition: string }>`
          SELECT tableoid::regclass::text AS partition FROM tender_scores WHERE tender_id = ${tender}`
          expect((yield* partitionOf).map((r) => r.partition)).toEqual(["tender_scores_default"])
          yield* f.sql`SELECT score_partitions_ensure('2019-05-01', '2019-05-01')`
          expect((yield* partitionOf).map((r) => r.partition)).toEqual(["tender_scores_p2019_05"])
        })
    )
  })
})
