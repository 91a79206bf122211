import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { drainDueJobs } from "../../src/infra/queue/JobRunner.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { RendererProcessLive } from "../../src/infra/reports/PdfRenderer.js"
import { ReportContentsLive } from "../../src/infra/reports/ReportContents.js"
import { ReportIdempotencyKeysLive } from "../../src/infra/reports/ReportIdempotencyKeys.js"
import { RenderReport, ReportJobsRepo, ReportJobsRepoLive } from "../../src/infra/reports/ReportJobsRepo.js"
import { DatabaseReportStorageLive, ReportStorage } from "../../src/infra/reports/ReportStorage.js"
import { renderReportJob } from "../../src/workers/ReportDispatcher.js"
import { failUpdates } from "../support/FailingUpdates.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** The report job's parts on a real database, rendering with the real renderer actor (its own process, Chromium). */
const TestLayer = Layer.mergeAll(ReportJobsRepoLive, ReportIdempotencyKeysLive, ReportContentsLive).pipe(
  Layer.provideMerge(DatabaseReportStorageLive),
  Layer.provideMerge(RepositoriesLive),
  Layer.provideMerge(TestDatabaseLive),
  Layer.provideMerge(
    RendererProcessLive({
      chromiumPath: Option.fromNullable(process.env.CHROMIUM_PATH),
      concurrency: 1,
      renderTimeout: Duration.seconds(60)
    })
  )
)

const PARAMS = { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 0, watchlist_id: null }

/** Makes the completion of a report fail its first `failures` times. */
const failReportCompletions = (failures: number) =>
  failUpdates({
    name: "fail_report_completion",
    table: "report_jobs",
    when: "NEW.status = 'completed'",
    failures,
    message: "connection reset while completing the report"
  })

describe("a report rendered but whose completion failed (a connection cut, a statement timeout)", () => {
  layer(TestLayer, { excludeTestServices: true, timeout: 180_000 })((it) => {
    it.effect(
      "the completion is tried again: `completed` with its PDF and charge after its one render, not a failed attempt",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [tenant] = yield* sql<{ id: string }>`
            INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`
          const [company] = yield* sql<{ id: string }>`
            INSERT INTO companies (tenant_id, name) VALUES (${tenant!.id}, 'C') RETURNING id`
          yield* (yield* CreditLedger).set({ tenantId: tenant!.id, remaining: 25, reason: "test" })
          const report = yield* (yield* ReportJobsRepo).create({
            tenantId: tenant!.id,
            companyId: company!.id,
            params: PARAMS
          })
          yield* failReportCompletions(2)
          const ran = yield* drainDueJobs([renderReportJob], {
            name: "test",
            concurrency: 1,
            lease: "2 minutes",
            pollEvery: "1 minute"
          })
          expect(ran).toBe(1)
          const [row] = yield* sql<{ status: string; credits_held: number; error: string | null; attempts: number }>`
            SELECT r.status, r.credits_held, r.error, j.attempts FROM report_jobs r
            JOIN jobs j ON j.kind = ${RenderReport.name} AND j.payload ->> 'reportId' = r.id::text
            WHERE r.id = ${report.id}`
          expect(row).toEqual({ status: "completed", credits_held: 0, error: null, attempts: 1 })
          const pdf = yield* (yield* ReportStorage).get(report.id)
          expect(Option.map(pdf, (bytes) => Buffer.from(bytes.subarray(0, 5)).toString())).toEqual(Option.some("%PDF-"))
          expect((yield* (yield* CreditLedger).balance(tenant!.id)).remaining).toBe(15)
        }).pipe(Effect.orDie),
      180_000
    )
  })
})
