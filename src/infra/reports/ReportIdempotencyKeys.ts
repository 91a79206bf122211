import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { REPORT_IDEMPOTENCY_WINDOW } from "../../domain/reports/IdempotencyKey.js"
import { clockNow } from "../db/ClockNow.js"

/** The job a key stands for, and the fingerprint of the request that created it. */
export interface IdempotentCreation {
  readonly jobId: string
  readonly fingerprint: string
}

/**
 * Report creations' idempotency keys (`report_idempotency_keys`, migration 0043): a key stands for
 * its job for REPORT_IDEMPOTENCY_WINDOW after the creation, on the service's clock; older rows count
 * as absent until the purge removes them.
 */
export class ReportIdempotencyKeys extends Context.Tag("ReportIdempotencyKeys")<
  ReportIdempotencyKeys,
  {
    /** The job the tenant's key stands for, if the key is within its window. */
    readonly find: (tenantId: string, key: string) => Effect.Effect<Option.Option<IdempotentCreation>>
    /**
     * Stores the key for `jobId`, in the caller's transaction (the one that creates the job). Waits
     * for a transaction in flight that stores the same key; when that commits, or the key already
     * stands for a job, answers that job instead (nothing stored). An expired row is taken over.
     */
    readonly claim: (input: {
      readonly tenantId: string
      readonly key: string
      readonly fingerprint: string
      readonly jobId: string
    }) => Effect.Effect<Option.Option<IdempotentCreation>>
    /** Deletes the keys whose window ended before now; how many. */
    readonly purgeExpired: Effect.Effect<number>
  }
>() {}

const Row = Schema.Struct({ job_id: Schema.String, fingerprint: Schema.String })
const toCreation = (row: typeof Row.Type): IdempotentCreation => ({ jobId: row.job_id, fingerprint: row.fingerprint })

/** The earliest creation time of a key still within its window. */
const windowStartAt = (now: Date) => new Date(now.getTime() - Duration.toMillis(REPORT_IDEMPOTENCY_WINDOW))
const windowStart = Effect.map(clockNow, windowStartAt)

export const ReportIdempotencyKeysLive = Layer.effect(
  ReportIdempotencyKeys,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findLive = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, key: Schema.String, since: Schema.DateFromSelf }),
      Result: Row,
      execute: (input) => sql`
        SELECT job_id, fingerprint FROM report_idempotency_keys
        WHERE tenant_id = ${input.tenantId} AND key = ${input.key} AND created_at > ${input.since}`
    })

    // ON CONFLICT waits for a transaction in flight that inserted the same key: the first of two
    // concurrent creations stores it, the other then finds it (READ COMMITTED: its next statement
    // sees the commit). An expired row is overwritten; a live one is left as it is (no row returned).
    const upsert = SqlSchema.findOne({
      Request: Schema.Struct({
        tenantId: Schema.String,
        key: Schema.String,
        fingerprint: Schema.String,
        jobId: Schema.String,
        now: Schema.DateFromSelf,
        since: Schema.DateFromSelf
      }),
      Result: Row,
      execute: (input) => sql`
        INSERT INTO report_idempotency_keys AS k (tenant_id, key, fingerprint, job_id, created_at)
        VALUES (${input.tenantId}, ${input.key}, ${input.fingerprint}, ${input.jobId}, ${input.now})
        ON CONFLICT (tenant_id, key) DO UPDATE
          SET fingerprint = excluded.fingerprint, job_id = excluded.job_id, created_at = excluded.created_at
          WHERE k.created_at <= ${input.since}
        RETURNING job_id, fingerprint`
    })

    const find = (tenantId: string, key: string) =>
      Effect.flatMap(windowStart, (since) => findLive({ tenantId, key, since })).pipe(
        Effect.map(Option.map(toCreation)),
        Effect.orDie
      )

    const claim = (input: {
      readonly tenantId: string
      readonly key: string
      readonly fingerprint: string
      readonly jobId: string
    }) =>
      Effect.gen(function* () {
        const now = yield* clockNow
        const since = windowStartAt(now)
        const stored = yield* upsert({ ...input, now, since })
        if (Option.isSome(stored)) return Option.none()
        // The key stands for a committed job: its row, which this new statement sees.
        const existing = yield* findLive({ tenantId: input.tenantId, key: input.key, since })
        if (Option.isNone(existing)) return yield* Effect.dieMessage("an idempotency key vanished while claimed")
        return Option.some(toCreation(existing.value))
      }).pipe(Effect.orDie)

    const purgeExpired = Effect.flatMap(
      windowStart,
      (since) =>
        sql<{ n: number }>`
        WITH gone AS (DELETE FROM report_idempotency_keys WHERE created_at <= ${since} RETURNING 1)
        SELECT count(*)::int AS n FROM gone`
    ).pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.orDie
    )

    return { find, claim, purgeExpired }
  })
)
