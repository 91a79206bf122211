import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import { delayAfterFailure } from "../../domain/Retries.js"
import { clockNow } from "../db/ClockNow.js"
import { PgPool } from "../db/PgPool.js"
import { currentRequestId } from "../observability/RequestTrail.js"
import { currentTraceparent } from "../observability/Tracing.js"
import type { JobKind } from "./JobKind.js"
import { makeWakeups } from "./Wakeups.js"

/** A job claimed by one worker under a lease; `attempts` counts this claim. */
export interface Job<A = unknown> {
  readonly id: string
  readonly kind: string
  readonly payload: A
  readonly attempts: number
  readonly maxAttempts: number
  readonly groupKey: string | null
  /** Why the previous attempt failed (or that its worker stopped), if it did. */
  readonly lastError: string | null
  /** The worker that holds the lease: every settlement is conditional on still holding it. */
  readonly workerId: string
  /** The X-Request-Id of the request that enqueued it (or of the job that did), for its outcome's log line. */
  readonly requestId: string | null
  /** The W3C traceparent of the span that enqueued it, when tracing was on: the job's span is its child. */
  readonly traceparent: string | null
}

export interface ClaimInput {
  readonly kinds: ReadonlyArray<string>
  /**
   * The kinds' priorities (JobKind.priority; 0 when absent): due jobs of a higher one are claimed
   * first, then by run time; FIFO among kinds of one priority.
   */
  readonly priorities?: ReadonlyMap<string, number>
  readonly workerId: string
  /** At most this many jobs in all. */
  readonly limit: number
  readonly lease: Duration.DurationInput
  /**
   * At most this many running at this worker per group (the caller's `inFlight` counts are
   * subtracted); jobs without a group are not bounded.
   */
  readonly perGroup?: number
  readonly inFlight?: ReadonlyMap<string, number>
  /**
   * Jobs the caller still runs, never claimed again by it: one whose lease ran out while its
   * heartbeat could not reach the database is back in the queue, but its run goes on here.
   */
  readonly running?: ReadonlyArray<string>
  /**
   * The start of the claimed jobs' work, in the claim's own statement (one round trip instead of
   * two): a data-modifying query over the CTE `claimed` (the claimed rows: `id`, `kind`, `payload`)
   * returning `job_id` and `started` (json) for each job it started.
   */
  readonly start?: Statement.Fragment
}

/**
 * The claimed jobs, and whether the candidate scan was full (`more`): then due jobs beyond it (of
 * groups that reached their bound in this claim) may remain, and another claim may find some.
 */
export interface ClaimResult {
  readonly jobs: ReadonlyArray<Job>
  /** What the claim's `start` returned, by job id. */
  readonly started: ReadonlyMap<string, unknown>
  readonly more: boolean
}

/**
 * How a held job ends: done, due again at `at`, or dead-lettered. A done job is kept for a day for
 * inspection, unless `keep: false`: a consumer whose own rows record the outcome (a webhook delivery
 * and its attempts) deletes it, which costs less than writing the done row and reaping it later.
 */
export type Settlement =
  | { readonly _tag: "done"; readonly keep?: boolean }
  | { readonly _tag: "retry"; readonly at: Date; readonly error: string }
  | { readonly _tag: "dead"; readonly error: string }

/** NOTIFY channel of the queue; the payload is the job's kind, so a worker wakes for its own kinds. */
export const JOBS_CHANNEL = "jobs"

/** How long finished jobs are kept for inspection before `reap` deletes them. */
const DONE_KEPT = Duration.days(1)

/**
 * How long dead letters are kept for inspection (like DELIVERY_RETENTION_DAYS): they are routine (a
 * delivery that failed its schedule, a refused e-mail), and kept for ever they grew `jobs` without bound.
 */
const DEAD_KEPT = Duration.days(30)

/** Dead letters `reap` deletes at most per round: a backlog goes over a few rounds, in short statements. */
const DEAD_BATCH = 1000

/** Candidates scanned per job wanted: room to skip the jobs of groups at their bound. */
const SCAN_FACTOR = 4

