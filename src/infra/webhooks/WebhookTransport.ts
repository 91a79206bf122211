import { Context, Data, type Effect } from "effect"

/** One POST of a delivery attempt: the receiver's URL, the headers of spec 6.1 and the raw body. */
export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /**
   * Runs the request's write once its connection is open (TLS done), just before its first byte:
   * true once written, or false without writing (the request is then withdrawn, unsent, as
   * `cancelled`). The dispatcher checks there that the delivery's webhook was not deleted.
   */
  readonly guardWrite?: <E>(write: Effect.Effect<void, E>) => Effect.Effect<boolean, E>
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
 * unparseable), `network` (DNS failure and anything else below HTTP), `cancelled` (`guardWrite`
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
