import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, type Stream } from "effect"
import {
  AUTOMATIC_ATTEMPTS,
  isSuccessStatus,
  outcomeOf,
  TENDER_MATCHED
} from "../../domain/webhooks/DeliverySchedule.js"
import { clockNow } from "../db/ClockNow.js"
import { EmailOutbox } from "../mail/EmailOutbox.js"
import { wakeupsOn } from "../queue/Wakeups.js"

/**
 * NOTIFY channel woken when deliveries are written (by scoring, or a manual retry). The payload must
 * not be empty: `PgClient.listen` in @effect/sql-pg 0.53 drops notifications without one.
 */
export const DELIVERIES_CHANNEL = "webhook_deliveries"

/** A delivery claimed by this worker for one attempt. */
export interface ClaimedDelivery {
  readonly id: string
  readonly tenantId: string
  readonly webhookId: string
  readonly url: string
  readonly secretCiphertext: Uint8Array
  /** The exact body text, the same bytes at every attempt. */
  readonly body: string
  /** The number this attempt will have (1-based). */
  readonly attemptNo: number
  readonly attemptsAllowed: number
}

/** How an attempt ended: an HTTP answer (any status) or no answer at all. */
export type AttemptResult =
  | { readonly _tag: "response"; readonly status: number }
  | { readonly _tag: "error"; readonly message: string }

export interface ClaimInput {
  readonly workerId: string
  /** At most this many deliveries in all. */
  readonly limit: number
  /** At most this many per webhook, in all (the caller's in-flight counts are subtracted). */
  readonly perWebhook: number
  /** Webhooks with attempts already in flight at this worker, and how many. */
  readonly inFlight: ReadonlyMap<string, number>
  readonly lease: Duration.DurationInput
}

/**
 * The claimed deliveries, and whether the candidate scan was full (`more`): then due rows beyond it
 * (of webhooks that reached their bound in this claim) may remain, and another claim may find some.
 */
export interface ClaimResult {
  readonly claimed: ReadonlyArray<ClaimedDelivery>
  readonly more: boolean
}

/** What `finish` did: the new status, or `lost` when the delivery was no longer ours (deleted, reaped). */
export type FinishResult = "succeeded" | "pending" | "failed" | "lost"

/**
 * Webhook deliveries as their own durable queue (`webhook_deliveries`): claimed with FOR UPDATE
 * SKIP LOCKED under a lease, every time from Effect's Clock. Every status change after the claim is
 * conditional on the delivery still being `delivering` under this worker's lock, so a delivery
 * that DELETE /webhooks/:id set to `webhook_deleted` (or that the reaper took back) stays as it is.
 */
export class DeliveryQueue extends Context.Tag("DeliveryQueue")<
  DeliveryQueue,
  {
    /** Due pending deliveries of active webhooks, oldest due first, marked `delivering` under a lease. */
    readonly claim: (input: ClaimInput) => Effect.Effect<ClaimResult>
    /**
     * Records the attempt (started at `startedAt`, finished now) and its outcome in one
     * transaction; after the 4th automatic failure, queues the failure e-mail to the tenant's users.
     */
    readonly finish: (
      workerId: string,
      delivery: ClaimedDelivery,
      startedAt: number,
      result: AttemptResult
    ) => Effect.Effect<FinishResult>
    /** When the next pending delivery of an active webhook is due (epoch ms), if any. */
    readonly nextDueAt: Effect.Effect<Option.Option<number>>
    /** Returns deliveries whose lease ran out (their worker died) to pending; how many. */
    readonly reap: Effect.Effect<number>
    /** One element per NOTIFY on the deliveries channel (a dedicated connection, reopened when it drops). */
    readonly wakeups: Stream.Stream<void>
  }
>() {}

