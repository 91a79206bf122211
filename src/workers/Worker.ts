import type { SqlClient } from "@effect/sql"
import { Config, Duration, Effect, Layer } from "effect"
import { readConfig } from "../infra/config/AppConfig.js"
import type { JobQueue } from "../infra/queue/JobQueue.js"
import { type JobHandler, JobRunnerLive } from "../infra/queue/JobRunner.js"

export interface WorkerOptions<R> {
  readonly handlers: ReadonlyArray<JobHandler<R>>
  /** Jobs run at once by this process. */
  readonly concurrency?: number
  readonly pollEvery?: Duration.DurationInput
  readonly lease?: Duration.DurationInput
}

/**
 * How long a stopping worker (SIGTERM) lets its scoring jobs in hand finish: a job of 250 tenders
 * takes 13-40 s at country scale, and supervisors kill after 30 s (Kubernetes' default) or more;
 * what is still running then is handed back to the queue for another worker.
 */
export const SCORING_SHUTDOWN_WAIT = Duration.seconds(25)

/**
 * The scoring runner of a worker process (scoring, rescoring, backfill jobs) on the one queue
 * (infra/queue/JobRunner). On shutdown (SIGTERM) it finishes the jobs in hand, recorded, for up to
 * SCORING_SHUTDOWN_WAIT, and hands back the rest; no new claim starts once shutdown has begun.
 */
export const WorkerLive = <R = never>(
  options: WorkerOptions<R>
): Layer.Layer<never, never, JobQueue | SqlClient.SqlClient | R> =>
  JobRunnerLive(options.handlers, {
    name: "jobs",
    concurrency: options.concurrency ?? 4,
    lease: options.lease ?? Duration.minutes(5),
    pollEvery: options.pollEvery ?? Duration.seconds(2),
    finishOnShutdown: SCORING_SHUTDOWN_WAIT
  })

/**
 * How long a claimed job is held before another worker may take it (after a crash): it must
 * exceed the longest job; tests of a killed worker set a few seconds.
 */
export const jobLease = Config.integer("JOB_LEASE_SECONDS").pipe(
  Config.validate({ message: "JOB_LEASE_SECONDS: Expected a positive integer", validation: (n) => n > 0 }),
  Config.withDefault(300),
  Config.map(Duration.seconds)
)

/** The scoring runner as a worker process runs it, its lease read from the environment. */
export const WorkerFromEnv = <R>(handlers: WorkerOptions<R>["handlers"]) =>
  Layer.unwrapEffect(Effect.map(readConfig(jobLease), (lease) => WorkerLive({ handlers, lease })))
