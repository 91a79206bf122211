import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { planRules } from "../../domain/Plan.js"
import type { WebhookEvent } from "../../domain/webhooks/Registration.js"
import { ReceiverHostCheckLive } from "../../infra/webhooks/ReceiverHostCheck.js"
import { SecretBox, SecretBoxLive } from "../../infra/webhooks/SecretBox.js"
import { type DeliverySummary, WebhooksRepo } from "../../infra/webhooks/WebhooksRepo.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"
import { refuseUnreachableReceiver } from "./WebhooksHttp.js"

/** The tenant of the access token, if its plan has the key API and so webhooks (Consultant). */
const consultantTenant = Effect.flatMap(CurrentAccount, (account) =>
  planRules[account.plan].apiAccess
    ? Effect.succeed(account.tenantId)
    : Effect.fail(new ApiError.PlanUpgradeRequired({ message: "Webhooks are part of the Consultant plan" }))
)

/**
 * The tenant of the access token on any plan: a tenant below Consultant must still see and delete
 * the webhooks it registered before a downgrade (deleting one is a security action). Registering
 * one and retrying a delivery (which sends) need the plan.
 */
const anyPlanTenant = Effect.map(CurrentAccount, (account) => account.tenantId)

/** The statuses the delivery table's CHECK admits. */
const toWire = (delivery: DeliverySummary) => ({
  ...delivery,
  status: delivery.status as "pending" | "delivering" | "succeeded" | "failed" | "webhook_deleted"
})

export const WebhookDashboardHttpLive = HttpApiBuilder.group(Api, "webhookDashboard", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* WebhooksRepo
    const box = yield* SecretBox
    return handlers
      .handle("listWebhooks", () =>
        anyPlanTenant.pipe(
          Effect.flatMap(repo.dashboard),
          Effect.map((webhooks) => ({
            data: webhooks.map((webhook) => ({
              id: webhook.id,
              url: webhook.url,
              events: webhook.events as ReadonlyArray<WebhookEvent>,
              active: webhook.active,
              createdAt: webhook.createdAt,
              deliveries: webhook.deliveries.map(toWire)
            }))
          }))
        )
      )
      .handle("listDeliveries", ({ path, urlParams }) =>
        anyPlanTenant.pipe(
          Effect.flatMap((tenantId) =>
            repo.deliveries({ tenantId, webhookId: path.id.toLowerCase(), before: urlParams.before?.toLowerCase() })
          ),
          Effect.map((page) => ({ data: page.deliveries.map(toWire), meta: { hasMore: page.hasMore } })),
          Effect.catchTags({
            WebhookNotFound: () => Effect.fail(new ApiError.NotFound({ message: "No such webhook" })),
            DeliveryNotFound: () =>
              Effect.fail(new ApiError.NotFound({ message: "No such delivery of this webhook; reload the dashboard" }))
          })
        )
      )
      .handle("createWebhook", ({ payload }) =>
        consultantTenant.pipe(
          Effect.tap(() => refuseUnreachableReceiver(payload.url)),
          Effect.flatMap((tenantId) =>
            repo.create({
              tenantId,
              url: payload.url,
              events: payload.events,
              // Sealed here, so the plaintext goes no further than this request.
              secretCiphertext: box.seal(payload.secret)
            })
          ),
          Effect.map((webhook) => ({
            data: {
              id: webhook.id,
              url: webhook.url,
              events: webhook.events as ReadonlyArray<WebhookEvent>,
              active: webhook.active,
              createdAt: webhook.createdAt,
              deliveries: []
            }
          })),
          Effect.catchTags({
            WebhookLimitExceeded: (error) =>
              Effect.fail(
                new ApiError.WebhookLimitExceeded({
                  message: `At most ${error.limit} webhooks may be active; delete one first`
                })
              ),
            TenantNotFound: () => Effect.die("the tenant of a live session vanished")
          })
        )
      )
      .handle("deleteWebhook", ({ path }) =>
        anyPlanTenant.pipe(
          Effect.flatMap((tenantId) => repo.remove({ tenantId, id: path.id.toLowerCase() })),
          Effect.map((webhook) => ({
            data: { id: webhook.id, active: false as const, deletedAt: webhook.deletedAt ?? new Date(0) }
          })),
          Effect.catchTag("WebhookNotFound", () => Effect.fail(new ApiError.NotFound({ message: "No such webhook" })))
        )
      )
      .handle("retryDelivery", ({ path }) =>
        consultantTenant.pipe(
          Effect.flatMap((tenantId) => repo.retryDelivery({ tenantId, deliveryId: path.deliveryId.toLowerCase() })),
          Effect.map((delivery) => ({ data: toWire(delivery) })),
          Effect.catchTags({
            DeliveryNotFound: () => Effect.fail(new ApiError.NotFound({ message: "No such delivery" })),
            DeliveryNotRetryable: (error) =>
              Effect.fail(
                new ApiError.DeliveryNotRetryable({
                  message:
                    error.status === "webhook deleted"
                      ? "The webhook of this delivery has been deleted"
                      : `Only a failed delivery can be retried; this one is ${error.status}`
                })
              )
          })
        )
      )
  })
).pipe(Layer.provide([AccessTokenAuthLive, SecretBoxLive, ReceiverHostCheckLive]))
