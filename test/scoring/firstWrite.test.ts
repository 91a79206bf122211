import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Schedule } from "effect"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = ScoringLive.pipe(Layer.provideMerge(TestDatabaseLive))

/**
 * A batch of new tenders is written with a plain INSERT (ScoreWriter, `insert` mode); when a pair
 * has a row after all, the write runs again as an upsert instead of failing the job.
 */
describe("first write of a new tender's scores", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    /** A company watching road works and a new road tender it is scored for. */
    const roadWorks = Effect.gen(function* () {
      const f = yield* scoringFixtures
      const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
      yield* f.watchlist(company, { cpv: ["45233000-9"], minScore: 0 })
      const tender = yield* f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6" })
      return { f, company, tender }
    })

    /** Writes a stale row of the pair (score 1), as another writer would have. */
    const staleRow = (f: Effect.Effect.Success<typeof scoringFixtures>, company: string, tender: string) =>
      f.sql`INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict,
                                       score_semantic, score_keyword, score_cpv, score_value_fit, score_historical,
                                       cpv_type, model_version, scored_at, tender_publish_date, tender_ingest_seq)
            SELECT ${company}, t.id, 1, 0.5, 'SKIP', 0, 0, 0, 0, 0, 'none', 'tsm-stale', now(), t.publish_date, t.ingest_seq
            FROM tenders t WHERE t.id = ${tender}`

    it.effect("a job run again for the same new tenders rewrites their rows and raises no second alert", () =>
      Effect.gen(function* () {
        const { f, company, tender } = yield* roadWorks
        const scoring = yield* ScoringService
        const first = yield* scoring.scoreTenders([tender], { isNew: [tender] })
        expect(first).toEqual({ scored: 1, alerts: 1, events: 1 })
        const score = yield* f.storedScore(company, tender)
        yield* f.sql`UPDATE tender_scores SET overall_score = 1 WHERE tender_id = ${tender}`

        // The acknowledgement was lost and the job runs again: the INSERT meets the row, the upsert rewrites it.
        const again = yield* scoring.scoreTenders([tender], { isNew: [tender] })
        expect(again).toEqual({ scored: 1, alerts: 0, events: 0 })
        expect(yield* f.storedScore(company, tender)).toBe(score)
        const rows = yield* f.sql`SELECT 1 FROM tender_scores WHERE tender_id = ${tender}`
        expect(rows).toHaveLength(1)
      })
    )

    it.effect("a row written by a concurrent transaction while the INSERT waits on it is updated, not refused", () =>
      Effect.gen(function* () {
        const { f, company, tender } = yield* roadWorks
        const scoring = yield* ScoringService
        const inserted = yield* Deferred.make<void>()
        const commit = yield* Deferred.make<void>()
        const other = yield* f.sql
          .withTransaction(
            Effect.zipRight(
              Effect.zipRight(staleRow(f, company, tender), Deferred.succeed(inserted, undefined)),
              Deferred.await(commit)
            )
          )
          .pipe(Effect.fork)
        yield* Deferred.await(inserted)

        const writing = yield* Effect.fork(scoring.scoreTenders([tender], { isNew: [tender] }))
        // The writer's INSERT waits on the other transaction's uncommitted row of the pair.
        yield* f.sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
                                    WHERE datname = current_database() AND wait_event_type = 'Lock'`.pipe(
          Effect.map((rows) => rows[0]!.n),
          Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (n) => n > 0 }),
          Effect.timeout("10 seconds")
        )
        yield* Deferred.succeed(commit, undefined)
        yield* Fiber.join(other)

        expect(yield* Fiber.join(writing)).toEqual({ scored: 1, alerts: 1, events: 1 })
        const rows = yield* f.sql<{ overall_score: number; model_version: string }>`
          SELECT overall_score, model_version FROM tender_scores WHERE tender_id = ${tender}`
        expect(rows).toHaveLength(1)
        expect(rows[0]!.model_version).not.toBe("tsm-stale")
        expect(rows[0]!.overall_score).toBeGreaterThan(1)
      })
    )
  })
})
