import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer } from "effect"
import {
  DeliveryNotFound,
  DeliveryNotRetryable,
  type TenantNotFound,
  WebhookLimitExceeded,
  WebhookNotFound
} from "../../domain/Errors.js"
import { MAX_ACTIVE_WEBHOOKS } from "../../domain/webhooks/Registration.js"
import { lockTenant } from "../db/TenantLock.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { DeliverWebhook } from "./Deliveries.js"

/** How many deliveries of each webhook the dashboard shows (spec 2.6). */
export const DASHBOARD_DELIVERIES = 10

export interface Webhook {
  readonly id: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly active: boolean
  readonly createdAt: Date
  readonly deletedAt: Date | null
}

/** What the dashboard shows of a delivery (spec 2.6: status, timestamp, HTTP response code). */
export interface DeliverySummary {
  readonly id: string
  readonly status: string
  /** When its last attempt started; its creation when none was made yet. */
  readonly timestamp: Date
  /** The HTTP status of its last attempt; null before any attempt or when no response came. */
  readonly responseCode: number | null
}

export interface WebhookWithDeliveries extends Webhook {
  /** Newest first, at most DASHBOARD_DELIVERIES. */
  readonly deliveries: ReadonlyArray<DeliverySummary>
}

/**
 * Webhook registrations of a tenant (the secret arrives sealed: this module never sees it) and the
 * dashboard's view of their deliveries. The delivery dispatcher reads the same tables.
 */
export class WebhooksRepo extends Context.Tag("WebhooksRepo")<
  WebhooksRepo,
  {
    /** Registers a webhook; at most MAX_ACTIVE_WEBHOOKS active per tenant, even under concurrency. */
    readonly create: (input: {
      readonly tenantId: string
      readonly url: string
      readonly events: ReadonlyArray<string>
      readonly secretCiphertext: Uint8Array
    }) => Effect.Effect<Webhook, WebhookLimitExceeded | TenantNotFound>
    /** The tenant's active webhooks, oldest first. */
    readonly listActive: (tenantId: string) => Effect.Effect<ReadonlyArray<Webhook>>
    /**
     * Deactivates an active webhook of the tenant and, in the same transaction, ends its `pending`
     * and `delivering` deliveries with `webhook_deleted`. An unknown, foreign or already deleted
     * webhook is WebhookNotFound.
     */
    readonly remove: (input: {
      readonly tenantId: string
      readonly id: string
    }) => Effect.Effect<Webhook, WebhookNotFound>
    /** The tenant's active webhooks, oldest first, each with its latest deliveries. */
    readonly dashboard: (tenantId: string) => Effect.Effect<ReadonlyArray<WebhookWithDeliveries>>
    /**
     * Manual retry (spec 6.3.5) of a `failed` delivery of an active webhook of the tenant: one
     * attempt more is allowed, due now, and the dispatcher is woken.
     */
    readonly retryDelivery: (input: {
      readonly tenantId: string
      readonly deliveryId: string
    }) => Effect.Effect<DeliverySummary, DeliveryNotFound | DeliveryNotRetryable>
  }
>() {}

interface WebhookRow {
  readonly id: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly active: boolean
  readonly created_at: Date
  readonly deleted_at: Date | null
}

interface DeliveryRow {
  readonly id: string
  readonly status: string
  readonly timestamp: Date
  readonly response_code: number | null
}

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: row.events,
  active: row.active,
  createdAt: row.created_at,
  deletedAt: row.deleted_at
})

const toDelivery = (row: DeliveryRow): DeliverySummary => ({
  id: row.id,
  status: row.status,
  timestamp: row.timestamp,
  responseCode: row.response_code
})

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