/**
 * The one leased queue of the service, in PostgreSQL (`jobs`). Every kind of background work
 * (scoring, e-mail, webhook deliveries, report renders) is a job here:
 * - `enqueue` joins the caller's transaction, so a job exists exactly when the data it refers to
 *   commits, and wakes the workers of its kind with NOTIFY (payload: the kind);
 * - `claim` takes due jobs with FOR UPDATE SKIP LOCKED under a lease, bounded per group;
 * - `extend` is the heartbeat of a runner's jobs in hand; `reap` returns the jobs of dead workers to the queue,
 *   `release` those of a runner that stops;
 * - every settlement (`done`, `retry` at a time, `dead`: the dead letter) is conditional on the
 *   worker still holding the lease, and `settlement` gives it as a statement a capability can
 *   compose with its own rows in one round trip.
 * Every time it writes or compares is read from Effect's `Clock` (tests move it with TestClock) and
 * stored, so a retry survives a restart.
 */
export class JobQueue extends Context.Tag("JobQueue")<
  JobQueue,
  {
    /**
     * One job; its id. With `unlessQueued` (and a `groupKey`), a job of the kind and group still queued
     * since it was enqueued this way (never claimed yet) stands for this one: its id is returned, it
     * is due no later than this one would be, and it stays locked until the caller's transaction
     * ends, so no worker starts it before the change that enqueued this one commits. For work that
     * reads its subject when it starts (a company's rescore): a running job does not count, since
     * it may have read the subject before the change. Concurrent callers leave one job
     * (`jobs_unless_queued_idx`).
     */
    readonly enqueue: <A, I>(
      kind: JobKind<A, I>,
      payload: A,
      options?: { readonly delay?: Duration.DurationInput } & (
        | { readonly groupKey?: string; readonly unlessQueued?: false }
        | { readonly groupKey: string; readonly unlessQueued: true }
      )
    ) => Effect.Effect<string>
    /**
     * Many jobs of one kind in one statement (one per payload, with its group). With `unlessPending`,
     * a job whose group already has a queued or running job of the kind is not added (the group key
     * names the work: one retry job per failed notice, however often its poll meets it again).
     */
    readonly enqueueAll: <A, I>(
      kind: JobKind<A, I>,
      jobs: ReadonlyArray<{ readonly payload: A; readonly groupKey?: string }>,
      options?: { readonly unlessPending?: boolean }
    ) => Effect.Effect<number>
    /**
     * Marks done the queued (not yet claimed) jobs of a kind with one of these payloads: work the
     * caller has just done itself (the demo seed scores its companies, so their queued rescores are
     * redundant). Returns how many it settled.
     */
    readonly settleQueued: <A, I>(kind: JobKind<A, I>, payloads: ReadonlyArray<A>) => Effect.Effect<number>
    readonly claim: (input: ClaimInput) => Effect.Effect<ClaimResult>
    /**
     * Pushes the leases of jobs their worker still holds, in one statement: the heartbeat of a runner
     * over all its jobs in hand.
     */
    readonly extend: (jobs: ReadonlyArray<Job>, lease: Duration.DurationInput) => Effect.Effect<void>
    /**
     * Hands back jobs a stopping worker still holds, in one statement: queued and due now, the
     * interrupted attempt not counted. A job whose lease passed to another worker is left alone.
     * Returns how many it released.
     */
    readonly release: (jobs: ReadonlyArray<Job>) => Effect.Effect<number>
    /** The settlement as one UPDATE returning the job's id when it was still held (for a CTE). */
    readonly settlement: (job: Job, settlement: Settlement) => Effect.Effect<Statement.Statement<{ id: string }>>
    /** Settles a held job; false when the lease had been lost (reaped, taken by another worker). */
    readonly settle: (job: Job, settlement: Settlement) => Effect.Effect<boolean>
    /**
     * Marks a job done after a run that succeeded: held by this worker, or returned to the queue by the
     * reaper since (its completion could not reach the database within the lease) and claimed by nobody
     * since (its attempts unchanged). False when another claim has it, or it was settled already.
     */
    readonly complete: (job: Job) => Effect.Effect<boolean>
    /**
     * After a failed attempt: due again after the kind's retry delay for this attempt, or dead once
     * its attempts or its schedule are used up.
     */
    readonly failureOf: <A, I>(kind: JobKind<A, I>, job: Job, error: string) => Effect.Effect<Settlement>
    /**
     * Returns jobs whose lease ran out to the queue, and deletes done jobs past their keeping time and
     * a batch of dead letters past theirs (`DEAD_KEPT`).
     */
    readonly reap: Effect.Effect<number>
    /** When the next queued job of these kinds is due (epoch ms), if any. */
    readonly nextDueAt: (kinds: ReadonlyArray<string>) => Effect.Effect<Option.Option<number>>
    /** One element per NOTIFY for one of these kinds (a dedicated connection, reopened when it drops). */
    readonly wakeups: (kinds: ReadonlyArray<string>) => Stream.Stream<void>
  }
