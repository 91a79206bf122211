import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import type { RateLimitHit } from "../domain/Errors.js"

/**
 * The 429 answer of every rate limit (key API, login): RATE_LIMIT_EXCEEDED with `retry_after_seconds`
 * and the same seconds in `Retry-After`, set through a pre-response handler so the error response
 * carries it.
 */
export const tooManyRequests = (hit: RateLimitHit, message: string) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(hit.retryAfterSeconds)))
  ).pipe(
    Effect.zipRight(
      Effect.fail(new ApiError.RateLimitExceeded({ message, retry_after_seconds: hit.retryAfterSeconds }))
    )
  )
