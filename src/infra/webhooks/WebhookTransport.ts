import { Context, Data, type Effect } from "effect"

/** One POST of a delivery attempt: the receiver's URL, the headers of spec 6.1 and the raw body. */
export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** The receiver answered (any status: the caller decides that only a 2xx is a success). */
export interface WebhookResponse {
  readonly status: number
}

/**
 * The attempt got no HTTP answer: `timeout` (30 s), `refused` (connection refused or reset),
 * `tls` (certificate or handshake), `forbidden_address` (the host resolves to a private or other
 * special-purpose address and private networks are not allowed), `invalid_url` (not https, or
 * unparseable), `network` (DNS failure and anything else below HTTP).
 */
export class WebhookSendFailed extends Data.TaggedError("WebhookSendFailed")<{
  readonly reason: "timeout" | "refused" | "tls" | "forbidden_address" | "invalid_url" | "network"
  readonly message: string
}> {}

/** Sends one attempt. Redirects are not followed: a 3xx is returned as the response it is. */
export class WebhookTransport extends Context.Tag("WebhookTransport")<
  WebhookTransport,
  { readonly send: (request: WebhookRequest) => Effect.Effect<WebhookResponse, WebhookSendFailed> }
>() {}