>() {}

/**
 * A claimed row. Decoded, though `claim` is on the webhook bench's path (`npm run bench -- webhooks`,
 * one claim per batch of deliveries): a batch is at most the runner's room (128 deliveries in flight),
 * small rows whose decoding costs about 0.1 ms a batch.
 */
const ClaimedRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  payload: Schema.Unknown,
  attempts: Schema.Number,
  max_attempts: Schema.Number,
  group_key: Schema.NullOr(Schema.String),
  last_error: Schema.NullOr(Schema.String),
  request_id: Schema.NullOr(Schema.String),
  traceparent: Schema.NullOr(Schema.String),
  /** What the claim's `start` returned for this job (null when it started nothing). */
  started: Schema.Unknown,
  /** How many candidates the claim scanned (the same on every row). */
  scanned: Schema.Number
})
const decodeClaimed = Schema.decodeUnknown(Schema.Array(ClaimedRow))

const IdRow = Schema.Struct({ id: Schema.String })

/** The earliest `run_at` (an aggregate: always one row, null when nothing is queued). */
const NextDueRow = Schema.Struct({ at: Schema.NullOr(Schema.DateFromSelf) })

/**
 * What a new job keeps of where it came from: the request id (of the request being served, or of the
 * job being run) and the current span's traceparent when tracing is on.
 */
const trail = Effect.map(Effect.all([currentRequestId, currentTraceparent]), ([requestId, traceparent]) => ({
  requestId: requestId ?? null,
  traceparent: traceparent ?? null
}))

const after = (now: Date, duration: Duration.DurationInput) => new Date(now.getTime() + Duration.toMillis(duration))

