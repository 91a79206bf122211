import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import { decorateResponse } from "./ResponseDecorations.js"

const refusal = new ApiError.MethodNotAllowed({
  message: "HEAD is not served here: a GET of this resource is charged, counted or issues a token; send GET"
})

/**
 * The router answers HEAD with the GET's handler (RFC 9110: HEAD is GET without the body). Where the
 * GET charges credits per item delivered (spec 8.2) or uses up one of a download token's three
 * downloads (spec 4.3), a HEAD would pay for content it never receives; where it issues a download
 * token (spec 4.3's download URL), a HEAD would store a token whose URL it never receives. Such a handler starts with
 * this: a HEAD is answered 405 METHOD_NOT_ALLOWED with `Allow: GET` before any work, so nothing is
 * charged or counted. Every other GET route answers HEAD as the platform does.
 */
export const refuseHead: Effect.Effect<void, ApiError.MethodNotAllowed, HttpServerRequest.HttpServerRequest> =
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.method === "HEAD"
      ? Effect.zipRight(
          decorateResponse((response) => HttpServerResponse.setHeader(response, "allow", "GET")),
          Effect.fail(refusal)
        )
      : Effect.void
  )
