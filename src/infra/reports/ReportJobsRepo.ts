import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Clock, Context, Duration, Effect, Layer, Option, type Stream } from "effect"
import { creditPeriodAt } from "../../domain/CreditPeriod.js"
import { InsufficientCredits, type TenantNotFound } from "../../domain/Errors.js"
import { delayAfterFailure, JobRetrySchedule } from "../../domain/Retries.js"
import {
  REPORT_CREDIT_COST,
  REPORT_MAX_ATTEMPTS,
  type ReportParams,
  type ReportStatus
} from "../../domain/reports/ReportJob.js"
import { CreditLedger } from "../billing/CreditLedger.js"
import { wakeupsOn } from "../queue/Wakeups.js"
import { ReportStorage } from "./ReportStorage.js"

export const REPORTS_CHANNEL = "reports"

export interface ReportJobView {
  readonly id: string
  readonly status: ReportStatus
  readonly params: ReportParams
}

export interface ClaimedReport {
  readonly id: string
  readonly tenantId: string
  readonly companyId: string
  readonly params: ReportParams
  readonly attempts: number
  readonly maxAttempts: number
}

/** What became of a finished attempt: `lost` when the lease had gone to another worker meanwhile. */
export type AttemptOutcome = "completed" | "retrying" | "failed" | "lost"

/**
 * Report jobs as a durable queue (the job table is the queue, as webhook deliveries): created with
 * their credits held, claimed under a lease written from Effect's Clock, completed with the PDF and
 * the charge in one transaction, retried after a failure (JobRetrySchedule) until `max_attempts`,
 * then `failed` with the hold released. `reap` returns the jobs of dead workers to the queue.
 */
export class ReportJobsRepo extends Context.Tag("ReportJobsRepo")<
  ReportJobsRepo,
  {
    /**
     * Holds the report's credits (a conditional UPDATE, so concurrent creations never hold more than
     * the balance) and queues the job, in one transaction; fails with the balance when it is short.
     */
    readonly create: (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly params: ReportParams
    }) => Effect.Effect<
      { readonly id: string; readonly remaining: number; readonly periodEndsAt: string },
      InsufficientCredits | TenantNotFound
    >
    readonly find: (tenantId: string, jobId: string) => Effect.Effect<Option.Option<ReportJobView>>
    readonly findById: (jobId: string) => Effect.Effect<Option.Option<ReportJobView>>
    readonly claim: (input: {
      readonly workerId: string
      readonly limit: number
      readonly lease: Duration.DurationInput
    }) => Effect.Effect<ReadonlyArray<ClaimedReport>>
    /** Pushes the lease of a job this worker still holds (a heartbeat during long renders). */
    readonly extend: (workerId: string, jobId: string, lease: Duration.DurationInput) => Effect.Effect<void>
    readonly complete: (workerId: string, job: ClaimedReport, pdf: Uint8Array) => Effect.Effect<AttemptOutcome>
    readonly fail: (workerId: string, job: ClaimedReport, error: string) => Effect.Effect<AttemptOutcome>
    /** Jobs whose lease ran out (a dead worker): back to `pending`, or `failed` when out of attempts. */
    readonly reap: Effect.Effect<number>
    /** Removes finished jobs (their PDFs and tokens) that finished before `cutoff`. */
    readonly sweep: (cutoff: Date) => Effect.Effect<number>
    /** The earliest run time of a waiting job, epoch millis. */
    readonly nextDueAt: Effect.Effect<Option.Option<number>>
    readonly wakeups: Stream.Stream<void>
  }
>() {}

const after = (now: number, duration: Duration.DurationInput) => new Date(now + Duration.toMillis(duration))

