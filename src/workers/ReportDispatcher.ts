import type { SqlClient } from "@effect/sql"
import { Cause, Config, Duration, Effect, Exit, Layer, Option, Schedule } from "effect"
import { REPORT_RETENTION } from "../domain/reports/ReportJob.js"
import { reportFooterHtml, reportHtml } from "../domain/reports/ReportTemplate.js"
import { readConfig } from "../infra/config/AppConfig.js"
import { Metrics } from "../infra/metrics/Metrics.js"
import type { JobQueue } from "../infra/queue/JobQueue.js"
import { handle, JobRunnerLive, settleAfterRun } from "../infra/queue/JobRunner.js"
import { PdfRenderer } from "../infra/reports/PdfRenderer.js"
import { ReportContents, ReportContentsLive } from "../infra/reports/ReportContents.js"
import { ReportIdempotencyKeys, ReportIdempotencyKeysLive } from "../infra/reports/ReportIdempotencyKeys.js"
import {
  type AttemptOutcome,
  RenderReport,
  ReportJobsRepo,
  ReportJobsRepoLive
} from "../infra/reports/ReportJobsRepo.js"
import { DatabaseReportStorageLive } from "../infra/reports/ReportStorage.js"

export interface ReportDispatcherOptions {
  /** Reports rendered at once by this worker. */
  readonly concurrency?: number
  /** How long a claim is held without a heartbeat; the heartbeat renews it every third of it. */
  readonly lease?: Duration.DurationInput
  readonly pollEvery?: Duration.DurationInput
  readonly reapEvery?: Duration.DurationInput
  readonly sweepEvery?: Duration.DurationInput
}

export const DEFAULT_REPORT_LEASE = Duration.minutes(2)

/**
 * A `report.render` job: loads the report's data, has the renderer actor (PdfRenderer, its own
 * process) print it, and completes the report with its PDF and charge (the runner's settlement, tried
 * again while it fails). A failed attempt leaves the report `pending` until the queue's retry, and
 * `failed` with its hold released after the last one.
 */
export const renderReportJob = handle(
  RenderReport,
  ({ reportId }, job) =>
    Effect.gen(function* () {
      const repo = yield* ReportJobsRepo
      const started = yield* repo.start(reportId)
      if (Option.isNone(started)) return "completed" as const
      const report = started.value
      const metrics = yield* Metrics
      const renderStarted = performance.now()
      const rendered = yield* Effect.exit(
        Effect.gen(function* () {
          const data = yield* (yield* ReportContents).load({ companyId: report.companyId, params: report.params })
          return yield* (yield* PdfRenderer)
            .render({ html: reportHtml(data), footerHtml: reportFooterHtml(data) })
            .pipe(Effect.withSpan("report.render", { attributes: { "report.id": reportId } }))
        })
      )
      const dropped = (outcome: AttemptOutcome) =>
        outcome === "lost" ? Effect.logInfo(`Report job ${reportId}: outcome dropped (reaped meanwhile)`) : Effect.void
      if (Exit.isFailure(rendered)) {
        metrics.reportRenders.inc({ outcome: "failed" })
        const outcome = yield* repo.recordFailure(
          job,
          reportId,
          Cause.pretty(rendered.cause).split("\n")[0]!.slice(0, 500)
        )
        yield* Effect.logWarning(`Report job ${reportId}: attempt ${job.attempts} failed (${outcome})`, rendered.cause)
        yield* dropped(outcome)
        return "settled" as const
      }
      // The PDF rendered: stored and charged by the runner's settlement, tried again while the database
      // fails it, not turned into a failed attempt (on the last one, `failed` and its hold released).
      return yield* settleAfterRun(
        repo.complete(job, reportId, rendered.value).pipe(
          Effect.tap((outcome) => {
            metrics.reportRenders.inc({ outcome: "completed" })
            metrics.reportRenderDuration.observe((performance.now() - renderStarted) / 1000)
            return dropped(outcome)
          }),
          Effect.map((outcome) => outcome !== "lost")
        )
      )
    }),
  ({ reportId }, _job, error) => Effect.flatMap(ReportJobsRepo, (repo) => repo.recordDead(reportId, error))
)

/**
 * Removes reports REPORT_RETENTION after they finished, and creations' idempotency keys past their
 * 24 hours, at start and every `sweepEvery`.
 */
const RetentionSweepLive = (sweepEvery: Duration.DurationInput) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const repo = yield* ReportJobsRepo
      const idempotencyKeys = yield* ReportIdempotencyKeys
      yield* Effect.gen(function* () {
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        const removed = yield* repo.sweep(new Date(now - Duration.toMillis(REPORT_RETENTION)))
        if (removed > 0) yield* Effect.logInfo(`Removed ${removed} report(s) past their retention`)
        const expired = yield* idempotencyKeys.purgeExpired
        if (expired > 0) yield* Effect.logInfo(`Removed ${expired} report idempotency key(s) past their 24 hours`)
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logError("Report retention sweep failed", cause)),
        Effect.repeat(Schedule.spaced(sweepEvery)),
        Effect.forkScoped
      )
    })
  )

/**
 * The report runner of a worker, on the one queue: `concurrency` renders at once, each claim kept
 * alive by a heartbeat while it renders (a dead worker stops renewing it and the reaper gives the
 * job to another), and the retention sweep.
 */
export const ReportDispatcherLive = (
  options: ReportDispatcherOptions = {}
): Layer.Layer<
  never,
  never,
  ReportJobsRepo | ReportIdempotencyKeys | ReportContents | PdfRenderer | JobQueue | SqlClient.SqlClient
> => {
  const lease = Duration.decode(options.lease ?? DEFAULT_REPORT_LEASE)
  return Layer.merge(
    JobRunnerLive([renderReportJob], {
      name: "reports",
      concurrency: options.concurrency ?? 2,
      lease,
      pollEvery: options.pollEvery ?? Duration.seconds(1),
      reapEvery: options.reapEvery ?? Duration.min(Duration.seconds(15), Duration.times(lease, 0.5))
    }),
    RetentionSweepLive(options.sweepEvery ?? Duration.hours(1))
  )
}

/**
 * `REPORT_JOB_LEASE_SECONDS` (default 120): how long a claimed report job is held without its
 * heartbeat before the reaper gives it to another worker. Tests of a killed worker set a few seconds.
 */
export const reportLease = Config.integer("REPORT_JOB_LEASE_SECONDS").pipe(
  Config.validate({ message: "REPORT_JOB_LEASE_SECONDS: Expected a positive integer", validation: (n) => n > 0 }),
  Config.withDefault(120),
  Config.map(Duration.seconds)
)

/** The report runner with its repositories; needs a PdfRenderer and the database. */
export const ReportWorkLive = (options: ReportDispatcherOptions = {}) =>
  ReportDispatcherLive(options).pipe(
    Layer.provide(
      Layer.mergeAll(
        ReportJobsRepoLive.pipe(Layer.provide(DatabaseReportStorageLive)),
        ReportIdempotencyKeysLive,
        ReportContentsLive
      )
    )
  )

/** The report runner as a worker process runs it, its lease read from the environment. */
export const ReportWorkFromEnv = Layer.unwrapEffect(
  Effect.map(readConfig(reportLease), (lease) => ReportWorkLive({ lease }))
)
