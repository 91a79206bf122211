import { randomUUID } from "node:crypto"
import { Cause, Config, Duration, Effect, Layer, Queue, Ref, Schedule, Stream } from "effect"
import { REPORT_RETENTION } from "../domain/reports/ReportJob.js"
import { reportFooterHtml, reportHtml } from "../domain/reports/ReportTemplate.js"
import { PdfRenderer } from "../infra/reports/PdfRenderer.js"
import { ReportContents, ReportContentsLive } from "../infra/reports/ReportContents.js"
import { type ClaimedReport, ReportJobsRepo, ReportJobsRepoLive } from "../infra/reports/ReportJobsRepo.js"
import { DatabaseReportStorageLive } from "../infra/reports/ReportStorage.js"
import { runOnWakeups } from "./WakeLoop.js"

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
 * The report actor of a worker: claims queued report jobs (woken by NOTIFY and polling), loads each
 * report's data, has the renderer actor (PdfRenderer, its own process) print it, and completes the
 * job with its PDF and charge. A failed attempt is retried until the job's attempts are used up; a
 * reaper returns the jobs of dead workers once their lease runs out; a sweep removes reports
 * REPORT_RETENTION after they finished.
 */
export const ReportDispatcherLive = (
  options: ReportDispatcherOptions = {}
): Layer.Layer<never, never, ReportJobsRepo | ReportContents | PdfRenderer> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const repo = yield* ReportJobsRepo
      const contents = yield* ReportContents
      const renderer = yield* PdfRenderer
      const workerId = `reports-${randomUUID()}`
      const concurrency = options.concurrency ?? 2
      const lease = Duration.decode(options.lease ?? DEFAULT_REPORT_LEASE)
      const inFlight = yield* Ref.make(0)
      const finished = yield* Queue.sliding<void>(1)
      const scope = yield* Effect.scope

      const attempt = (job: ClaimedReport) =>
        Effect.gen(function* () {
          const data = yield* contents.load({ companyId: job.companyId, params: job.params })
          const pdf = yield* renderer.render({ html: reportHtml(data), footerHtml: reportFooterHtml(data) })
          return yield* repo.complete(workerId, job, pdf)
        }).pipe(
          // The heartbeat: a long render keeps its claim; a dead worker stops renewing it.
          Effect.raceFirst(
            repo.extend(workerId, job.id, lease).pipe(Effect.delay(Duration.times(lease, 1 / 3)), Effect.forever)
          ),
          Effect.catchAllCause((cause) =>
            repo
              .fail(workerId, job, Cause.pretty(cause).split("\n")[0]!.slice(0, 500))
              .pipe(
                Effect.tap((outcome) =>
                  Effect.logWarning(`Report job ${job.id}: attempt ${job.attempts} failed (${outcome})`, cause)
                )
              )
          ),
          Effect.tap((outcome) =>
            outcome === "lost"
              ? Effect.logInfo(`Report job ${job.id}: outcome dropped (reaped meanwhile)`)
              : Effect.void
          ),
          Effect.ensuring(
            Effect.zipRight(
              Ref.update(inFlight, (n) => n - 1),
              Queue.offer(finished, undefined)
            )
          )
        )

      const pass: Effect.Effect<void> = Effect.gen(function* () {
        const room = concurrency - (yield* Ref.get(inFlight))
        if (room <= 0) return
        const jobs = yield* repo.claim({ workerId, limit: room, lease })
        for (const job of jobs) {
          yield* Ref.update(inFlight, (n) => n + 1)
          yield* Effect.forkIn(attempt(job), scope)
        }
        if (jobs.length === room) yield* pass
      })

      const wakeups = Stream.merge(repo.wakeups, Stream.fromQueue(finished))
      yield* runOnWakeups("Report dispatcher", wakeups, options.pollEvery ?? Duration.seconds(1), pass).pipe(
        Effect.forkIn(scope)
      )
      const survive = (what: string) => (cause: Cause.Cause<never>) =>
        Effect.logError(`Report dispatcher: ${what} failed`, cause)
      yield* repo.reap.pipe(
        Effect.tap((n) =>
          n > 0 ? Effect.logWarning(`Returned ${n} expired report job(s) to the queue`) : Effect.void
        ),
        Effect.catchAllCause(survive("reaper")),
        Effect.repeat(
          Schedule.spaced(options.reapEvery ?? Duration.min(Duration.seconds(15), Duration.times(lease, 0.5)))
        ),
        Effect.forkIn(scope)
      )
      yield* Effect.gen(function* () {
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        const removed = yield* repo.sweep(new Date(now - Duration.toMillis(REPORT_RETENTION)))
        if (removed > 0) yield* Effect.logInfo(`Removed ${removed} report(s) past their retention`)
      }).pipe(
        Effect.catchAllCause(survive("retention sweep")),
        Effect.repeat(Schedule.spaced(options.sweepEvery ?? Duration.hours(1))),
        Effect.forkIn(scope)
      )
      yield* Effect.logInfo(`Report dispatcher ${workerId}: ${concurrency} at once`)
    })
  )

/**
 * `REPORT_JOB_LEASE_SECONDS` (default 120): how long a claimed report job is held without its
 * heartbeat before the reaper gives it to another worker. Tests of a killed worker set a few seconds.
 */
export const reportLease = Config.integer("REPORT_JOB_LEASE_SECONDS").pipe(
  Config.validate({ message: "REPORT_JOB_LEASE_SECONDS: Expected a positive integer", validation: (n) => n > 0 }),
  Config.withDefault(120),
  Config.map(Duration.seconds)
)

/** The report actor with its repositories; needs a PdfRenderer and the database. */
export const ReportWorkLive = (options: ReportDispatcherOptions = {}) =>
  ReportDispatcherLive(options).pipe(
    Layer.provide(Layer.merge(ReportJobsRepoLive.pipe(Layer.provide(DatabaseReportStorageLive)), ReportContentsLive))
  )

/** The report actor as a worker process runs it, its lease read from the environment. */
export const ReportWorkFromEnv = Layer.unwrapEffect(Effect.map(reportLease, (lease) => ReportWorkLive({ lease })))