export const ReportJobsRepoLive = Layer.effect(
  ReportJobsRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    const ledger = yield* CreditLedger
    const storage = yield* ReportStorage

    const create = (input: { readonly tenantId: string; readonly companyId: string; readonly params: ReportParams }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // Opens the month's period on first use (the monthly grant).
            const balance = yield* ledger.balance(input.tenantId)
            const now = yield* Clock.currentTimeMillis
            const period = creditPeriodAt(now)
            const [held] = yield* sql<{ remaining: number }>`
            UPDATE credit_periods SET remaining = remaining - ${REPORT_CREDIT_COST}
            WHERE tenant_id = ${input.tenantId} AND period_start = ${period.start}
              AND remaining >= ${REPORT_CREDIT_COST}
            RETURNING remaining`
            if (!held) {
              return yield* new InsufficientCredits({
                remaining: balance.remaining,
                required: REPORT_CREDIT_COST,
                periodEndsAt: balance.periodEndsAt
              })
            }
            const [job] = yield* sql<{ id: string }>`
            INSERT INTO report_jobs (tenant_id, company_id, params, status, max_attempts, run_at, credits_held,
                                     hold_period_start, created_at, updated_at)
            VALUES (${input.tenantId}, ${input.companyId}, ${JSON.stringify(input.params)}::jsonb, 'generating',
                    ${REPORT_MAX_ATTEMPTS}, ${new Date(now)}, ${REPORT_CREDIT_COST}, ${period.start},
                    ${new Date(now)}, ${new Date(now)})
            RETURNING id`
            yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
            VALUES (${input.tenantId}, ${period.start}, ${-REPORT_CREDIT_COST}, 'hold',
                    ${`report ${job!.id}: held until the report completes`}, ${held.remaining}, ${new Date(now)})`
            yield* sql`SELECT pg_notify(${REPORTS_CHANNEL}, ${job!.id})`
            return { id: job!.id, remaining: held.remaining, periodEndsAt: balance.periodEndsAt }
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    const view = (rows: ReadonlyArray<{ id: string; status: ReportStatus; params: ReportParams }>) =>
      Option.map(Option.fromNullable(rows[0]), (row) => ({ id: row.id, status: row.status, params: row.params }))

    /**
     * Settles a job's hold inside the caller's transaction: `charge` turns it into the report's
     * charge (release + charge, the balance unchanged), otherwise it is released to the balance.
     * Settled in the period it was taken from.
     */
    const settle = (
      job: {
        readonly id: string
        readonly tenant_id: string
        readonly credits_held: number
        readonly hold_period_start: string | null
      },
      charge: boolean,
      now: number
    ) =>
      Effect.gen(function* () {
        if (job.credits_held <= 0 || job.hold_period_start === null) return
        const [period] = yield* sql<{ remaining: number }>`
          UPDATE credit_periods SET remaining = remaining + ${charge ? 0 : job.credits_held}
          WHERE tenant_id = ${job.tenant_id} AND period_start = ${job.hold_period_start}
          RETURNING remaining`
        if (!period) return
        const at = new Date(now)
        if (charge) {
          yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at) VALUES
              (${job.tenant_id}, ${job.hold_period_start}, ${job.credits_held}, 'release',
               ${`report ${job.id}: hold settled`}, ${period.remaining + job.credits_held}, ${at}),
              (${job.tenant_id}, ${job.hold_period_start}, ${-job.credits_held}, 'charge',
               ${`report ${job.id}: completed`}, ${period.remaining}, ${at})`
        } else {
          yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
            VALUES (${job.tenant_id}, ${job.hold_period_start}, ${job.credits_held}, 'release',
                    ${`report ${job.id}: failed, hold released`}, ${period.remaining}, ${at})`
        }
      })

    interface LockedRow {
      readonly id: string
      readonly tenant_id: string
      readonly credits_held: number
      readonly hold_period_start: string | null
      readonly attempts: number
      readonly max_attempts: number
    }

    /** The job row, locked, if `workerId` still holds its lease. */
    const lockHeld = (workerId: string, jobId: string) =>
      sql<LockedRow>`
        SELECT id, tenant_id, credits_held, hold_period_start::text AS hold_period_start, attempts, max_attempts
        FROM report_jobs WHERE id = ${jobId} AND locked_by = ${workerId} AND status = 'generating' FOR UPDATE`

    /** After a failed (or abandoned) attempt: wait for the next one, or end `failed` and release the hold. */
    const failLocked = (row: LockedRow, error: string, now: number) =>
      Effect.gen(function* () {
        const retryIn =
          row.attempts >= row.max_attempts ? Option.none() : yield* delayAfterFailure(JobRetrySchedule, row.attempts)
        if (Option.isSome(retryIn)) {
          yield* sql`
            UPDATE report_jobs SET status = 'pending', error = ${error}, locked_by = NULL, lease_until = NULL,
                   run_at = ${after(now, retryIn.value)}, updated_at = ${new Date(now)}
            WHERE id = ${row.id}`
          return "retrying" as const
        }
        yield* sql`
          UPDATE report_jobs SET status = 'failed', error = ${error}, locked_by = NULL, lease_until = NULL,
                 credits_held = 0, completed_at = ${new Date(now)}, updated_at = ${new Date(now)}
          WHERE id = ${row.id}`
        yield* settle(row, false, now)
        return "failed" as const
      })

    return {
      wakeups: wakeupsOn(pg, REPORTS_CHANNEL),
      create,
      find: (tenantId, jobId) =>
        sql<{ id: string; status: ReportStatus; params: ReportParams }>`
          SELECT id, status, params FROM report_jobs WHERE id = ${jobId} AND tenant_id = ${tenantId}`.pipe(
          Effect.map(view),
          Effect.orDie
        ),
      findById: (jobId) =>
        sql<{ id: string; status: ReportStatus; params: ReportParams }>`
          SELECT id, status, params FROM report_jobs WHERE id = ${jobId}`.pipe(Effect.map(view), Effect.orDie),
      claim: ({ workerId, limit, lease }) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => sql<{
            id: string
            tenant_id: string
            company_id: string
            params: ReportParams
            attempts: number
            max_attempts: number
          }>`
            UPDATE report_jobs SET status = 'generating', attempts = attempts + 1, locked_by = ${workerId},
                   lease_until = ${after(now, lease)}, updated_at = ${new Date(now)}
            WHERE id IN (
              SELECT id FROM report_jobs
              WHERE status IN ('pending', 'generating') AND lease_until IS NULL AND run_at <= ${new Date(now)}
              ORDER BY run_at, id
              LIMIT ${limit}
              FOR UPDATE SKIP LOCKED
            )
            RETURNING id, tenant_id, company_id, params, attempts, max_attempts`
        ).pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              id: r.id,
              tenantId: r.tenant_id,
              companyId: r.company_id,
              params: r.params,
              attempts: r.attempts,
              maxAttempts: r.max_attempts
            }))
          ),
          Effect.orDie
        ),
      extend: (workerId, jobId, lease) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => sql`
            UPDATE report_jobs SET lease_until = ${after(now, lease)}
            WHERE id = ${jobId} AND locked_by = ${workerId} AND status = 'generating'`
        ).pipe(Effect.asVoid, Effect.orDie),
      complete: (workerId, job, pdf) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const [row] = yield* lockHeld(workerId, job.id)
              if (!row) return "lost" as const
              const now = yield* Clock.currentTimeMillis
              yield* storage.put(job.id, pdf)
              yield* sql`
                UPDATE report_jobs SET status = 'completed', error = NULL, locked_by = NULL, lease_until = NULL,
                       credits_held = 0, completed_at = ${new Date(now)}, updated_at = ${new Date(now)}
                WHERE id = ${job.id}`
              yield* settle(row, true, now)
              return "completed" as const
            })
          )
          .pipe(Effect.orDie),
      fail: (workerId, job, error) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const [row] = yield* lockHeld(workerId, job.id)
              if (!row) return "lost" as const
              return yield* failLocked(row, error, yield* Clock.currentTimeMillis)
            })
          )
          .pipe(Effect.orDie),
      reap: Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const expired = yield* sql<{ id: string }>`
          SELECT id FROM report_jobs WHERE lease_until < ${new Date(now)} AND status = 'generating'`
        let reaped = 0
        for (const { id } of expired) {
          const outcome = yield* sql.withTransaction(
            Effect.gen(function* () {
              const [row] = yield* sql<LockedRow>`
                SELECT id, tenant_id, credits_held, hold_period_start::text AS hold_period_start, attempts, max_attempts
                FROM report_jobs WHERE id = ${id} AND lease_until < ${new Date(now)} AND status = 'generating'
                FOR UPDATE SKIP LOCKED`
              if (!row) return "lost" as const
              return yield* failLocked(row, "lease expired: the worker stopped during the attempt", now)
            })
          )
          if (outcome !== "lost") reaped++
        }
        return reaped
      }).pipe(Effect.orDie),
      sweep: (cutoff) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const rows = yield* sql<{ id: string }>`
                SELECT id FROM report_jobs
                WHERE status IN ('completed', 'failed') AND completed_at < ${cutoff}
                FOR UPDATE SKIP LOCKED`
              const ids = rows.map((r) => r.id)
              if (ids.length === 0) return 0
              yield* storage.remove(ids)
              yield* sql`DELETE FROM report_jobs WHERE id = ANY(${ids})`
              return ids.length
            })
          )
          .pipe(Effect.orDie),
      nextDueAt: sql<{ at: Date | null }>`
        SELECT min(run_at) AS at FROM report_jobs WHERE status IN ('pending', 'generating') AND lease_until IS NULL`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]?.at), (at) => at.getTime())),
        Effect.orDie
      )
    }
  })
)
