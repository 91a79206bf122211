import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { normalizeTenderRecord, type TenderRecordInput } from "../../src/domain/tenders/TenderRecord.js"
import { JobQueueLive } from "../../src/infra/queue/JobQueue.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TenderStore, TenderStoreLive } from "../../src/infra/tenders/TenderStore.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = Layer.mergeAll(ScoringLive, JobQueueLive, TenderStoreLive).pipe(Layer.provideMerge(TestDatabaseLive))

const AUTHORITY = { name: "Consiliul Județean Alba", fiscal_code: "RO4562583", county: "Alba" }

describe("an award notice that stops naming a winner", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("an erratum that names another winner rescores the company that lost the award", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const store = yield* TenderStore
        const scoring = yield* ScoringService
        const catalog = yield* store.cpvCatalog
        const notice = (overrides: Partial<TenderRecordInput>) =>
          Either.getOrThrow(
            normalizeTenderRecord(catalog, {
              source: "winners-test",
              source_id: "A-1",
              title: "Proiectare pod",
              description: "",
              cpv_codes: ["71322000-1"],
              contracting_authority: AUTHORITY,
              estimated_value_ron: 300000,
              publish_date: "2026-01-05T07:00:00Z",
              source_url: "https://example.test/a-1",
              ...overrides
            })
          )
        const [company] = yield* f.sql<{ id: string }>`
          INSERT INTO companies (tenant_id, name, description, fiscal_code)
          VALUES (${f.tenant}, 'Proiect SRL', 'Proiectare', '22505268') RETURNING id`
        yield* f.watchlist(company!.id, { cpv: ["71320000-7"] })
        const award = (yield* store.upsert([notice({ winner_fiscal_codes: ["22505268"] })])).inserted
        const open = (yield* store.upsert([
          notice({
            source_id: "C-1",
            title: "Proiectare drum",
            estimated_value_ron: 280000,
            deadline: "2099-01-01T00:00:00Z"
          })
        ])).inserted
        yield* scoring.scoreTenders([...award, ...open], { isNew: [] })
        yield* f.sql`DELETE FROM jobs`
        const historical = f.sql<{ h: number }>`
          SELECT score_historical AS h FROM tender_scores WHERE company_id = ${company!.id} AND tender_id = ${open[0]!}`.pipe(
          Effect.map((rows) => rows[0]?.h)
        )
        expect(yield* historical).toBeGreaterThan(0.9)
        // An erratum of the award names another winner: the company lost it.
        const { updated } = yield* store.upsert([notice({ winner_fiscal_codes: ["14056826"] })])
        yield* scoring.scoreTenders(updated, { isNew: [], changed: updated })
        const queued = yield* f.sql<{ company_id: string }>`
          SELECT payload->>'companyId' AS company_id FROM jobs WHERE kind = 'company.rescore' AND status = 'queued'`
        expect(queued.map((job) => job.company_id)).toEqual([company!.id])
        yield* scoring.rescoreCompany(company!.id)
        expect(yield* historical).toBe(0.5)
      })
    )
  })
})
