import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { MODEL_VERSION } from "../../src/domain/scoring/Model.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = ScoringLive.pipe(Layer.provideMerge(TestDatabaseLive))

/** A page of the backfill's first pass (ScoringReads.openContractTendersAfter). */
const PAGE = 2000

describe("a model version's backfill resumed after a crash", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("adds the pairs only the new model stores on the open tenders its first pass had not reached", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        yield* f.watchlist(company, { cpv: ["45233000-9"], minScore: 0 })
        // The only pair the old model stored, on the first page ...
        const scoredBefore = yield* f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6" })
        yield* scoring.scoreTenders([scoredBefore], { isNew: [] })
        yield* f.sql`UPDATE tender_scores SET model_version = 'tsm-0.9.0'`
        // ... a page of other trades' tenders, no pair of the company's ...
        yield* f.sql`
          INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv, additional_cpvs,
                               authority_id, estimated_value_ron, publish_date, winner_fiscal_codes, source_url)
          SELECT 'test', 'filler-' || i, 'contract', 'Furnizare consumabile medicale', '', '33141000-0',
                 '{}'::char(10)[], ${f.authority}, 1000, '2026-01-10T00:00:00Z', '{}'::text[], 'https://example.test/f'
          FROM generate_series(1, ${PAGE}) AS i`
        // ... and, on the second page, tenders the new model pairs with the company (the old one did not).
        const crashes = yield* f.tender({ title: "Asfaltare drum județean", cpv: "45233142-6" })
        const newOnly = [
          yield* f.tender({ title: "Reabilitare drum comunal", cpv: "45233142-6" }),
          yield* f.tender({ title: "Asfaltare străzi", cpv: "45233142-6" })
        ]
        // The worker dies writing the second page.
        yield* f.sql`CREATE FUNCTION crash_on_write() RETURNS trigger LANGUAGE plpgsql AS $$
                     BEGIN RAISE EXCEPTION 'worker killed'; END $$`
        yield* f.sql.unsafe(`CREATE TRIGGER crash_on_write BEFORE INSERT ON tender_scores FOR EACH ROW
                             WHEN (NEW.tender_id = '${crashes}'::uuid) EXECUTE FUNCTION crash_on_write()`)
        expect(Exit.isFailure(yield* Effect.exit(scoring.backfillModelVersion))).toBe(true)
        yield* f.sql`DROP TRIGGER crash_on_write ON tender_scores`
        // No row of another version is left: the first page rewrote the only one.
        const versions = yield* f.sql<{ model_version: string }>`SELECT DISTINCT model_version FROM tender_scores`
        expect(versions.map((row) => row.model_version)).toEqual([MODEL_VERSION])
        // The job is retried: its first pass goes on with the second page.
        yield* scoring.backfillModelVersion
        for (const tender of [crashes, ...newOnly]) expect(yield* f.storedScore(company, tender)).toBeDefined()
        // Finished: nothing left to do.
        expect(yield* scoring.backfillModelVersion).toBe(0)
      })
    )
  })
})
