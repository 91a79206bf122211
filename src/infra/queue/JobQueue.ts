import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, type Stream } from "effect"
import { delayAfterFailure, JobRetrySchedule } from "../../domain/Retries.js"
import { clockNow } from "../db/ClockNow.js"
import { wakeupsOn } from "./Wakeups.js"

export interface Job {
  readonly id: string
  readonly kind: string
  readonly payload: unknown
  readonly attempts: number
  readonly maxAttempts: number
}

export const JOBS_CHANNEL = "jobs"

/**
 * The durable job queue in PostgreSQL. `enqueue` joins the caller's transaction (so a job is
 * queued exactly when the data it refers to commits) and wakes workers with NOTIFY. Workers claim
 * with FOR UPDATE SKIP LOCKED under a lease; `reap` returns jobs of crashed workers to the queue.
 * Every time it writes or compares (run_at, lease_until, retries) is read from Effect's `Clock`, so
 * tests move it with `TestClock`, and stored, so a retry survives a restart.
 */
export class JobQueue extends Context.Tag("JobQueue")<
  JobQueue,
  {
    readonly enqueue: (
      kind: string,
      payload: unknown,
      options?: { readonly delay?: Duration.DurationInput; readonly maxAttempts?: number }
    ) => Effect.Effect<string>
    readonly claim: (input: {
      readonly kinds: ReadonlyArray<string>
      readonly workerId: string
      readonly limit: number
      readonly lease: Duration.DurationInput
    }) => Effect.Effect<ReadonlyArray<Job>>
    readonly complete: (jobId: string) => Effect.Effect<void>
    /**
     * Requeues the job at now + `JobRetrySchedule`'s delay for its attempt count, or marks it failed
     * once its attempts are used up.
     */
    readonly fail: (job: Job, error: string) => Effect.Effect<"retrying" | "failed">
    readonly reap: Effect.Effect<number>
    /** One element per NOTIFY on the jobs channel (a dedicated connection, reopened when it drops). */
    readonly wakeups: Stream.Stream<void>
  }
>() {}

/** The service's clock as a timestamptz parameter: every job time comes from here, not from now(). */
const after = (now: Date, duration: Duration.DurationInput) => new Date(now.getTime() + Duration.toMillis(duration))

export const JobQueueLive = Layer.effect(
  JobQueue,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    return {
      wakeups: wakeupsOn(pg, JOBS_CHANNEL),
      enqueue: (kind, payload, options) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const [row] = yield* sql<{ id: string }>`
            INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at, updated_at)
            VALUES (${kind}, ${JSON.stringify(payload)}::jsonb, ${after(now, options?.delay ?? 0)},
                    ${options?.maxAttempts ?? 5}, ${now}, ${now})
            RETURNING id::text`
          yield* sql`SELECT pg_notify(${JOBS_CHANNEL}, ${kind})`
          return row!.id
        }).pipe(Effect.orDie),
      claim: ({ kinds, workerId, limit, lease }) =>
        Effect.flatMap(
          clockNow,
          (now) => sql<{ id: string; kind: string; payload: unknown; attempts: number; max_attempts: number }>`
          UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = ${workerId},
                 lease_until = ${after(now, lease)}, updated_at = ${now}
          WHERE id IN (
            SELECT id FROM jobs
            WHERE status = 'queued' AND run_at <= ${now} AND kind = ANY(${kinds})
            ORDER BY run_at, id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )
          RETURNING id::text, kind, payload, attempts, max_attempts`
        ).pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              id: r.id,
              kind: r.kind,
              payload: r.payload,
              attempts: r.attempts,
              maxAttempts: r.max_attempts
            }))
          ),
          Effect.orDie
        ),
      complete: (jobId) =>
        Effect.flatMap(
          clockNow,
          (now) => sql`UPDATE jobs SET status = 'done', lease_until = NULL, updated_at = ${now} WHERE id = ${jobId}`
        ).pipe(Effect.asVoid, Effect.orDie),
      fail: (job, error) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const retryIn =
            job.attempts >= job.maxAttempts ? Option.none() : yield* delayAfterFailure(JobRetrySchedule, job.attempts)
          yield* sql`
            UPDATE jobs SET status = ${Option.isSome(retryIn) ? "queued" : "failed"}, last_error = ${error},
                   run_at = ${Option.match(retryIn, { onNone: () => now, onSome: (delay) => after(now, delay) })},
                   lease_until = NULL, locked_by = NULL, updated_at = ${now}
            WHERE id = ${job.id}`
          return Option.isSome(retryIn) ? ("retrying" as const) : ("failed" as const)
        }).pipe(Effect.orDie),
      reap: Effect.flatMap(
        clockNow,
        (now) => sql<{ id: string }>`
          UPDATE jobs SET status = 'queued', locked_by = NULL, lease_until = NULL, updated_at = ${now}
          WHERE status = 'running' AND lease_until < ${now}
          RETURNING id::text`
      ).pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )
    }
  })
)
