import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Schedule, Stream } from "effect"

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
    /** Requeues after `retryIn`, or marks the job failed once its attempts are used up. */
    readonly fail: (job: Job, error: string, retryIn: Duration.DurationInput) => Effect.Effect<"retrying" | "failed">
    readonly reap: Effect.Effect<number>
    /** One element per NOTIFY on the jobs channel (a dedicated connection, reopened when it drops). */
    readonly wakeups: Stream.Stream<void>
  }
>() {}

const seconds = (duration: Duration.DurationInput) => Duration.toMillis(Duration.decode(duration)) / 1000

export const JobQueueLive = Layer.effect(
  JobQueue,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    return {
      wakeups: pg
        .listen(JOBS_CHANNEL)
        .pipe(Stream.retry(Schedule.spaced(Duration.seconds(1))), Stream.orDie, Stream.as(undefined)),
      enqueue: (kind, payload, options) =>
        Effect.gen(function* () {
          const [row] = yield* sql<{ id: string }>`
            INSERT INTO jobs (kind, payload, run_at, max_attempts)
            VALUES (${kind}, ${JSON.stringify(payload)}::jsonb,
                    now() + make_interval(secs => ${seconds(options?.delay ?? 0)}), ${options?.maxAttempts ?? 5})
            RETURNING id::text`
          yield* sql`SELECT pg_notify(${JOBS_CHANNEL}, ${kind})`
          return row!.id
        }).pipe(Effect.orDie),
      claim: ({ kinds, workerId, limit, lease }) =>
        sql<{ id: string; kind: string; payload: unknown; attempts: number; max_attempts: number }>`
          UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = ${workerId},
                 lease_until = now() + make_interval(secs => ${seconds(lease)}), updated_at = now()
          WHERE id IN (
            SELECT id FROM jobs
            WHERE status = 'queued' AND run_at <= now() AND kind = ANY(${kinds})
            ORDER BY run_at, id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )
          RETURNING id::text, kind, payload, attempts, max_attempts`.pipe(
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
        sql`UPDATE jobs SET status = 'done', lease_until = NULL, updated_at = now() WHERE id = ${jobId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      fail: (job, error, retryIn) => {
        const outcome = job.attempts >= job.maxAttempts ? ("failed" as const) : ("retrying" as const)
        return sql`
          UPDATE jobs SET status = ${outcome === "failed" ? "failed" : "queued"}, last_error = ${error},
                 run_at = now() + make_interval(secs => ${seconds(retryIn)}), lease_until = NULL,
                 locked_by = NULL, updated_at = now()
          WHERE id = ${job.id}`.pipe(Effect.as(outcome), Effect.orDie)
      },
      reap: sql<{ id: string }>`
        UPDATE jobs SET status = 'queued', locked_by = NULL, lease_until = NULL, updated_at = now()
        WHERE status = 'running' AND lease_until < now()
        RETURNING id::text`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )
    }
  })
)
