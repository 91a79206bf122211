import { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"

const refusal = new ApiError.ValidationError({
  message: "Send the Idempotency-Key header once: this request repeats it",
  details: [{ path: "idempotency-key", message: "must be sent once" }]
})

/**
 * A report creation that sends `Idempotency-Key` on more than one header line is refused (400) before
 * any work: node joins the lines into one value ("k1, k2", or "k, k" for the same key twice), which
 * would pass for a single key of its own and create a report none of the client's keys stands for.
 * Counted on the lines as they came (node's `headersDistinct`); one line whose value holds a comma
 * is one key, as sent (keys are any printable ASCII).
 */
export const refuseRepeatedIdempotencyKey: Effect.Effect<
  void,
  ApiError.ValidationError,
  HttpServerRequest.HttpServerRequest
> = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  (NodeHttpServerRequest.toIncomingMessage(request).headersDistinct["idempotency-key"]?.length ?? 0) > 1
    ? Effect.fail(refusal)
    : Effect.void
)