/** The failure e-mail (spec 3): names the webhook, the delivery, the event and the last error. */
export const failureMessage = (delivery: ClaimedDelivery, lastError: string) => ({
  subject: `Webhook delivery failed: ${delivery.url}`,
  bodyText: [
    `A ${TENDER_MATCHED} delivery to your webhook could not be delivered after ${delivery.attemptNo} attempts.`,
    "",
    `Webhook URL: ${delivery.url}`,
    `Webhook id:  ${delivery.webhookId}`,
    `Delivery id: ${delivery.id}`,
    `Event:       ${TENDER_MATCHED}`,
    `Last error:  ${lastError}`,
    "",
    "You can retry the delivery from the dashboard."
  ].join("\n")
})

const describe = (result: AttemptResult) =>
  result._tag === "response" ? `HTTP ${result.status} response` : result.message

export const DeliveryQueueLive = Layer.effect(
  DeliveryQueue,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    const outbox = yield* EmailOutbox

    const claim = ({ workerId, limit, perWebhook, inFlight, lease }: ClaimInput) =>
      Effect.gen(function* () {
        if (limit <= 0) return { claimed: [], more: false }
        const now = yield* clockNow
        const leaseUntil = new Date(now.getTime() + Duration.toMillis(Duration.decode(lease)))
        const full = [...inFlight].filter(([, n]) => n >= perWebhook).map(([id]) => id)
        const busy = [...inFlight].filter(([, n]) => n > 0 && n < perWebhook)
        // Rows of webhooks already at their bound are skipped before the LIMIT, so a backlog for a
        // slow receiver never fills the scan and hides other tenants' due deliveries. Only the chosen
        // rows are locked (SKIP LOCKED, status checked again under the lock): locking the whole scan
        // wrote hundreds of row locks per claim to take a few rows. A row another worker claims
        // meanwhile is skipped or fails the recheck, so it is never claimed twice.
        const rows = yield* sql<{
          id: string
          tenant_id: string
          webhook_id: string
          url: string
          secret_ciphertext: Uint8Array
          body: string
          attempt_count: number
          attempts_allowed: number
          scanned: number
        }>`
          WITH candidates AS (
            SELECT d.id, d.webhook_id, d.next_attempt_at FROM webhook_deliveries d
            JOIN webhooks w ON w.id = d.webhook_id AND w.active
            WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}
              AND NOT (d.webhook_id = ANY(${full}::uuid[]))
            ORDER BY d.next_attempt_at
            LIMIT ${limit * 4}
          ), ranked AS (
            SELECT c.id FROM (
              SELECT id, webhook_id, next_attempt_at,
                     row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, id) AS rank
              FROM candidates) c
            LEFT JOIN unnest(${busy.map(([id]) => id)}::uuid[], ${busy.map(([, n]) => n)}::int[]) AS f(webhook_id, n)
              ON f.webhook_id = c.webhook_id
            WHERE c.rank <= ${perWebhook} - coalesce(f.n, 0)
            ORDER BY c.next_attempt_at, c.id
            LIMIT ${limit}
          ), chosen AS (
            SELECT d.id FROM webhook_deliveries d
            WHERE d.id IN (SELECT id FROM ranked) AND d.status = 'pending'
            FOR UPDATE SKIP LOCKED
          )
          UPDATE webhook_deliveries d
          SET status = 'delivering', locked_by = ${workerId}, lease_until = ${leaseUntil}, updated_at = ${now}
          FROM chosen, webhooks w
          WHERE d.id = chosen.id AND w.id = d.webhook_id
          RETURNING d.id, d.tenant_id, d.webhook_id, w.url, w.secret_ciphertext, d.body, d.attempt_count,
                    d.attempts_allowed, (SELECT count(*)::int FROM candidates) AS scanned`
        const claimed = rows.map(
          (r): ClaimedDelivery => ({
            id: r.id,
            tenantId: r.tenant_id,
            webhookId: r.webhook_id,
            url: r.url,
            secretCiphertext: r.secret_ciphertext,
            body: r.body,
            attemptNo: r.attempt_count + 1,
            attemptsAllowed: r.attempts_allowed
          })
        )
        return { claimed, more: rows.length > 0 && Number(rows[0]?.scanned) >= limit * 4 }
      }).pipe(Effect.orDie)

    const finish = (workerId: string, delivery: ClaimedDelivery, startedAt: number, result: AttemptResult) =>
      Effect.gen(function* () {
        const now = yield* clockNow
        const succeeded = result._tag === "response" && isSuccessStatus(result.status)
        const outcome = outcomeOf(succeeded, delivery.attemptNo, delivery.attemptsAllowed)
        const status = outcome._tag === "retry" ? "pending" : outcome._tag
        const nextAttemptAt =
          outcome._tag === "retry" ? new Date(now.getTime() + Duration.toMillis(outcome.after)) : null
        const code = result._tag === "response" ? result.status : null
        const error = result._tag === "error" ? result.message : null
        const startedAtDate = new Date(startedAt)
        const sendsEmail = outcome._tag === "failed" && delivery.attemptNo === AUTOMATIC_ATTEMPTS
        // The attempt happened whatever became of the delivery meanwhile, so it is always logged;
        // when a reaped attempt finishes late beside its successor, the holder's record wins (the
        // upsert overwrites only when this worker still held the delivery). One statement, so the
        // common outcome costs one round trip.
        const record = sql<{ ours: boolean }>`
          WITH updated AS (
            UPDATE webhook_deliveries
            SET status = ${status}, attempt_count = ${delivery.attemptNo}, next_attempt_at = ${nextAttemptAt},
                last_status_code = ${code}, last_attempt_at = ${startedAtDate}, locked_by = NULL,
                lease_until = NULL, updated_at = ${now}
            WHERE id = ${delivery.id} AND status = 'delivering' AND locked_by = ${workerId}
            RETURNING id
          ), logged AS (
            INSERT INTO webhook_delivery_attempts (delivery_id, attempt_no, started_at, finished_at, response_code, error)
            VALUES (${delivery.id}, ${delivery.attemptNo}, ${startedAtDate}, ${now}, ${code}, ${error})
            ON CONFLICT (delivery_id, attempt_no) DO UPDATE SET started_at = EXCLUDED.started_at,
              finished_at = EXCLUDED.finished_at, response_code = EXCLUDED.response_code, error = EXCLUDED.error
              WHERE EXISTS (SELECT 1 FROM updated)
            RETURNING 1
          )
          SELECT EXISTS (SELECT 1 FROM updated) AS ours`.pipe(Effect.map((rows) => rows[0]?.ours === true))
        if (!sendsEmail) return (yield* record) ? status : ("lost" as const)
        // The e-mail of spec 3 follows the 4th automatic attempt only, in the outcome's transaction; a
        // failed manual retry is shown in the dashboard where it was started, and sends no second e-mail.
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            if (!(yield* record)) return "lost" as const
            yield* outbox.enqueueForTenant(delivery.tenantId, failureMessage(delivery, describe(result)))
            return status
          })
        )
      }).pipe(Effect.orDie)

    const nextDueAt = sql<{ at: Date | null }>`
      SELECT min(d.next_attempt_at) AS at FROM webhook_deliveries d
      JOIN webhooks w ON w.id = d.webhook_id AND w.active
      WHERE d.status = 'pending'`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]?.at).pipe(Option.map((at) => new Date(at).getTime()))),
      Effect.orDie
    )

    const reap = Effect.gen(function* () {
      const now = yield* clockNow
      const rows = yield* sql`
        UPDATE webhook_deliveries SET status = 'pending', locked_by = NULL, lease_until = NULL, updated_at = ${now}
        WHERE status = 'delivering' AND lease_until < ${now}
        RETURNING 1`
      return rows.length
    }).pipe(Effect.orDie)

    return {
      claim,
      finish,
      nextDueAt,
      reap,
      wakeups: wakeupsOn(pg, DELIVERIES_CHANNEL)
    }
  })
)
