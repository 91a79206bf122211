import { SqlClient, type Statement } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { apiAccessPlans } from "../../domain/Plan.js"
import type { TenderMatch } from "../../domain/scoring/MatchEvent.js"
import {
  DeliveryRetrySchedule,
  isSuccessStatus,
  outcomeOf,
  TENDER_MATCHED
} from "../../domain/webhooks/DeliverySchedule.js"
import { renderFailureEmail } from "../../domain/webhooks/FailureEmail.js"
import { type MatchNames, tenderMatchedBody } from "../../domain/webhooks/TenderMatchedBody.js"
import { arrayLiteral } from "../db/ArrayLiteral.js"
import { clockNow } from "../db/ClockNow.js"
import { EmailOutbox, EmailOutboxLive } from "../mail/EmailOutbox.js"
import { jobKind } from "../queue/JobKind.js"
import { type Job, JobQueue, JobQueueLive, type Settlement } from "../queue/JobQueue.js"

/**
 * "webhook.deliver": one attempt at a delivery, grouped by webhook (the runner bounds the attempts
 * in flight per webhook). The delivery's own schedule (spec 6.3: 0, +30 s, +5 min, +30 min) is
 * applied by `finish`, which settles the job itself; the kind's claims (20) only bound a delivery
 * whose workers keep dying. An attempt is one request (its own 30 s timeout): 5 minutes fails only a
 * hung one.
 */
export const DeliverWebhook = jobKind("webhook.deliver", Schema.Struct({ deliveryId: Schema.String }), {
  maxAttempts: 20,
  retry: DeliveryRetrySchedule,
  timeout: Duration.minutes(5)
})

