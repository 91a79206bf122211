import { Context, Data, type Effect } from "effect"

/** One POST of a delivery attempt: the receiver's URL, the headers of spec 6.1 and the raw body. */
export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /**
   * Whether the request may still go: asked just before its first byte when its connection was slow
   * to open (the webhook may have been deleted since the claim); false withdraws it unsent, as
   * `cancelled`.
   */
  readonly stillDeliverable?: Effect.Effect<boolean>
}

/**
 * The receiver answered (any status: the caller decides that only a 2xx is a success). The status
 * line decides: the body is read for a few seconds at most and never turns an answer into a failure.
 */
export interface WebhookResponse {
  readonly status: number
}

/**
 * The attempt got no HTTP answer: `timeout` (30 s, the request is then destroyed), `refused`
 * (connection refused, reset or host unreachable), `tls` (certificate or handshake),
 * `forbidden_address` (the host is, or resolves to, a private or other special-purpose address and
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS is off; nothing was connected to), `invalid_url` (not https, or
 * unparseable), `network` (DNS failure and anything else below HTTP), `cancelled` (`stillDeliverable`
 * withdrew it: nothing was sent). The message never holds
 * request headers (the signature) or the body.
 */
export class WebhookSendFailed extends Data.TaggedError("WebhookSendFailed")<{
  readonly reason: "timeout" | "refused" | "tls" | "forbidden_address" | "invalid_url" | "network" | "cancelled"
  readonly message: string
}> {}

/**
 * Sends one attempt. Redirects are not followed: a 3xx is returned as the response it is.
 * Implemented by `HttpsWebhookTransport.ts` (WebhookTransportLive).
 */
export class WebhookTransport extends Context.Tag("WebhookTransport")<
  WebhookTransport,
  { readonly send: (request: WebhookRequest) => Effect.Effect<WebhookResponse, WebhookSendFailed> }
>() {}
