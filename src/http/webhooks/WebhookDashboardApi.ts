import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { DateTime } from "../../domain/Timestamps.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { StrictBody } from "../Inputs.js"
import { errors } from "../WireErrors.js"
import { CreateWebhook, WebhookEventName } from "./WebhooksApi.js"

/** What the dashboard shows of a delivery (spec 2.6): status, timestamp, HTTP response code. */
export const DeliverySummary = Schema.Struct({
  id: Schema.UUID,
  status: Schema.Literal("pending", "delivering", "succeeded", "failed", "webhook_deleted"),
  timestamp: DateTime.annotations({
    description: "When the last attempt started; the delivery's creation before any attempt"
  }),
  responseCode: Schema.NullOr(Schema.Int).annotations({
    description: "HTTP status of the last attempt; null before any attempt or when no response came"
  })
})

export const DashboardWebhook = Schema.Struct({
  id: Schema.UUID,
  url: Schema.String,
  events: Schema.Array(WebhookEventName),
  active: Schema.Boolean,
  createdAt: DateTime,
  deliveries: Schema.Array(DeliverySummary).annotations({ description: "The last 10 deliveries, newest first" })
})

/**
 * The application dashboard's view of webhooks (access token), under /api/v1/settings: registering
 * and retrying need the Consultant plan; listing and deleting work on every plan (after a downgrade).
 */
export class WebhookDashboardApi extends HttpApiGroup.make("webhookDashboard")
  .add(
    HttpApiEndpoint.get("listWebhooks", "/webhooks")
      .annotate(OpenApi.Summary, "Active webhooks of the account with their last 10 deliveries")
      .addSuccess(Schema.Struct({ data: Schema.Array(DashboardWebhook) }))
      .annotate(
        OpenApi.Description,
        "Every plan: a tenant below Consultant still sees the webhooks it registered before."
      )
  )
  .add(
    HttpApiEndpoint.get("listDeliveries", "/webhooks/:id/deliveries")
      .annotate(OpenApi.Summary, "Older deliveries of an active webhook, 10 at a time")
      .setPath(Schema.Struct({ id: Schema.UUID }))
      .setUrlParams(
        Schema.Struct({
          before: Schema.optionalWith(Schema.UUID, { exact: true }).annotations({
            description: "A delivery of this webhook: the page lists the ones created before it (the last one shown)"
          })
        })
      )
      .addSuccess(
        Schema.Struct({
          data: Schema.Array(DeliverySummary),
          meta: Schema.Struct({ hasMore: Schema.Boolean })
        })
      )
      .addError(errors(ApiError.NotFound))
      .annotate(
        OpenApi.Description,
        "The webhook's deliveries newest first, in the dashboard's order, 10 a page: without `before` the dashboard's last 10, with it the 10 created before that delivery; `meta.hasMore` tells whether older ones remain. Every plan. Another account's, an unknown or a deleted webhook, or a `before` that is not a delivery of this webhook (one the retention job deleted meanwhile included), is 404."
      )
  )
  .add(
    HttpApiEndpoint.post("createWebhook", "/webhooks")
      .annotate(OpenApi.Summary, "Register a webhook from the app")
      .setPayload(StrictBody(CreateWebhook))
      .addSuccess(Schema.Struct({ data: DashboardWebhook }), { status: 201 })
      .addError(errors(ApiError.WebhookLimitExceeded, ApiError.PlanUpgradeRequired))
      .annotate(
        OpenApi.Description,
        "Consultant plan only; others get 403 PLAN_UPGRADE_REQUIRED. The same rules as POST /api/v1/webhooks (key API): `url` an https:// URL, `secret` 32-1,024 characters (write-only, never returned), `events` from [tender.matched]; 400 for a host that is, or resolves to, a special-purpose address or does not resolve; 422 WEBHOOK_LIMIT_EXCEEDED for a sixth active webhook. Answered with `Cache-Control: no-store`."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteWebhook", "/webhooks/:id")
      .annotate(OpenApi.Summary, "Delete a webhook from the app")
      .setPath(Schema.Struct({ id: Schema.UUID }))
      .addSuccess(
        Schema.Struct({
          data: Schema.Struct({ id: Schema.UUID, active: Schema.Literal(false), deletedAt: DateTime })
        })
      )
      .addError(errors(ApiError.NotFound))
      .annotate(
        OpenApi.Description,
        "As DELETE /api/v1/webhooks/:id: pending deliveries end as `webhook_deleted`. Every plan: a webhook registered on the Consultant plan stays deletable after a downgrade. Another account's, an unknown or an already deleted webhook is 404."
      )
  )
  .add(
    HttpApiEndpoint.post("retryDelivery", "/webhooks/deliveries/:deliveryId/retry")
      .annotate(OpenApi.Summary, "Retry a failed delivery once, now")
      .setPath(Schema.Struct({ deliveryId: Schema.UUID }))
      .addSuccess(Schema.Struct({ data: DeliverySummary }), { status: 202 })
      .addError(errors(ApiError.NotFound, ApiError.DeliveryNotRetryable, ApiError.PlanUpgradeRequired))
      .annotate(
        OpenApi.Description,
        "Consultant plan only; others get 403 PLAN_UPGRADE_REQUIRED. Spec 6.3.5: the delivery becomes pending and one more attempt is made at once, with the same delivery id and body; its outcome is recorded as for any attempt. Only a `failed` delivery can be retried (else 409 DELIVERY_NOT_RETRYABLE); another account's or an unknown delivery is 404."
      )
  )
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/settings")
  .annotate(
    OpenApi.Description,
    "Registering a webhook and retrying a delivery need the Consultant plan; listing and deleting work on every plan."
  )
  .annotate(OpenApi.Title, "Account: webhook dashboard") {}
