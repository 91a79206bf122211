import { SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { type Cause, Context, Duration, Effect, Layer, Option, type ParseResult, Predicate, Schema } from "effect"
import {
  IdempotencyKeyTaken,
  type InsufficientCredits,
  type TenantNotFound,
  WatchlistNotFound
} from "../../domain/Errors.js"
import { JobRetrySchedule } from "../../domain/Retries.js"
import {
  REPORT_CREDIT_COST,
  REPORT_MAX_ATTEMPTS,
  type ReportParams,
  type ReportStatus
} from "../../domain/reports/ReportJob.js"
import { CreditLedger, CreditLedgerLive } from "../billing/CreditLedger.js"
import { clockNow } from "../db/ClockNow.js"
import { jobKind } from "../queue/JobKind.js"
import { type Job, JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { ReportIdempotencyKeys, ReportIdempotencyKeysLive } from "./ReportIdempotencyKeys.js"
import { ReportStorage } from "./ReportStorage.js"

/**
 * "report.render": one report's PDF; 3 attempts (a worker that dies mid-render used one). An attempt
 * may run 10 minutes: the renderer's cold start (up to 2 minutes), a wait for one of its 2 pages and
 * a 30 s print fit well inside.
 */
export const RenderReport = jobKind("report.render", Schema.Struct({ reportId: Schema.String }), {
  maxAttempts: REPORT_MAX_ATTEMPTS,
  retry: JobRetrySchedule,
  timeout: Duration.minutes(10)
})

export interface ReportJobView {
  readonly id: string
  readonly status: ReportStatus
  readonly params: ReportParams
}

/** A report being rendered. */
export interface StartedReport {
  readonly id: string
  readonly tenantId: string
  readonly companyId: string
  readonly params: ReportParams
}

/** What became of a finished attempt: `lost` when the lease had gone to another worker meanwhile. */
export type AttemptOutcome = "completed" | "retrying" | "failed" | "lost"

/** The report's row as the settlement locks it. */
const HeldRow = Schema.Struct({
  tenant_id: Schema.String,
  credits_held: Schema.Number,
  hold_period_start: Schema.NullOr(Schema.String)
})
type HeldRow = typeof HeldRow.Type

/**
 * Report jobs (`report_jobs`, and their PDFs through ReportStorage): created with their credits held
 * (billing), a `report.render` job and their idempotency key, if any, in one transaction; completed
 * with the PDF and the charge in one transaction; after a failed attempt, `pending` until the
 * queue's retry, then `failed` with the hold released once the attempts are used up.
 */
export class ReportJobsRepo extends Context.Tag("ReportJobsRepo")<
  ReportJobsRepo,
  {
    /**
     * Holds the report's credits and queues its job; fails with the balance when it is short, and
     * with WatchlistNotFound when `params.watchlist_id` is not (or no longer) a live watchlist of the company.
     */
    readonly create: <E = never>(input: {
      readonly tenantId: string
      readonly companyId: string
      readonly params: ReportParams
      /**
       * The request's idempotency key and fingerprint: stored with the job; when the key already
       * stands for a job (or a concurrent creation stores it first), nothing is created and this
       * fails with IdempotencyKeyTaken naming that job.
       */
      readonly idempotency?: { readonly key: string; readonly fingerprint: string } | undefined
      /**
       * Run in the transaction once the job is known to be created, before its credits are held
       * (the hourly report limit): its failure creates nothing.
       */
      readonly admit?: Effect.Effect<void, E> | undefined
    }) => Effect.Effect<
      { readonly id: string; readonly remaining: number; readonly periodEndsAt: string },
      InsufficientCredits | TenantNotFound | WatchlistNotFound | IdempotencyKeyTaken | E
    >
    readonly find: (tenantId: string, jobId: string) => Effect.Effect<Option.Option<ReportJobView>>
    readonly findById: (jobId: string) => Effect.Effect<Option.Option<ReportJobView>>
    /** Marks the report `generating` for an attempt; none when it has finished meanwhile. */
    readonly start: (reportId: string) => Effect.Effect<Option.Option<StartedReport>>
    /** Stores the PDF, charges the hold and completes the job, in one transaction. */
    readonly complete: (job: Job, reportId: string, pdf: Uint8Array) => Effect.Effect<AttemptOutcome>
    /** After a failed attempt: `pending` until the queue's retry, or `failed` with the hold released. */
    readonly recordFailure: (job: Job, reportId: string, error: string) => Effect.Effect<AttemptOutcome>
    /** The dead letter of a report whose job ran out of claims (its workers kept dying): `failed`, hold released. */
    readonly recordDead: (reportId: string, error: string) => Effect.Effect<void>
    /** Removes finished jobs (their PDFs and tokens) that finished before `cutoff`. */
    readonly sweep: (cutoff: Date) => Effect.Effect<number>
  }
>() {}

/** The `params` jsonb column: what `create` stored (a ReportParams). */
const StoredParams = Schema.Struct({
  date_from: Schema.String,
  date_to: Schema.String,
  min_score: Schema.Number,
  watchlist_id: Schema.NullOr(Schema.String)
})

const ViewRow = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("pending", "generating", "completed", "failed"),
  params: StoredParams
})

const StartedRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  company_id: Schema.String,
  params: StoredParams
})

const IdRow = Schema.Struct({ id: Schema.String })

/** The store's own failures (a statement, a row that does not decode): defects, not the caller's to handle. */
const isStoreFailure = (
  error: unknown
): error is SqlError.SqlError | ParseResult.ParseError | Cause.NoSuchElementException =>
  Predicate.isTagged(error, "SqlError") ||
  Predicate.isTagged(error, "ParseError") ||
  Predicate.isTagged(error, "NoSuchElementException")

export const ReportJobsRepoLive = Layer.effect(
  ReportJobsRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ledger = yield* CreditLedger
    const queue = yield* JobQueue
    const storage = yield* ReportStorage
    const idempotencyKeys = yield* ReportIdempotencyKeys

    const insertReport = SqlSchema.single({
      Request: Schema.Struct({
        tenantId: Schema.String,
        companyId: Schema.String,
        /** JSON text of the ReportParams. */
        params: Schema.String,
        now: Schema.DateFromSelf
      }),
      Result: IdRow,
      execute: (input) => sql`
        INSERT INTO report_jobs (tenant_id, company_id, params, status, created_at, updated_at)
        VALUES (${input.tenantId}, ${input.companyId}, ${input.params}::jsonb, 'generating',
                ${input.now}, ${input.now})
        RETURNING id`
    })

    // FOR SHARE, not KEY SHARE: a deletion is an UPDATE of `deleted_at`, which must wait for the report.
    const lockWatchlist = SqlSchema.findOne({
      Request: Schema.Struct({ companyId: Schema.String, watchlistId: Schema.String }),
      Result: IdRow,
      execute: (input) => sql`
        SELECT id FROM watchlists
        WHERE id = ${input.watchlistId} AND company_id = ${input.companyId} AND deleted_at IS NULL
        FOR SHARE`
    })

    const create = <E = never>(input: {
      readonly tenantId: string
      readonly companyId: string
      readonly params: ReportParams
      readonly idempotency?: { readonly key: string; readonly fingerprint: string } | undefined
      readonly admit?: Effect.Effect<void, E> | undefined
    }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // The watchlist is checked under a lock held until the report is queued: a deletion (or a
            // move to another company) either waits for it or came first, and then nothing is held.
            const watchlistId = input.params.watchlist_id
            if (watchlistId !== null) {
              const watchlist = yield* lockWatchlist({ companyId: input.companyId, watchlistId })
              if (Option.isNone(watchlist)) return yield* new WatchlistNotFound({ id: watchlistId })
            }
            const now = yield* clockNow
            const report = yield* insertReport({
              tenantId: input.tenantId,
              companyId: input.companyId,
              params: JSON.stringify(input.params),
              now
            })
            // The key is stored before anything is counted or held: a repeat (or a concurrent twin,
            // whose key insert waits for this commit) rolls back its job here.
            if (input.idempotency !== undefined) {
              const taken = yield* idempotencyKeys.claim({
                tenantId: input.tenantId,
                key: input.idempotency.key,
                fingerprint: input.idempotency.fingerprint,
                jobId: report.id
              })
              if (Option.isSome(taken)) return yield* new IdempotencyKeyTaken(taken.value)
            }
            if (input.admit !== undefined) yield* input.admit
            const held = yield* ledger.hold({
              tenantId: input.tenantId,
              amount: REPORT_CREDIT_COST,
              reason: `report ${report.id}: held until the report completes`
            })
            yield* sql`
              UPDATE report_jobs SET credits_held = ${REPORT_CREDIT_COST}, hold_period_start = ${held.periodStart}
              WHERE id = ${report.id}`
            yield* queue.enqueue(RenderReport, { reportId: report.id })
            return { id: report.id, remaining: held.remaining, periodEndsAt: held.periodEndsAt }
          })
        )
        .pipe(Effect.catchIf(isStoreFailure, Effect.die))

    const findView = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, jobId: Schema.String }),
      Result: ViewRow,
      execute: (input) =>
        sql`SELECT id, status, params FROM report_jobs WHERE id = ${input.jobId} AND tenant_id = ${input.tenantId}`
    })

    const findViewById = SqlSchema.findOne({
      Request: Schema.String,
      Result: ViewRow,
      execute: (jobId) => sql`SELECT id, status, params FROM report_jobs WHERE id = ${jobId}`
    })

    /** The report's row, locked for its settlement. */
    const lockRow = SqlSchema.findOne({
      Request: Schema.String,
      Result: HeldRow,
      execute: (reportId) => sql`
        SELECT tenant_id, credits_held, hold_period_start::text AS hold_period_start
        FROM report_jobs WHERE id = ${reportId} FOR UPDATE`
    })

    const markGenerating = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.String, now: Schema.DateFromSelf }),
      Result: StartedRow,
      execute: (input) => sql`
        UPDATE report_jobs SET status = 'generating', updated_at = ${input.now}
        WHERE id = ${input.id} AND status IN ('pending', 'generating')
        RETURNING id, tenant_id, company_id, params`
    })

    const deleteFinished = SqlSchema.findAll({
      Request: Schema.DateFromSelf,
      Result: IdRow,
      execute: (cutoff) => sql`
        DELETE FROM report_jobs WHERE status IN ('completed', 'failed') AND completed_at < ${cutoff}
        RETURNING id`
    })

    /** Settles the report's hold: charged when it completed, released when it failed. Returns the credits charged. */
    const settleHold = (reportId: string, row: HeldRow, charge: boolean) =>
      row.credits_held <= 0 || row.hold_period_start === null
        ? Effect.succeed(0)
        : ledger.settleHold({
            tenantId: row.tenant_id,
            periodStart: row.hold_period_start,
            amount: row.credits_held,
            outcome: charge
              ? {
                  _tag: "charge",
                  releaseReason: `report ${reportId}: hold settled`,
                  chargeReason: `report ${reportId}: completed`
                }
              : { _tag: "release", releaseReason: `report ${reportId}: failed, hold released` }
          })

    /** Ends the report `failed` with its hold released, in the caller's transaction. */
    const markFailed = (reportId: string, error: string) =>
      Effect.gen(function* () {
        const row = yield* lockRow(reportId)
        if (Option.isNone(row)) return
        const now = yield* clockNow
        yield* sql`
          UPDATE report_jobs SET status = 'failed', error = ${error}, credits_held = 0, completed_at = ${now},
                 updated_at = ${now}
          WHERE id = ${reportId} AND status IN ('pending', 'generating')`
        yield* settleHold(reportId, row.value, false)
      })

    return {
      create,
      find: (tenantId, jobId) => findView({ tenantId, jobId }).pipe(Effect.orDie),
      findById: (jobId) => findViewById(jobId).pipe(Effect.orDie),
      start: (reportId) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const row = yield* markGenerating({ id: reportId, now })
          return Option.map(
            row,
            (r): StartedReport => ({
              id: r.id,
              tenantId: r.tenant_id,
              companyId: r.company_id,
              params: r.params
            })
          )
        }).pipe(Effect.orDie),
      complete: (job, reportId, pdf) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const lost = { outcome: "lost" as const, charged: 0 }
              if (!(yield* queue.settle(job, { _tag: "done" }))) return lost
              const row = yield* lockRow(reportId)
              if (Option.isNone(row)) return lost
              const now = yield* clockNow
              yield* storage.put(reportId, pdf)
              yield* sql`
                UPDATE report_jobs SET status = 'completed', error = NULL, credits_held = 0, completed_at = ${now},
                       updated_at = ${now}
                WHERE id = ${reportId}`
              const charged = yield* settleHold(reportId, row.value, true)
              return { outcome: "completed" as const, charged }
            })
          )
          .pipe(
            // Counted once committed: a transaction that failed or rolled back charged nothing.
            Effect.tap(({ charged }) => ledger.countCharged(charged)),
            Effect.map(({ outcome }) => outcome),
            Effect.orDie
          ),
      recordFailure: (job, reportId, error) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const next = yield* queue.failureOf(RenderReport, job, error)
              if (!(yield* queue.settle(job, next))) return "lost" as const
              if (next._tag === "dead") {
                yield* markFailed(reportId, error)
                return "failed" as const
              }
              const now = yield* clockNow
              yield* sql`
                UPDATE report_jobs SET status = 'pending', error = ${error}, updated_at = ${now}
                WHERE id = ${reportId} AND status = 'generating'`
              return "retrying" as const
            })
          )
          .pipe(Effect.orDie),
      recordDead: (reportId, error) => markFailed(reportId, error).pipe(Effect.orDie),
      sweep: (cutoff) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const rows = yield* deleteFinished(cutoff)
              const ids = rows.map((r) => r.id)
              if (ids.length > 0) yield* storage.remove(ids)
              return ids.length
            })
          )
          .pipe(Effect.orDie)
    }
  })
).pipe(Layer.provide(Layer.mergeAll(JobQueueLive, CreditLedgerLive, ReportIdempotencyKeysLive)))
