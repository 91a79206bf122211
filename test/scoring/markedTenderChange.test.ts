import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { normalizeTenderRecord, type TenderRecordInput } from "../../src/domain/tenders/TenderRecord.js"
import { JobQueueLive } from "../../src/infra/queue/JobQueue.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TenderFeedback, TenderFeedbackLive } from "../../src/infra/scoring/TenderFeedback.js"
import { TenderStore, TenderStoreLive } from "../../src/infra/tenders/TenderStore.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = Layer.mergeAll(ScoringLive, JobQueueLive, TenderStoreLive, TenderFeedbackLive).pipe(
  Layer.provideMerge(TestDatabaseLive)
)

const AUTHORITY = { name: "Consiliul Județean Alba", fiscal_code: "RO4562583", county: "Alba" }

/** Feedback counts by the marked tender's main CPV class as it is now (README, "Feedback"). */
describe("a change notice that changes a marked tender's main CPV", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("rescores the companies that marked it, which then count the mark in its new class", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const store = yield* TenderStore
        const scoring = yield* ScoringService
        const feedback = yield* TenderFeedback
        const catalog = yield* store.cpvCatalog
        const notice = (overrides: Partial<TenderRecordInput>) =>
          Either.getOrThrow(
            normalizeTenderRecord(catalog, {
              source: "feedback-test",
              source_id: "C-1",
              title: "Asfaltare drum comunal",
              description: "",
              cpv_codes: ["45233142-6"],
              contracting_authority: AUTHORITY,
              estimated_value_ron: 300000,
              publish_date: "2026-01-05T07:00:00Z",
              deadline: "2099-01-01T00:00:00Z",
              source_url: "https://example.test/c-1",
              ...overrides
            })
          )
        const company = yield* f.company("Construcții SA", "Lucrări de construcții")
        yield* f.watchlist(company, { cpv: ["45000000-7"] })
        const marked = (yield* store.upsert([notice({})])).inserted
        const other = (yield* store.upsert([
          notice({ source_id: "C-2", title: "Reabilitare drum județean", source_url: "https://example.test/c-2" })
        ])).inserted
        yield* scoring.scoreTenders([...marked, ...other], { isNew: [] })
        const cpvScore = f.sql<{ cpv: number }>`
          SELECT score_cpv AS cpv FROM tender_scores WHERE company_id = ${company} AND tender_id = ${other[0]!}`.pipe(
          Effect.map((rows) => rows[0]?.cpv)
        )
        const unmarked = yield* cpvScore
        expect(unmarked).toBeDefined()
        yield* feedback.mark({
          tenantId: f.tenant,
          companyId: company,
          tenderId: marked[0]!,
          relevant: false,
          now: new Date()
        })
        yield* scoring.rescoreCompany(company)
        // The mark lowers the cpv factor of the company's tenders in the class 4523.
        expect(yield* cpvScore).toBeCloseTo(unmarked! - 0.1, 4)
        yield* f.sql`DELETE FROM jobs`
        const revision = f.sql<{
          rev: string
        }>`SELECT profile_rev::text AS rev FROM companies WHERE id = ${company}`.pipe(
          Effect.map((rows) => rows[0]!.rev)
        )
        const queuedRescores = f.sql<{ company_id: string }>`
          SELECT payload->>'companyId' AS company_id FROM jobs WHERE kind = 'company.rescore' AND status = 'queued'`.pipe(
          Effect.map((rows) => rows.map((row) => row.company_id))
        )
        // A change notice that leaves the code as it was changes no profile.
        const before = yield* revision
        yield* store.upsert([notice({ title: "Asfaltare drum comunal, etapa I" })])
        expect(yield* queuedRescores).toEqual([])
        expect(yield* revision).toBe(before)
        // One that makes it a bridge (class 4522) moves the mark out of 4523.
        yield* store.upsert([notice({ cpv_codes: ["45221111-3"] })])
        expect(yield* queuedRescores).toEqual([company])
        expect(yield* revision).not.toBe(before)
        yield* scoring.rescoreCompany(company)
        expect(yield* cpvScore).toBeCloseTo(unmarked!, 4)
      })
    )
  })
})
