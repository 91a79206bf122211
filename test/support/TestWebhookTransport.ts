import * as https from "node:https"
import { Effect, Layer } from "effect"
import { WebhookSendFailed, WebhookTransport } from "../../src/infra/webhooks/WebhookTransport.js"

/**
 * A real HTTPS POST (node:https) that trusts the given receivers' certificates, follows no
 * redirect and times out at 30 s; no address checks. It talks to the real receiver: it stands in
 * for the production transport (with its SSRF protection) in the delivery tests only.
 * `cas` is read at each request, so a test may add receivers after the layer is built.
 */
export const TestWebhookTransport = (cas: Array<string>) =>
  Layer.succeed(WebhookTransport, {
    send: ({ url, headers, body }) =>
      Effect.async<{ status: number }, WebhookSendFailed>((resume) => {
        const request = https.request(
          url,
          { method: "POST", headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) }, ca: cas },
          (response) => {
            response.resume()
            response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0 })))
            response.on("error", (e) =>
              resume(Effect.fail(new WebhookSendFailed({ reason: "network", message: e.message })))
            )
          }
        )
        request.setTimeout(30_000, () =>
          request.destroy(Object.assign(new Error("timed out after 30 s"), { code: "ETIMEDOUT" }))
        )
        request.on("error", (e: NodeJS.ErrnoException) => {
          const code = e.code ?? ""
          const reason =
            code === "ETIMEDOUT"
              ? "timeout"
              : code === "ECONNREFUSED" || code === "ECONNRESET"
                ? "refused"
                : /CERT|SSL|TLS/.test(code)
                  ? "tls"
                  : "network"
          resume(Effect.fail(new WebhookSendFailed({ reason, message: e.message })))
        })
        request.end(body)
        return Effect.sync(() => request.destroy())
      })
  })
