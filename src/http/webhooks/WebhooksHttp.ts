import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import type { WebhookEvent } from "../../domain/webhooks/Registration.js"
import { ReceiverHostCheck, ReceiverHostCheckLive } from "../../infra/webhooks/ReceiverHostCheck.js"
import { SecretBox, SecretBoxLive } from "../../infra/webhooks/SecretBox.js"
import { type Webhook, WebhooksRepo } from "../../infra/webhooks/WebhooksRepo.js"
import { Api } from "../Api.js"
import { ApiCaller } from "../ApiKeyAuth.js"
import { ApiKeyAuthLive } from "../ApiKeyAuthLive.js"

/** The events column holds only names the create schema admitted. */
const events = (webhook: Webhook) => webhook.events as ReadonlyArray<WebhookEvent>

/**
 * 400 when no delivery could ever reach the URL's host (private, loopback, link-local, metadata,
 * ... or not resolving): refused now rather than after four failed attempts and an e-mail. Shared by
 * the key API and the app's settings, which register webhooks under the same rules.
 */
export const refuseUnreachableReceiver = (url: string) =>
  Effect.flatMap(ReceiverHostCheck, (check) => check.problemOf(url)).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.void,
        onSome: (problem) => {
          const message = `url: webhooks cannot be delivered there: ${problem}`
          return Effect.fail(new ApiError.ValidationError({ message, details: [{ path: "url", message: problem }] }))
        }
      })
    )
  )

const notFound = () => new ApiError.NotFound({ message: "No such webhook" })

export const WebhooksHttpLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* WebhooksRepo
    const box = yield* SecretBox
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const caller = yield* ApiCaller
          yield* refuseUnreachableReceiver(payload.url)
          const webhook = yield* repo.create({
            tenantId: caller.tenantId,
            url: payload.url,
            events: payload.events,
            // Sealed here, so the plaintext goes no further than this request.
            secretCiphertext: box.seal(payload.secret)
          })
          return {
            webhook_id: webhook.id,
            url: webhook.url,
            events: events(webhook),
            created_at: webhook.createdAt.toISOString()
          }
        }).pipe(
          Effect.catchTags({
            WebhookLimitExceeded: (error) =>
              Effect.fail(
                new ApiError.WebhookLimitExceeded({
                  message: `At most ${error.limit} webhooks may be active; delete one first`
                })
              ),
            TenantNotFound: () => Effect.die("the tenant of a valid API key vanished")
          })
        )
      )
      .handle("list", () =>
        Effect.gen(function* () {
          const caller = yield* ApiCaller
          const webhooks = yield* repo.listActive(caller.tenantId)
          return {
            data: webhooks.map((webhook) => ({
              webhook_id: webhook.id,
              url: webhook.url,
              events: events(webhook),
              active: webhook.active,
              created_at: webhook.createdAt.toISOString()
            }))
          }
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* ApiCaller
          const webhook = yield* repo.remove({ tenantId: caller.tenantId, id: path.id.toLowerCase() })
          return {
            webhook_id: webhook.id,
            active: false as const,
            deleted_at: (webhook.deletedAt ?? new Date(0)).toISOString()
          }
        }).pipe(Effect.catchTag("WebhookNotFound", () => Effect.fail(notFound())))
      )
  })
)

/** The group with its key authentication (general rate limit), the secret sealer and the host check. */
export const WebhooksLive = WebhooksHttpLive.pipe(Layer.provide([ApiKeyAuthLive, SecretBoxLive, ReceiverHostCheckLive]))