export const JobQueueLive = Layer.scoped(
  JobQueue,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const notifications = yield* makeWakeups(yield* PgPool, JOBS_CHANNEL, yield* Effect.scope)

    const encode = <A, I>(kind: JobKind<A, I>, payload: A) =>
      Schema.encode(kind.payload)(payload).pipe(Effect.map((encoded) => JSON.stringify(encoded)))

    /** A `start` that starts nothing: the claim's statement has the same shape with or without one. */
    const startsNothing = sql`SELECT NULL::bigint AS job_id, NULL::json AS started WHERE false`

    const claim = ({
      kinds,
      priorities,
      workerId,
      limit,
      lease,
      perGroup,
      inFlight = new Map(),
      running = [],
      start
    }: ClaimInput) =>
      Effect.gen(function* () {
        if (limit <= 0) return { jobs: [], started: new Map(), more: false }
        const now = yield* clockNow
        const bound = perGroup ?? limit
        const full = [...inFlight].filter(([, n]) => n >= bound).map(([key]) => key)
        const busy = [...inFlight].filter(([, n]) => n > 0 && n < bound)
        // Due jobs are taken by their kind's priority, then by run time (FIFO within one priority).
        // Jobs of groups already at their bound are skipped before the LIMIT, so a backlog for one
        // slow group never fills the scan and hides other groups' due jobs. Each kind is scanned on
        // its own (`jobs_ready_idx` is ordered by run time within a kind): `kind = ANY(kinds)` made
        // PostgreSQL read and sort every queued job of the kinds on each claim. Only the chosen rows
        // are locked (SKIP LOCKED, status checked again under the lock): a job another worker claims
        // meanwhile is skipped or fails the recheck, so it is never claimed twice. The lock takes, in
        // order, the first `limit` ranked candidates it can lock, not the first `limit` less the locked
        // ones: workers woken by the same NOTIFY claim at once, and the later claim, ranking the other's
        // uncommitted jobs first, skipped them all and came back empty while due jobs waited. Only
        // the rows claimed are locked, so a claim never hides more jobs from the others.
        const scan = limit * SCAN_FACTOR
        const rows = yield* sql`
          WITH candidates AS (
            SELECT c.id, c.group_key, c.run_at, k.priority
            FROM unnest(${kinds}::text[], ${kinds.map((kind) => priorities?.get(kind) ?? 0)}::int[]) AS k(kind, priority)
            CROSS JOIN LATERAL (
              SELECT id, group_key, run_at FROM jobs
              WHERE status = 'queued' AND kind = k.kind AND run_at <= ${now}
                AND (group_key IS NULL OR NOT (group_key = ANY(${full}::text[])))
                AND NOT (id = ANY(${running}::bigint[]))
              ORDER BY run_at, id
              LIMIT ${scan}) c
            ORDER BY k.priority DESC, c.run_at, c.id
            LIMIT ${scan}
          ), ranked AS (
            SELECT c.id, c.priority FROM (
              SELECT id, group_key, priority,
                     row_number() OVER (PARTITION BY group_key ORDER BY priority DESC, run_at, id) AS rank
              FROM candidates) c
            LEFT JOIN unnest(${busy.map(([key]) => key)}::text[], ${busy.map(([, n]) => n)}::int[]) AS f(group_key, n)
              ON f.group_key = c.group_key
            WHERE c.group_key IS NULL OR c.rank <= ${bound} - coalesce(f.n, 0)
          ), chosen AS (
            SELECT j.id FROM jobs j JOIN ranked r ON r.id = j.id
            WHERE j.status = 'queued'
            ORDER BY r.priority DESC, j.run_at, j.id
            LIMIT ${limit}
            FOR UPDATE OF j SKIP LOCKED
          ), claimed AS (
            UPDATE jobs j SET status = 'running', attempts = attempts + 1, unless_queued = false, locked_by = ${workerId},
                   lease_until = ${after(now, lease)}, updated_at = ${now}
            FROM chosen WHERE j.id = chosen.id
            RETURNING j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.group_key, j.last_error,
                      j.request_id, j.traceparent
          ), started AS (${start ?? startsNothing})
          SELECT c.id::text, c.kind, c.payload, c.attempts, c.max_attempts, c.group_key, c.last_error,
                 c.request_id, c.traceparent, s.started,
                 (SELECT count(*)::int FROM candidates) AS scanned
          FROM claimed c LEFT JOIN started s ON s.job_id = c.id`.pipe(Effect.flatMap(decodeClaimed))
        const jobs = rows.map(
          (r): Job => ({
            id: r.id,
            kind: r.kind,
            payload: r.payload,
            attempts: r.attempts,
            maxAttempts: r.max_attempts,
            groupKey: r.group_key,
            lastError: r.last_error,
            workerId,
            requestId: r.request_id,
            traceparent: r.traceparent
          })
        )
        const started = new Map(rows.flatMap((r) => (r.started === null ? [] : [[r.id, r.started] as const])))
        return { jobs, started, more: rows.length > 0 && rows[0]!.scanned >= scan }
      }).pipe(Effect.orDie)

    const settlement = (job: Job, outcome: Settlement) =>
      Effect.map(clockNow, (now) => {
        if (outcome._tag === "done" && outcome.keep === false) {
          return sql<{ id: string }>`
            DELETE FROM jobs WHERE id = ${job.id} AND status = 'running' AND locked_by = ${job.workerId}
            RETURNING id::text`
        }
        const status = outcome._tag === "done" ? "done" : outcome._tag === "retry" ? "queued" : "dead"
        const runAt = outcome._tag === "retry" ? outcome.at : now
        const error = outcome._tag === "done" ? null : outcome.error
        return sql<{ id: string }>`
          UPDATE jobs SET status = ${status}, run_at = ${runAt}, last_error = coalesce(${error}, last_error),
                 locked_by = NULL, lease_until = NULL, updated_at = ${now}
          WHERE id = ${job.id} AND status = 'running' AND locked_by = ${job.workerId}
          RETURNING id::text`
      })

    const settle = (job: Job, outcome: Settlement) =>
      Effect.flatten(settlement(job, outcome)).pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    const insertJob = SqlSchema.single({
      Request: Schema.Struct({
        kind: Schema.String,
        /** The payload's JSON text. */
        payload: Schema.String,
        groupKey: Schema.NullOr(Schema.String),
        runAt: Schema.DateFromSelf,
        maxAttempts: Schema.Number,
        now: Schema.DateFromSelf,
        requestId: Schema.NullOr(Schema.String),
        traceparent: Schema.NullOr(Schema.String),
        unlessQueued: Schema.Boolean
      }),
      Result: IdRow,
      // With `unlessQueued`, the job of the group still queued is updated instead (which locks it: the
      // claim skips locked rows); an insert racing another waits on its index entry, then updates
      // the other's job, or inserts when the other rolled back or was claimed meanwhile.
      execute: (job) => sql`
        INSERT INTO jobs (kind, payload, group_key, run_at, max_attempts, created_at, updated_at, request_id, traceparent,
                          unless_queued)
        VALUES (${job.kind}, ${job.payload}::jsonb, ${job.groupKey},
                ${job.runAt}, ${job.maxAttempts}, ${job.now}, ${job.now}, ${job.requestId}, ${job.traceparent},
                ${job.unlessQueued})
        ${
          job.unlessQueued
            ? sql`ON CONFLICT (kind, group_key) WHERE status = 'queued' AND unless_queued
                  DO UPDATE SET run_at = least(jobs.run_at, excluded.run_at), updated_at = excluded.updated_at`
            : sql``
        }
        RETURNING id::text`
    })

    // Per kind, like the claim: each kind's earliest run time is the first entry of `jobs_ready_idx`
    // (over `kind = ANY(kinds)` PostgreSQL read every queued job).
    const nextDue = SqlSchema.single({
      Request: Schema.Array(Schema.String),
      Result: NextDueRow,
      execute: (kinds) => sql`
        SELECT min(m) AS at FROM unnest(${kinds}::text[]) AS k(kind)
        CROSS JOIN LATERAL (SELECT min(run_at) AS m FROM jobs WHERE status = 'queued' AND kind = k.kind) due`
    })

    return {
      enqueue: (kind, payload, options) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const row = yield* insertJob({
            kind: kind.name,
            payload: yield* encode(kind, payload),
            groupKey: options?.groupKey ?? null,
            runAt: after(now, options?.delay ?? 0),
            maxAttempts: kind.maxAttempts,
            now,
            ...(yield* trail),
            unlessQueued: options?.unlessQueued === true
          })
          // Delivered on commit: inside the caller's transaction, no worker wakes for a rolled-back job.
          yield* sql`SELECT pg_notify(${JOBS_CHANNEL}, ${kind.name})`
          return row.id
        }).pipe(Effect.orDie),
      enqueueAll: (kind, jobs, options) =>
        Effect.gen(function* () {
          if (jobs.length === 0) return 0
          const now = yield* clockNow
          const payloads = yield* Effect.forEach(jobs, (job) => encode(kind, job.payload))
          const { requestId, traceparent } = yield* trail
          const rows = yield* sql`
            INSERT INTO jobs (kind, payload, group_key, run_at, max_attempts, created_at, updated_at, request_id, traceparent)
            SELECT ${kind.name}, p::jsonb, g, ${now}, ${kind.maxAttempts}, ${now}, ${now}, ${requestId}, ${traceparent}
            FROM unnest(${payloads}::text[], ${jobs.map((job) => job.groupKey ?? null)}::text[]) AS j(p, g)
            WHERE ${
              options?.unlessPending === true
                ? sql`NOT EXISTS (SELECT 1 FROM jobs p WHERE p.kind = ${kind.name} AND p.group_key = j.g
                                    AND p.status IN ('queued', 'running'))`
                : sql`true`
            }
            RETURNING 1`
          yield* sql`SELECT pg_notify(${JOBS_CHANNEL}, ${kind.name})`
          return rows.length
        }).pipe(Effect.orDie),
      settleQueued: (kind, payloads) =>
        Effect.gen(function* () {
          if (payloads.length === 0) return 0
          const now = yield* clockNow
          const encoded = yield* Effect.forEach(payloads, (payload) => encode(kind, payload))
          const rows = yield* sql`
            UPDATE jobs SET status = 'done', updated_at = ${now}
            WHERE status = 'queued' AND kind = ${kind.name} AND payload = ANY(${encoded}::text[]::jsonb[])
            RETURNING 1`
          return rows.length
        }).pipe(Effect.orDie),
      claim,
      extend: (jobs, lease) =>
        jobs.length === 0
          ? Effect.void
          : Effect.flatMap(
              clockNow,
              (now) => sql`
                UPDATE jobs j SET lease_until = ${after(now, lease)}
                FROM unnest(${jobs.map((job) => job.id)}::bigint[], ${jobs.map((job) => job.workerId)}::text[])
                  AS held(id, worker_id)
                WHERE j.id = held.id AND j.status = 'running' AND j.locked_by = held.worker_id`
            ).pipe(Effect.asVoid, Effect.orDie),
      release: (jobs) =>
        jobs.length === 0
          ? Effect.succeed(0)
          : Effect.flatMap(
              clockNow,
              (now) => sql`
                UPDATE jobs j SET status = 'queued', run_at = ${now}, attempts = greatest(j.attempts - 1, 0),
                       locked_by = NULL, lease_until = NULL, updated_at = ${now}
                FROM unnest(${jobs.map((job) => job.id)}::bigint[], ${jobs.map((job) => job.workerId)}::text[])
                  AS held(id, worker_id)
                WHERE j.id = held.id AND j.status = 'running' AND j.locked_by = held.worker_id
                RETURNING 1`
            ).pipe(
              Effect.map((rows) => rows.length),
              Effect.orDie
            ),
      settlement,
      settle,
      complete: (job) =>
        Effect.flatMap(
          clockNow,
          (now) => sql`
            UPDATE jobs SET status = 'done', run_at = ${now}, locked_by = NULL, lease_until = NULL, updated_at = ${now}
            WHERE id = ${job.id}
              AND ((status = 'running' AND locked_by = ${job.workerId})
                OR (status = 'queued' AND locked_by IS NULL AND attempts = ${job.attempts}))
            RETURNING 1`
        ).pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      failureOf: (kind, job, error) =>
        Effect.gen(function* () {
          const retryIn =
            job.attempts >= kind.maxAttempts ? Option.none() : yield* delayAfterFailure(kind.retry, job.attempts)
          const now = yield* clockNow
          return Option.match(retryIn, {
            onNone: (): Settlement => ({ _tag: "dead", error }),
            onSome: (delay): Settlement => ({ _tag: "retry", at: after(now, delay), error })
          })
        }),
      reap: Effect.gen(function* () {
        const now = yield* clockNow
        const reaped = yield* sql`
          UPDATE jobs SET status = 'queued', locked_by = NULL, lease_until = NULL, updated_at = ${now},
                 last_error = 'lease expired: the worker stopped during the attempt'
          WHERE status = 'running' AND lease_until < ${now}
          RETURNING 1`
        yield* sql`DELETE FROM jobs WHERE status = 'done' AND updated_at < ${new Date(now.getTime() - Duration.toMillis(DONE_KEPT))}`
        // The oldest first (`jobs_dead_idx`); SKIP LOCKED: the reapers of other runners take other rows.
        yield* sql`
          DELETE FROM jobs WHERE id IN (
            SELECT id FROM jobs WHERE status = 'dead' AND updated_at < ${new Date(now.getTime() - Duration.toMillis(DEAD_KEPT))}
            ORDER BY updated_at LIMIT ${DEAD_BATCH}
            FOR UPDATE SKIP LOCKED)`
        return reaped.length
      }).pipe(Effect.orDie),
      nextDueAt: (kinds) =>
        nextDue(kinds).pipe(
          Effect.map((row) => Option.map(Option.fromNullable(row.at), (at) => at.getTime())),
          Effect.orDie
        ),
      wakeups: (kinds) =>
        notifications.pipe(
          Stream.filter((kind) => kinds.includes(kind)),
          Stream.as(undefined)
        )
    }
  })
)