export const WebhooksRepoLive = Layer.effect(
  WebhooksRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* JobQueue

    /** The dashboard's delivery columns, `d` joined to its last attempt `a`. */
    const deliveryColumns = sql`
      d.id, d.status, coalesce(a.started_at, d.created_at) AS timestamp,
      CASE WHEN a.attempt_no IS NULL THEN d.last_status_code ELSE a.response_code END AS response_code`
    const lastAttempt = sql`
      LEFT JOIN LATERAL (
        SELECT attempt_no, started_at, response_code FROM webhook_delivery_attempts
        WHERE delivery_id = d.id ORDER BY attempt_no DESC LIMIT 1
      ) a ON true`

    const create: WebhooksRepo["Type"]["create"] = (input) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* lockTenant(sql, input.tenantId)
            const [{ active }] = yield* sql<{ active: number }>`
              SELECT count(*)::int AS active FROM webhooks WHERE tenant_id = ${input.tenantId} AND active`
            if (active >= MAX_ACTIVE_WEBHOOKS) return yield* new WebhookLimitExceeded({ limit: MAX_ACTIVE_WEBHOOKS })
            const [row] = yield* sql<WebhookRow>`
              INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events, created_at)
              VALUES (${input.tenantId}, ${input.url}, ${Buffer.from(input.secretCiphertext)},
                      ${[...input.events]}::text[], ${yield* now})
              RETURNING id, url, events, active, created_at, deleted_at`
            return toWebhook(row!)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    const listActive = (tenantId: string) =>
      sql<WebhookRow>`
        SELECT id, url, events, active, created_at, deleted_at FROM webhooks
        WHERE tenant_id = ${tenantId} AND active ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toWebhook)),
        Effect.orDie
      )

    const remove: WebhooksRepo["Type"]["remove"] = (input) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const at = yield* now
            const [row] = yield* sql<WebhookRow>`
              UPDATE webhooks SET active = false, deleted_at = ${at}
              WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND active
              RETURNING id, url, events, active, created_at, deleted_at`
            if (row === undefined) return yield* new WebhookNotFound({ id: input.id })
            // Spec 3: in-flight deliveries finish as webhook_deleted. A dispatcher holding one
            // writes its outcome only while the row is still `delivering`, so this status stays.
            yield* sql`
              UPDATE webhook_deliveries SET status = 'webhook_deleted', updated_at = ${at}
              WHERE webhook_id = ${input.id} AND status IN ('pending', 'delivering')`
            return toWebhook(row)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    const dashboard = (tenantId: string) =>
      Effect.gen(function* () {
        const webhooks = yield* listActive(tenantId)
        if (webhooks.length === 0) return []
        const rows = yield* sql<DeliveryRow & { webhook_id: string }>`
          SELECT w.id AS webhook_id, recent.* FROM webhooks w
          CROSS JOIN LATERAL (
            SELECT ${deliveryColumns}, d.created_at AS created_order FROM webhook_deliveries d ${lastAttempt}
            WHERE d.webhook_id = w.id
            ORDER BY d.created_at DESC, d.id DESC LIMIT ${DASHBOARD_DELIVERIES}
          ) recent
          WHERE w.tenant_id = ${tenantId} AND w.active
          ORDER BY recent.created_order DESC, recent.id DESC`.pipe(Effect.orDie)
        return webhooks.map((webhook) => ({
          ...webhook,
          deliveries: rows.filter((row) => row.webhook_id === webhook.id).map(toDelivery)
        }))
      })

    const retryDelivery: WebhooksRepo["Type"]["retryDelivery"] = (input) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // Webhook row first, then the delivery: the order DELETE takes them in (no deadlock), and a
            // concurrent DELETE cannot slip between this check and the update.
            const [webhook] = yield* sql<{ active: boolean }>`
              SELECT w.active FROM webhooks w
              WHERE w.id = (SELECT webhook_id FROM webhook_deliveries WHERE id = ${input.deliveryId})
                AND w.tenant_id = ${input.tenantId}
              FOR SHARE`
            if (webhook === undefined) return yield* new DeliveryNotFound({ id: input.deliveryId })
            const [delivery] = yield* sql<{ status: string }>`
              SELECT status FROM webhook_deliveries
              WHERE id = ${input.deliveryId} AND tenant_id = ${input.tenantId} FOR UPDATE`
            if (delivery === undefined) return yield* new DeliveryNotFound({ id: input.deliveryId })
            if (delivery.status !== "failed") {
              return yield* new DeliveryNotRetryable({ id: input.deliveryId, status: delivery.status })
            }
            // A deleted webhook receives nothing more (spec 3).
            if (!webhook.active) {
              return yield* new DeliveryNotRetryable({ id: input.deliveryId, status: "webhook deleted" })
            }
            const at = yield* now
            const [retried] = yield* sql<{ webhook_id: string }>`
              UPDATE webhook_deliveries
              SET status = 'pending', attempts_allowed = attempt_count + 1, next_attempt_at = ${at},
                  updated_at = ${at}
              WHERE id = ${input.deliveryId}
              RETURNING webhook_id::text`
            // Queued at commit: the runner of the webhook's deliveries wakes for it.
            yield* queue.enqueue(DeliverWebhook, { deliveryId: input.deliveryId }, { groupKey: retried!.webhook_id })
            const [row] = yield* sql<DeliveryRow>`
              SELECT ${deliveryColumns} FROM webhook_deliveries d ${lastAttempt} WHERE d.id = ${input.deliveryId}`
            return toDelivery(row!)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    return { create, listActive, remove, dashboard, retryDelivery }
  })
).pipe(Layer.provide(JobQueueLive))
