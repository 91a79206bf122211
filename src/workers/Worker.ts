import { randomUUID } from "node:crypto"
import { Config, Duration, Effect, Layer, Schedule } from "effect"
import { type Job, JobQueue } from "../infra/queue/JobQueue.js"
import { runOnWakeups } from "./WakeLoop.js"

/**
 * What a worker does with one job of a kind; a failure is retried by the queue after the delay of
 * `JobRetrySchedule` (src/domain/Retries.ts).
 * `R` is the services the handler needs: the worker's layer requires them, so they are provided.
 */
export type JobHandler<R = never> = (job: Job) => Effect.Effect<void, unknown, R>

export interface WorkerOptions<R> {
  readonly handlers: Readonly<Record<string, JobHandler<R>>>
  /** Jobs run at once by this process. */
  readonly concurrency?: number
  readonly pollEvery?: Duration.DurationInput
  readonly lease?: Duration.DurationInput
}

/**
 * The dispatcher of a worker process: claims due jobs of the kinds it has handlers for and runs
 * each in its own fiber. Woken by NOTIFY on the jobs channel, with polling as the safety net and a
 * reaper that returns the jobs of crashed workers to the queue when their lease runs out.
 */
export const WorkerLive = <R = never>(options: WorkerOptions<R>): Layer.Layer<never, never, JobQueue | R> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const queue = yield* JobQueue
      const workerId = `worker-${randomUUID()}`
      const kinds = Object.keys(options.handlers)
      const concurrency = options.concurrency ?? 4
      const lease = options.lease ?? Duration.minutes(5)
      if (kinds.length === 0) return

      const runOne = (job: Job) =>
        options.handlers[job.kind]!(job).pipe(
          Effect.matchCauseEffect({
            onSuccess: () => queue.complete(job.id),
            onFailure: (cause) =>
              queue
                .fail(job, String(cause))
                .pipe(
                  Effect.tap((outcome) => Effect.logWarning(`Job ${job.kind} #${job.id} failed (${outcome})`, cause))
                )
          })
        )

      // A claim and the runs of what it claimed are uninterruptible: on shutdown (SIGTERM) the
      // process waits for the jobs in hand to finish and be recorded, instead of abandoning them
      // as 'running' until their lease runs out. No new claim starts once shutdown has begun.
      const drain: Effect.Effect<void, never, R> = Effect.gen(function* () {
        const jobs = yield* Effect.uninterruptible(
          Effect.tap(queue.claim({ kinds, workerId, limit: concurrency, lease }), (jobs) =>
            Effect.forEach(jobs, runOne, { concurrency, discard: true })
          )
        )
        if (jobs.length === concurrency) yield* drain
      })

      yield* runOnWakeups("Job dispatcher", queue.wakeups, options.pollEvery ?? Duration.seconds(2), drain).pipe(
        Effect.forkScoped
      )
      yield* queue.reap.pipe(
        Effect.tap((n) => (n > 0 ? Effect.logWarning(`Returned ${n} expired job(s) to the queue`) : Effect.void)),
        Effect.repeat(Schedule.spaced(Duration.min(Duration.seconds(30), Duration.times(lease, 0.5)))),
        Effect.forkScoped
      )
      yield* Effect.logInfo(`Worker ${workerId} handles: ${kinds.join(", ")}`)
    })
  )

/**
 * How long a claimed job is held before another worker may take it (after a crash): it must
 * exceed the longest job; tests of a killed worker set a few seconds.
 */
export const jobLease = Config.integer("JOB_LEASE_SECONDS").pipe(
  Config.validate({ message: "JOB_LEASE_SECONDS: Expected a positive integer", validation: (n) => n > 0 }),
  Config.withDefault(300),
  Config.map(Duration.seconds)
)

/** The job dispatcher as a worker process runs it, its lease read from the environment. */
export const WorkerFromEnv = <R>(handlers: WorkerOptions<R>["handlers"]) =>
  Layer.unwrapEffect(Effect.map(jobLease, (lease) => WorkerLive({ handlers, lease })))
