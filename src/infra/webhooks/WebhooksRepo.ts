import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
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

/** A page of a webhook's deliveries, newest first, and whether older ones remain. */
export interface DeliveryPage {
  readonly deliveries: ReadonlyArray<DeliverySummary>
  readonly hasMore: boolean
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
     * An active webhook's deliveries in the dashboard's order, DASHBOARD_DELIVERIES a page: from the
     * newest, or those created before the delivery `before` (the last one a page showed), so a webhook
     * that failed 30 times shows them all. An unknown, foreign or deleted webhook is WebhookNotFound;
     * a `before` that is not one of its deliveries, DeliveryNotFound.
     */
    readonly deliveries: (input: {
      readonly tenantId: string
      readonly webhookId: string
      readonly before: string | undefined
    }) => Effect.Effect<DeliveryPage, WebhookNotFound | DeliveryNotFound>
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

const WebhookRow = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  active: Schema.Boolean,
  created_at: Schema.DateFromSelf,
  deleted_at: Schema.NullOr(Schema.DateFromSelf)
})
type WebhookRow = typeof WebhookRow.Type

const DeliveryRow = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  timestamp: Schema.DateFromSelf,
  response_code: Schema.NullOr(Schema.Number)
})
type DeliveryRow = typeof DeliveryRow.Type

/** A dashboard delivery with the webhook it belongs to. */
const DashboardRow = Schema.Struct({ ...DeliveryRow.fields, webhook_id: Schema.String })

