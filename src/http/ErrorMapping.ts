import { HttpApiBuilder, HttpServerError, HttpServerRequest } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { Api } from "./Api.js"
import { BadRequest, InternalError, NotFound } from "./ApiErrors.js"

type MappedError = BadRequest | NotFound | InternalError

/**
 * Runs inside the API's error encoder, so whatever it fails with leaves in the uniform body:
 * an unknown route becomes a JSON 404, an unreadable request body (which the platform raises as a
 * defect) a 400, and any other defect is logged and answered with a plain 500 body. Typed failures
 * pass through untouched for the schema encoder.
 */
export const ErrorMappingLive = HttpApiBuilder.middleware(Api, (app) =>
  Effect.catchAllCause(
    app,
    (cause: Cause.Cause<unknown>): Effect.Effect<never, MappedError, HttpServerRequest.HttpServerRequest> => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const error = failure.value
        if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
          return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
            Effect.fail(new NotFound({ message: `No route for ${request.method} ${request.url.split("?")[0]}` }))
          )
        }
        // Typed failures are the API's declared errors: hand them to the encoder unchanged.
        return Effect.failCause(cause as Cause.Cause<never>)
      }
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const defect = Cause.squash(cause)
      if (HttpServerError.isServerError(defect) && defect._tag === "RequestError") {
        return Effect.fail(
          new BadRequest({ code: "VALIDATION_ERROR", message: "The request body is not readable as JSON" })
        )
      }
      return Effect.logError("Unhandled defect while serving a request", cause).pipe(
        Effect.zipRight(Effect.fail(new InternalError({ message: "Internal server error" })))
      )
    }
  )
)
