import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import {
  MAX_ACTIVE_WEBHOOKS,
  receiverUrlProblem,
  SECRET_MAX_CHARACTERS,
  SECRET_MIN_CHARACTERS,
  secretProblem,
  URL_MAX_LENGTH,
  WEBHOOK_EVENTS
} from "../../domain/webhooks/Registration.js"
import { TenderMatchedBody } from "../../domain/webhooks/TenderMatchedBody.js"
import { ApiKeyAuth } from "../ApiKeyAuth.js"
import { StrictBody } from "../Inputs.js"
import { UtcTimestamp } from "../tenders/TendersApi.js"
import { errors } from "../WireErrors.js"

export const WebhookEventName = Schema.Literal(...WEBHOOK_EVENTS)

const ReceiverUrl = Schema.String.pipe(
  Schema.filter((url) => receiverUrlProblem(url) ?? true, {
    jsonSchema: { format: "uri", pattern: "^https://", maxLength: URL_MAX_LENGTH }
  }),
  Schema.annotations({ description: "Absolute https:// URL that receives the POST requests" })
)

const WebhookSecret = Schema.String.pipe(
  Schema.filter((secret) => secretProblem(secret) ?? true, {
    jsonSchema: { minLength: SECRET_MIN_CHARACTERS, maxLength: SECRET_MAX_CHARACTERS }
  }),
  Schema.annotations({
    description: `HMAC-SHA256 key of the signatures, ${SECRET_MIN_CHARACTERS}-${SECRET_MAX_CHARACTERS} characters; write-only`
  })
)

const EventList = Schema.Array(WebhookEventName).pipe(
  Schema.minItems(1, { message: () => "must name at least one event" }),
  Schema.filter((events) => new Set(events).size === events.length || "must not repeat an event"),
  Schema.annotations({ description: "Events to receive: a non-empty subset of [tender.matched]" })
)

export const CreateWebhook = Schema.Struct({ url: ReceiverUrl, secret: WebhookSecret, events: EventList })

/** Spec 4.4: the creation response. */
export const CreatedWebhook = Schema.Struct({
  webhook_id: Schema.UUID,
  url: Schema.String,
  events: Schema.Array(WebhookEventName),
  created_at: UtcTimestamp
})

/** Spec 2.6, as listed. */
export const WebhookListItem = Schema.Struct({ ...CreatedWebhook.fields, active: Schema.Boolean })

/** Spec 4.4: the deletion response. */
export const DeletedWebhook = Schema.Struct({
  webhook_id: Schema.UUID,
  active: Schema.Literal(false),
  deleted_at: UtcTimestamp
})

/**
 * The deliveries a registration leads to, as an OpenAPI callback of the create operation: the POST
 * to the registered URL with the headers of spec 6.1 and the body with our two extensions.
 */
/** The body's JSON Schema, inline (its `$schema` line belongs to standalone documents only). */
const { $schema: _, ...bodySchema } = JSONSchema.make(TenderMatchedBody, { target: "openApi3.1" })

const withDeliveryCallback = (operation: Record<string, any>): Record<string, any> => ({
  ...operation,
  callbacks: {
    "tender.matched": {
      "{$request.body#/url}": {
        post: {
          summary: "tender.matched delivery (spec 6.1)",
          description:
            "Signed with X-SVC-Signature: sha256=<hex HMAC-SHA256 of `<X-SVC-Timestamp>.<raw body>`>. Extensions to spec 6.1: company_name and tender.contracting_authority.",
          parameters: ["X-SVC-Signature", "X-SVC-Event", "X-SVC-Timestamp", "X-SVC-Delivery"].map((name) => ({
            name,
            in: "header",
            required: true,
            // The signature's timestamp is Unix seconds (spec 6.2), not an ISO 8601 instant.
            schema:
              name === "X-SVC-Timestamp"
                ? { type: "string", pattern: "^\\d+$", description: "Unix time of the attempt, in seconds" }
                : { type: "string" }
          })),
          requestBody: {
            required: true,
            content: { "application/json": { schema: bodySchema } }
          },
          responses: {
            "2XX": { description: "Delivered" },
            "4XX": {
              description: "A failure, as is any answer but a 2xx: retried at +30 s, +5 min, +30 min (spec 6.3)"
            }
          }
        }
      }
    }
  }
})

const free = "Costs 0 credits; counts against the general rate limit (60 per minute per tenant)."

/** Webhook registration of the key API (spec 4.4): Consultant plan, general rate limit, 0 credits. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .setPayload(StrictBody(CreateWebhook))
      .addSuccess(CreatedWebhook, { status: 201 })
      .addError(errors(ApiError.WebhookLimitExceeded))
      .annotate(OpenApi.Summary, "Register a webhook")
      .annotate(OpenApi.Transform, withDeliveryCallback)
      .annotate(
        OpenApi.Description,
        `The secret is stored encrypted and never returned. 400 VALIDATION_ERROR (details[].path names the field) for an invalid URL, secret or event list, and for a URL whose host is, or resolves to, a loopback, private, link-local, metadata or other special-purpose address, or does not resolve (unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS); 422 WEBHOOK_LIMIT_EXCEEDED when ${MAX_ACTIVE_WEBHOOKS} webhooks are already active. ${free} Each tender.matched delivery is a POST whose body (TenderMatchedBody) has the fields of spec 6.1 plus two extensions: top-level company_name and tender.contracting_authority (the buyer's name); see the callback.`
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks")
      .addSuccess(Schema.Struct({ data: Schema.Array(WebhookListItem) }))
      .annotate(OpenApi.Summary, "Active webhooks of the tenant, oldest first")
      .annotate(OpenApi.Description, free)
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhooks/:id")
      .setPath(Schema.Struct({ id: Schema.UUID }))
      .addSuccess(DeletedWebhook)
      .addError(errors(ApiError.NotFound))
      .annotate(OpenApi.Summary, "Delete a webhook")
      .annotate(
        OpenApi.Description,
        `Takes effect at once: its pending and in-flight deliveries end with status webhook_deleted. An unknown, another tenant's or an already deleted webhook is 404. ${free}`
      )
  )
  .middleware(ApiKeyAuth)
  .prefix("/api/v1")
  .annotate(
    OpenApi.Description,
    "Webhook registration for the key API (`Authorization: Bearer <API_KEY>`, Consultant plan). Deliveries of `tender.matched` are signed with the webhook's secret (X-SVC-Signature)."
  )
  .annotate(OpenApi.Title, "Webhooks") {}