/** A delivery taken for one attempt. */
export interface StartedDelivery {
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

/**
 * A delivery as `startClaimed` returned it. Typed, not decoded: it is built by that statement, on the
 * measured hot path (`npm run bench -- webhooks`, one per delivery).
 */
export const startedDelivery = (started: unknown): StartedDelivery => {
  const row = started as Omit<StartedDelivery, "secretCiphertext"> & { readonly secretCiphertext: string }
  return { ...row, secretCiphertext: Buffer.from(row.secretCiphertext, "base64") }
}

/** How an attempt ended: an HTTP answer (any status) or no answer at all. */
export type AttemptResult =
  | { readonly _tag: "response"; readonly status: number }
  | { readonly _tag: "error"; readonly message: string }

/** What `finish` did: the new status, or `lost` when the delivery was no longer ours (deleted, reaped). */
export type FinishResult = "succeeded" | "pending" | "failed" | "lost"

const describe = (result: AttemptResult) =>
  result._tag === "response" ? `HTTP ${result.status} response` : result.message

/** How a delivery that may not be sent ends: its webhook deleted, or its tenant's plan without webhooks. */
export type UndeliverableEnd = "webhook_deleted" | "failed"

/** A delivery id as the job's payload should carry it (checked before it reaches a uuid column). */
const isUuid = Schema.is(Schema.UUID)

/**
 * Webhook deliveries (`webhook_deliveries`, `webhook_delivery_attempts`, `match_events`): the
 * events of new matches with one delivery per subscribed webhook and its job, and each attempt's
 * start and outcome. Every status change after the start is conditional on the delivery still being
 * `delivering` and its job still held, so a delivery that DELETE /webhooks/:id set to
 * `webhook_deleted` stays as it is.
 *
 * Webhooks are the key API's, so the Consultant plan's (spec 1.1, 8.2): deliveries are queued only
 * for tenants on a plan with API access, and one queued before a downgrade is not sent after it (it
 * ends `failed`, with no attempt and no e-mail; retryable from the dashboard after an upgrade).
 */
export class Deliveries extends Context.Tag("Deliveries")<
  Deliveries,
  {
    /** The tender.matched events of new matches and their deliveries, in the caller's transaction. */
    readonly recordMatches: (matches: ReadonlyArray<TenderMatch>) => Effect.Effect<number>
    /**
     * The start of the claimed `webhook.deliver` jobs' deliveries, run in the claim's statement
     * (`ClaimInput.start`): marks them `delivering` and returns each as `started` (read back with
     * `startedDelivery`); a delivery that ended meanwhile (or whose webhook did) is not started.
     */
    readonly startClaimed: Effect.Effect<Statement.Fragment>
    /**
     * Records the attempt (started at `startedAt`, finished now), its outcome and the job's
     * settlement in one statement; after the 4th automatic failure, queues the failure e-mail to the
     * tenant's users in the same transaction.
     */
    readonly finish: (
      job: Job,
      delivery: StartedDelivery,
      startedAt: number,
      result: AttemptResult
    ) => Effect.Effect<FinishResult>
    /**
     * Whether a claimed delivery is still `delivering`, its webhook active (not deleted since the
     * claim) and its tenant's plan one with webhooks (not downgraded since).
     */
    readonly stillDeliverable: (deliveryId: string) => Effect.Effect<boolean>
    /** The dead letter of a delivery whose job ran out of claims. */
    readonly recordDead: (deliveryId: string) => Effect.Effect<void>
    /**
     * Ends a delivery that is still pending or delivering but may not be sent: as `webhook_deleted`
     * when its webhook is deleted (one written by a scoring transaction that committed after the
     * DELETE, which the DELETE's own update could not see), as `failed` when its tenant's plan no
     * longer has webhooks (queued before a downgrade). No attempt is recorded and no e-mail sent.
     * The status it ended with, if it did.
     */
    readonly endIfUndeliverable: (deliveryId: string) => Effect.Effect<Option.Option<UndeliverableEnd>>
  }
>() {}

export const DeliveriesLive = Layer.effect(
  Deliveries,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* JobQueue
    const outbox = yield* EmailOutbox

    /** The company and authority names of the body's extensions, read in the scores' transaction. */
    const namesOf = (matches: ReadonlyArray<TenderMatch>) =>
      Effect.gen(function* () {
        const companyIds = [...new Set(matches.map((match) => match.companyId))]
        const tenderIds = [...new Set(matches.map((match) => match.tenderId))]
        const companies = yield* sql<{ id: string; name: string }>`
          SELECT id::text, name FROM companies WHERE id = ANY(${companyIds}::uuid[])`
        const authorities = yield* sql<{ id: string; name: string }>`
          SELECT t.id::text, a.name FROM tenders t JOIN contracting_authorities a ON a.id = t.authority_id
          WHERE t.id = ANY(${tenderIds}::uuid[])`
        const companyName = new Map(companies.map((row) => [row.id, row.name]))
        const authorityName = new Map(authorities.map((row) => [row.id, row.name]))
        // Both rows exist (foreign keys of the scores being written); "" only guards the type.
        return (match: TenderMatch): MatchNames => ({
          companyName: companyName.get(match.companyId) ?? "",
          authorityName: authorityName.get(match.tenderId) ?? ""
        })
      })

    const recordMatches = (matches: ReadonlyArray<TenderMatch>) =>
      Effect.gen(function* () {
        if (matches.length === 0) return 0
        const now = yield* clockNow
        const names = yield* namesOf(matches)
        // The new events, and for each one delivery per active webhook of the tenant subscribed to
        // tender.matched, if the tenant's plan has webhooks (spec 1.1, 6.1, with our name
        // extensions). The delivery body is the JSON text built here, fixed once: every attempt
        // sends and signs these bytes. The plan is one more join by primary key (tenants is small).
        const payloads = matches.map((match) => JSON.stringify(tenderMatchedBody(match.event, names(match))))
        const rows = yield* sql<{ id: string; webhook_id: string | null; events: number }>`
          WITH input AS (
            SELECT * FROM unnest(${arrayLiteral(matches.map((m) => m.tenantId))}::uuid[],
                                 ${arrayLiteral(matches.map((m) => m.companyId))}::uuid[],
                                 ${arrayLiteral(matches.map((m) => m.tenderId))}::uuid[], ${payloads}::text[])
              AS e(tenant_id, company_id, tender_id, payload)
          ), inserted AS (
            INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date)
            SELECT input.tenant_id, input.company_id, input.tender_id, input.payload::jsonb, t.publish_date
            FROM input JOIN tenders t ON t.id = input.tender_id
            ON CONFLICT (company_id, tender_id, tender_publish_date) DO NOTHING
            RETURNING id, tenant_id, company_id, tender_id
          ), deliveries AS (
            INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, next_attempt_at,
                                            created_at, updated_at)
            SELECT w.id, i.id, i.tenant_id, input.payload, 'pending', ${now}, ${now}, ${now}
            FROM inserted i
            JOIN input ON input.company_id = i.company_id AND input.tender_id = i.tender_id
            JOIN webhooks w ON w.tenant_id = i.tenant_id AND w.active AND ${TENDER_MATCHED} = ANY(w.events)
            JOIN tenants t ON t.id = i.tenant_id AND t.plan = ANY(${apiAccessPlans}::text[])
            RETURNING id, webhook_id
          )
          SELECT d.id::text, d.webhook_id::text, (SELECT count(*) FROM inserted)::int AS events
          FROM (SELECT NULL) AS one LEFT JOIN deliveries d ON true`
        yield* queue.enqueueAll(
          DeliverWebhook,
          rows.flatMap((row) =>
            row.webhook_id === null ? [] : [{ payload: { deliveryId: row.id }, groupKey: row.webhook_id }]
          )
        )
        return rows[0]?.events ?? 0
      }).pipe(Effect.orDie)

    // The payload's delivery id, cast only when it is one: a malformed payload must not fail the
    // claim of the jobs beside it (it starts nothing, so its run ends it as done).
    const claimedDeliveryId = sql`
      CASE WHEN c.payload->>'deliveryId' ~* '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$'
           THEN (c.payload->>'deliveryId')::uuid END`

    /** The delivery's tenant `t` is on a plan with webhooks: one queued before a downgrade is not sent. */
    const planHasWebhooks = sql`t.id = d.tenant_id AND t.plan = ANY(${apiAccessPlans}::text[])`

    const startClaimed = Effect.map(
      clockNow,
      (now) => sql`
        UPDATE webhook_deliveries d SET status = 'delivering', updated_at = ${now}
        FROM claimed c, webhooks w, tenants t
        WHERE c.kind = ${DeliverWebhook.name} AND d.id = ${claimedDeliveryId}
          AND d.status IN ('pending', 'delivering') AND w.id = d.webhook_id AND w.active AND ${planHasWebhooks}
        RETURNING c.id AS job_id,
          json_build_object('id', d.id, 'tenantId', d.tenant_id, 'webhookId', d.webhook_id, 'url', w.url,
                            'secretCiphertext', encode(w.secret_ciphertext, 'base64'), 'body', d.body,
                            'attemptNo', d.attempt_count + 1, 'attemptsAllowed', d.attempts_allowed) AS started`
    )

    const finish = (job: Job, delivery: StartedDelivery, startedAt: number, result: AttemptResult) =>
      Effect.gen(function* () {
        const now = yield* clockNow
        const succeeded = result._tag === "response" && isSuccessStatus(result.status)
        const outcome = outcomeOf(succeeded, delivery.attemptNo, delivery.attemptsAllowed)
        const status = outcome._tag === "retry" ? "pending" : outcome._tag
        const nextAttemptAt =
          outcome._tag === "retry" ? new Date(now.getTime() + Duration.toMillis(outcome.after)) : null
        const code = result._tag === "response" ? result.status : null
        const error = result._tag === "error" ? result.message : null
        const settlement: Settlement =
          outcome._tag === "succeeded"
            ? { _tag: "done", keep: false } // the delivery and its attempts are the record
            : outcome._tag === "retry"
              ? { _tag: "retry", at: nextAttemptAt!, error: describe(result) }
              : { _tag: "dead", error: describe(result) }
        const held = yield* queue.settlement(job, settlement)
        const startedAtDate = new Date(startedAt)
        const failed = outcome._tag === "failed"
        // The attempt happened whatever became of the delivery meanwhile, so it is always logged;
        // when a reaped attempt finishes late beside its successor, the holder's record wins (the
        // upsert overwrites only when this worker still held the delivery). One statement with the
        // job's settlement, so the common outcome costs one round trip.
        // Measured hot path (`npm run bench -- webhooks`, one per delivery): rows typed, not decoded.
        const record = sql<{ ours: boolean }>`
          WITH held AS (${held}), updated AS (
            UPDATE webhook_deliveries
            SET status = ${status}, attempt_count = ${delivery.attemptNo}, next_attempt_at = ${nextAttemptAt},
                last_status_code = ${code}, last_attempt_at = ${startedAtDate}, updated_at = ${now}
            WHERE id = ${delivery.id} AND status = 'delivering' AND EXISTS (SELECT 1 FROM held)
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
        if (!failed) return (yield* record) ? status : ("lost" as const)
        // The e-mail of spec 6.3.4, in the outcome's transaction, once per delivery: a failed manual retry
        // is shown in the dashboard where it was started, and sends no second e-mail.
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            if (!(yield* record)) return "lost" as const
            if (yield* firstFailureNotice(delivery.id, now)) {
              yield* outbox.enqueueForTenant(
                delivery.tenantId,
                renderFailureEmail({
                  id: delivery.id,
                  webhookId: delivery.webhookId,
                  url: delivery.url,
                  attempts: delivery.attemptNo,
                  failedAt: now,
                  lastFailure: result
                })
              )
            }
            return status
          })
        )
      }).pipe(Effect.orDie)

    const stillDeliverable = (deliveryId: string) =>
      sql`
        SELECT 1 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN tenants t ON ${planHasWebhooks}
        WHERE d.id = ${deliveryId} AND d.status = 'delivering' AND w.active`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    /** Stamps the delivery's failure e-mail; whether this is its first (so the e-mail is to be sent). */
    const firstFailureNotice = (deliveryId: string, now: Date) =>
      sql`UPDATE webhook_deliveries SET failure_notified_at = ${now}
          WHERE id = ${deliveryId} AND failure_notified_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const endIfUndeliverable = (deliveryId: string) =>
      !isUuid(deliveryId)
        ? Effect.succeedNone
        : Effect.flatMap(
            clockNow,
            (now) => sql<{ status: UndeliverableEnd }>`
              UPDATE webhook_deliveries d
              SET status = CASE WHEN w.active THEN 'failed' ELSE 'webhook_deleted' END, updated_at = ${now}
              FROM webhooks w, tenants t
              WHERE d.id = ${deliveryId} AND d.status IN ('pending', 'delivering') AND w.id = d.webhook_id
                AND t.id = d.tenant_id AND (NOT w.active OR NOT t.plan = ANY(${apiAccessPlans}::text[]))
              RETURNING d.status`
          ).pipe(
            Effect.map((rows) => Option.fromNullable(rows[0]?.status)),
            Effect.orDie
          )

    // A delivery whose job ran out of claims (its workers stopped, or recording kept failing) is failed
    // too, and e-mailed like one whose attempts failed, unless it was already.
    const recordDead = (deliveryId: string) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const now = yield* clockNow
            // Its webhook deleted meanwhile (or its tenant downgraded): it ends as the DELETE ends the
            // others (or as a downgrade does), with no e-mail.
            if (Option.isSome(yield* endIfUndeliverable(deliveryId))) return
            const [dead] = yield* sql<{ tenant_id: string; webhook_id: string; url: string; attempt_count: number }>`
              UPDATE webhook_deliveries d SET status = 'failed', updated_at = ${now}
              FROM webhooks w
              WHERE d.id = ${deliveryId} AND d.status IN ('pending', 'delivering') AND w.id = d.webhook_id
              RETURNING d.tenant_id, d.webhook_id, w.url, d.attempt_count`
            if (dead === undefined || !(yield* firstFailureNotice(deliveryId, now))) return
            yield* outbox.enqueueForTenant(
              dead.tenant_id,
              renderFailureEmail({
                id: deliveryId,
                webhookId: dead.webhook_id,
                url: dead.url,
                attempts: dead.attempt_count,
                failedAt: now,
                lastFailure: { _tag: "stopped" }
              })
            )
          })
        )
        .pipe(Effect.orDie)

    return { recordMatches, startClaimed, finish, stillDeliverable, recordDead, endIfUndeliverable }
  })
).pipe(Layer.provide(Layer.merge(JobQueueLive, EmailOutboxLive)))
