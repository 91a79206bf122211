import { Effect, Layer } from "effect"
import { extractText, getDocumentProxy } from "unpdf"
import type { ReportData, ReportTender } from "../../src/domain/reports/ReportData.js"
import { JobQueue, JobQueueLive } from "../../src/infra/queue/JobQueue.js"
import { RenderReport, ReportJobsRepo, ReportJobsRepoLive } from "../../src/infra/reports/ReportJobsRepo.js"
import { DatabaseReportStorageLive } from "../../src/infra/reports/ReportStorage.js"
import type { TestServer } from "../support/TestServer.js"

/** Reasons as ScoreReasons phrases them in Romanian (test/scoring/reasons.test.ts checks the phrasing). */
export const SAMPLE_REASONS = {
  semantic: "descrierea are în comun: asfaltare, drum, județean",
  keyword: "cuvinte cheie găsite: asfaltare, drum județean",
  cpv: "codul CPV principal 45233120-6 se află în categoria 45233, pe care o urmăriți",
  value_fit: "1,3 mil. RON, în intervalul urmărit 0,3-40 mil. RON",
  historical: "ați câștigat 3 contracte: 2 de la această autoritate, 1 în clasa 4523"
}

/** A report's data as the template takes it, without a database: `tenders` rows with Romanian text. */
export const sampleReport = (tenders: number, overrides: Partial<ReportData> = {}): ReportData => {
  const rows: Array<ReportTender> = Array.from({ length: tenders }, (_, i) => ({
    tenderId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    title: `Reabilitare drum județean DJ ${100 + i} și poduri în comuna Florești`,
    score: 95 - (i % 90),
    verdict: 95 - (i % 90) >= 70 ? "GO" : 95 - (i % 90) >= 40 ? "RESEARCH" : "SKIP",
    cpvCode: "45233120-6",
    cpvLabel: "Lucrări de construcții de drumuri",
    authority: "Consiliul Județean Cluj",
    county: "Cluj",
    deadline: Date.UTC(2026, 11, 15, 10),
    cancelled: false,
    publishDate: Date.UTC(2026, 10, 1, 8),
    valueRon: 1_250_000 + i * 1000
  }))
  return {
    tenantName: "Demo Consultanță Achiziții SRL",
    companyName: "Drumuri și Poduri Transilvania SRL",
    watchlistName: null,
    params: { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 0, watchlist_id: null },
    generatedAt: Date.UTC(2026, 10, 23, 15, 0),
    totalTenders: tenders,
    verdictCounts: {
      GO: rows.filter((r) => r.verdict === "GO").length,
      RESEARCH: rows.filter((r) => r.verdict === "RESEARCH").length,
      SKIP: rows.filter((r) => r.verdict === "SKIP").length
    },
    averageScore: tenders === 0 ? null : rows.reduce((a, r) => a + r.score, 0) / tenders,
    totalValueRon: rows.reduce((a, r) => a + (r.valueRon ?? 0), 0),
    tenders: rows,
    breakdowns: rows.slice(0, 5).map((r) => ({
      tenderId: r.tenderId,
      title: r.title,
      score: r.score,
      verdict: r.verdict,
      deadline: r.deadline,
      cancelled: r.cancelled,
      reasons: SAMPLE_REASONS,
      factors: [
        { name: "semantic", score: 0.8, weight: 0.25, contribution: 20 },
        { name: "keyword", score: 0.5, weight: 0.15, contribution: 7.5 },
        { name: "cpv", score: 1, weight: 0.3, contribution: 30 },
        { name: "value_fit", score: 1, weight: 0.1, contribution: 10 },
        { name: "historical", score: 0.5, weight: 0.2, contribution: 10 }
      ]
    })),
    ...overrides
  }
}

/** Page count and text of a PDF, read with unpdf (pdf.js). */
export const readPdf = async (bytes: Uint8Array) => {
  const document = await getDocumentProxy(new Uint8Array(bytes))
  const { totalPages, text } = await extractText(document, { mergePages: true })
  return { pages: totalPages, text }
}

/** A stand-in PDF: what a completed report's download serves when the test renders nothing. */
export const STAND_IN_PDF = new TextEncoder().encode("%PDF-1.4 stand-in\n%%EOF")

/**
 * Completes the oldest waiting report job with STAND_IN_PDF, as a worker does after rendering
 * (claim, start, complete): for tests of what the API does with a completed report.
 */
export const completeNextReportJob = (server: TestServer) =>
  server.run(
    Effect.gen(function* () {
      const reports = yield* ReportJobsRepo
      const queue = yield* JobQueue
      const { jobs } = yield* queue.claim({
        kinds: [RenderReport.name],
        workerId: "test-worker",
        limit: 1,
        lease: "1 minute"
      })
      const reportId = (jobs[0]!.payload as { reportId: string }).reportId
      yield* reports.start(reportId)
      return yield* reports.complete(jobs[0]!, reportId, STAND_IN_PDF)
    }).pipe(Effect.provide(Layer.merge(ReportJobsRepoLive, JobQueueLive)), Effect.provide(DatabaseReportStorageLive))
  )