/** Tenant and webhook (or delivery) of a request. */
const TenantAnd = Schema.Struct({ tenantId: Schema.String, id: Schema.String })

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

    const countActive = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ active: Schema.Number }),
      execute: (tenantId) => sql`
        SELECT count(*)::int AS active FROM webhooks WHERE tenant_id = ${tenantId} AND active`
    })

    const insertWebhook = SqlSchema.single({
      Request: Schema.Struct({
        tenantId: Schema.String,
        url: Schema.String,
        events: Schema.Array(Schema.String),
        secretCiphertext: Schema.Uint8ArrayFromSelf,
        createdAt: Schema.DateFromSelf
      }),
      Result: WebhookRow,
      execute: (input) => sql`
        INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events, created_at)
        VALUES (${input.tenantId}, ${input.url}, ${Buffer.from(input.secretCiphertext)},
                ${[...input.events]}::text[], ${input.createdAt})
        RETURNING id, url, events, active, created_at, deleted_at`
    })

    const activeWebhooks = SqlSchema.findAll({
      Request: Schema.String,
      Result: WebhookRow,
      execute: (tenantId) => sql`
        SELECT id, url, events, active, created_at, deleted_at FROM webhooks
        WHERE tenant_id = ${tenantId} AND active ORDER BY created_at, id`
    })

    const deactivate = SqlSchema.findOne({
      Request: Schema.Struct({ ...TenantAnd.fields, at: Schema.DateFromSelf }),
      Result: WebhookRow,
      execute: (input) => sql`
        UPDATE webhooks SET active = false, deleted_at = ${input.at}
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND active
        RETURNING id, url, events, active, created_at, deleted_at`
    })

    const recentDeliveries = SqlSchema.findAll({
      Request: Schema.String,
      Result: DashboardRow,
      execute: (tenantId) => sql`
        SELECT w.id AS webhook_id, recent.* FROM webhooks w
        CROSS JOIN LATERAL (
          SELECT ${deliveryColumns}, d.created_at AS created_order FROM webhook_deliveries d ${lastAttempt}
          WHERE d.webhook_id = w.id
          ORDER BY d.created_at DESC, d.id DESC LIMIT ${DASHBOARD_DELIVERIES}
        ) recent
        WHERE w.tenant_id = ${tenantId} AND w.active
        ORDER BY recent.created_order DESC, recent.id DESC`
    })

    const activeWebhook = SqlSchema.findOne({
      Request: TenantAnd,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (input) => sql`
        SELECT id FROM webhooks WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND active`
    })

    const deliveryOfWebhook = SqlSchema.findOne({
      Request: Schema.Struct({ webhookId: Schema.String, id: Schema.String }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: (input) => sql`
        SELECT id FROM webhook_deliveries WHERE id = ${input.id} AND webhook_id = ${input.webhookId}`
    })

    // One row more than a page: whether older ones remain. The position is compared in SQL, so the
    // microseconds of created_at (a JavaScript Date keeps milliseconds) never skip or repeat a row.
    const deliveryPage = SqlSchema.findAll({
      Request: Schema.Struct({ webhookId: Schema.String, before: Schema.NullOr(Schema.String) }),
      Result: DeliveryRow,
      execute: (input) => sql`
        SELECT ${deliveryColumns} FROM webhook_deliveries d ${lastAttempt}
        WHERE d.webhook_id = ${input.webhookId}
          ${
            input.before === null
              ? sql``
              : sql`AND (d.created_at, d.id) < (SELECT created_at, id FROM webhook_deliveries WHERE id = ${input.before})`
          }
        ORDER BY d.created_at DESC, d.id DESC LIMIT ${DASHBOARD_DELIVERIES + 1}`
    })

    // Webhook row first, then the delivery: the order DELETE takes them in (no deadlock), and a
    // concurrent DELETE cannot slip between this check and the update.
    const webhookOfDeliveryForShare = SqlSchema.findOne({
      Request: TenantAnd,
      Result: Schema.Struct({ active: Schema.Boolean }),
      execute: (input) => sql`
        SELECT w.active FROM webhooks w
        WHERE w.id = (SELECT webhook_id FROM webhook_deliveries WHERE id = ${input.id})
          AND w.tenant_id = ${input.tenantId}
        FOR SHARE`
    })

    const deliveryForUpdate = SqlSchema.findOne({
      Request: TenantAnd,
      Result: Schema.Struct({ status: Schema.String }),
      execute: (input) => sql`
        SELECT status FROM webhook_deliveries
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} FOR UPDATE`
    })

    const allowOneMoreAttempt = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, at: Schema.DateFromSelf }),
      Result: Schema.Struct({ webhook_id: Schema.String }),
      execute: (input) => sql`
        UPDATE webhook_deliveries
        SET status = 'pending', attempts_allowed = attempt_count + 1, next_attempt_at = ${input.at},
            updated_at = ${input.at}
        WHERE id = ${input.id}
        RETURNING webhook_id::text`
    })

    const deliverySummary = SqlSchema.single({
      Request: Schema.String,
      Result: DeliveryRow,
      execute: (id) => sql`
        SELECT ${deliveryColumns} FROM webhook_deliveries d ${lastAttempt} WHERE d.id = ${id}`
    })

    const create: WebhooksRepo["Type"]["create"] = (input) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* lockTenant(sql, input.tenantId)
            const { active } = yield* countActive(input.tenantId)
            if (active >= MAX_ACTIVE_WEBHOOKS) return yield* new WebhookLimitExceeded({ limit: MAX_ACTIVE_WEBHOOKS })
            const row = yield* insertWebhook({ ...input, createdAt: yield* now })
            return toWebhook(row)
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die, NoSuchElementException: Effect.die }))

    const listActive = (tenantId: string) =>
      activeWebhooks(tenantId).pipe(
        Effect.map((rows) => rows.map(toWebhook)),
        Effect.orDie
      )

    const remove: WebhooksRepo["Type"]["remove"] = (input) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const at = yield* now
            const row = yield* deactivate({ tenantId: input.tenantId, id: input.id, at })
            if (Option.isNone(row)) return yield* new WebhookNotFound({ id: input.id })
            // Spec 3: in-flight deliveries finish as webhook_deleted. A dispatcher holding one
            // writes its outcome only while the row is still `delivering`, so this status stays.
            yield* sql`
              UPDATE webhook_deliveries SET status = 'webhook_deleted', updated_at = ${at}
              WHERE webhook_id = ${input.id} AND status IN ('pending', 'delivering')`
            return toWebhook(row.value)
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    const dashboard = (tenantId: string) =>
      Effect.gen(function* () {
        const webhooks = yield* listActive(tenantId)
        if (webhooks.length === 0) return []
        const rows = yield* recentDeliveries(tenantId).pipe(Effect.orDie)
        return webhooks.map((webhook) => ({
          ...webhook,
          deliveries: rows.filter((row) => row.webhook_id === webhook.id).map(toDelivery)
        }))
      })

    const deliveries: WebhooksRepo["Type"]["deliveries"] = (input) =>
      Effect.gen(function* () {
        const webhook = yield* activeWebhook({ tenantId: input.tenantId, id: input.webhookId })
        if (Option.isNone(webhook)) return yield* new WebhookNotFound({ id: input.webhookId })
        if (input.before !== undefined) {
          const before = yield* deliveryOfWebhook({ webhookId: input.webhookId, id: input.before })
          if (Option.isNone(before)) return yield* new DeliveryNotFound({ id: input.before })
        }
        const rows = yield* deliveryPage({ webhookId: input.webhookId, before: input.before ?? null })
        return {
          deliveries: rows.slice(0, DASHBOARD_DELIVERIES).map(toDelivery),
          hasMore: rows.length > DASHBOARD_DELIVERIES
        }
      }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    const retryDelivery: WebhooksRepo["Type"]["retryDelivery"] = (input) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const request = { tenantId: input.tenantId, id: input.deliveryId }
            const webhook = yield* webhookOfDeliveryForShare(request)
            if (Option.isNone(webhook)) return yield* new DeliveryNotFound({ id: input.deliveryId })
            const delivery = yield* deliveryForUpdate(request)
            if (Option.isNone(delivery)) return yield* new DeliveryNotFound({ id: input.deliveryId })
            if (delivery.value.status !== "failed") {
              return yield* new DeliveryNotRetryable({ id: input.deliveryId, status: delivery.value.status })
            }
            // A deleted webhook receives nothing more (spec 3).
            if (!webhook.value.active) {
              return yield* new DeliveryNotRetryable({ id: input.deliveryId, status: "webhook deleted" })
            }
            const retried = yield* allowOneMoreAttempt({ id: input.deliveryId, at: yield* now })
            // Queued at commit: the runner of the webhook's deliveries wakes for it.
            yield* queue.enqueue(DeliverWebhook, { deliveryId: input.deliveryId }, { groupKey: retried.webhook_id })
            return toDelivery(yield* deliverySummary(input.deliveryId))
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die, NoSuchElementException: Effect.die }))

    return { create, listActive, remove, dashboard, deliveries, retryDelivery }
  })
).pipe(Layer.provide(JobQueueLive))
