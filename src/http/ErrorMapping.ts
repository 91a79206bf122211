import { HttpApiBuilder, HttpMethod, HttpServerError, HttpServerRequest, Multipart } from "@effect/platform"
import { Cause, Chunk, Effect, Option, Predicate } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import { isDatabaseUnavailable } from "../infra/db/Unavailable.js"
import { Api } from "./Api.js"

type MappedError =
  | ApiError.ValidationError
  | ApiError.UnsupportedMediaType
  | ApiError.NotFound
  | ApiError.InternalError
  | ApiError.ServiceUnavailable

/**
 * JSON bodies may nest at most this deep. Ours need three levels; a body nested a few thousand
 * levels deep made the decoder's error report (which formats the offending value recursively)
 * overflow the stack, a 500.
 */
export const MAX_JSON_DEPTH = 64

/** Whether `text` opens more than `max` arrays/objects at once (brackets inside strings do not count). */
const jsonNestingExceeds = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      // A backslash escapes the next character; a quote ends the string.
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

/**
 * A JSON body's content type: `application/json` itself (the platform's payload reader takes any type
 * that merely contains it, `application/json-patch+json` too), with a charset, if named, of UTF-8,
 * the only encoding JSON is exchanged in (RFC 8259) and the only one the platform decodes.
 */
const isJsonType = (contentType: string) => {
  const [mediaType, ...parameters] = contentType.toLowerCase().split(";")
  if (mediaType!.trim() !== "application/json") return false
  return parameters.every((parameter) => {
    const [name, value = ""] = parameter.split("=")
    return name!.trim() !== "charset" || /^"?utf-8"?$/.test(value.trim())
  })
}

/** Whether the request announces body bytes: a length above 0, or a chunked (or otherwise encoded) body. */
const announcesBody = (headers: Readonly<Record<string, string | undefined>>) =>
  (headers["content-length"] !== undefined && headers["content-length"] !== "0") ||
  headers["transfer-encoding"] !== undefined

const notJson = new ApiError.UnsupportedMediaType({
  message: "The request body must be JSON in UTF-8: send it with `Content-Type: application/json`"
})

/**
 * Checks a request's body before any decoding. A body of another media type is refused (415): spec
 * 1, rule 4 makes request bodies JSON, and the platform would read a form's or multipart body's fields
 * as the payload. A JSON body nested deeper than MAX_JSON_DEPTH is refused (400); it is read once and
 * cached, so the payload decoder parses this same text, and a body that cannot be read is left to it
 * (answered as unreadable below). A body without a content type is JSON to the platform too.
 */
const checkBody = Effect.flatMap(
  HttpServerRequest.HttpServerRequest,
  (request): Effect.Effect<void, ApiError.UnsupportedMediaType | ApiError.ValidationError> => {
    if (!HttpMethod.hasBody(request.method)) return Effect.void
    const contentType = request.headers["content-type"]
    if (contentType !== undefined && !isJsonType(contentType)) {
      return announcesBody(request.headers) ? Effect.fail(notJson) : Effect.void
    }
    return Effect.flatMap(Effect.option(request.text), (text) => {
      if (Option.isNone(text) || !jsonNestingExceeds(text.value, MAX_JSON_DEPTH)) return Effect.void
      const message = `The request body is nested more than ${MAX_JSON_DEPTH} levels deep`
      return Effect.fail(new ApiError.ValidationError({ message, details: [{ path: "", message }] }))
    })
  }
)

/**
 * The platform reads request bodies with `orDie`, so a body it cannot read arrives here as a defect:
 * JSON that does not parse (RequestError), a multipart body that does not parse (MultipartError; its
 * InternalError reason is a file-system failure, ours), and a multipart content type whose boundary
 * the parser refuses, which multipasta reports as an `error` event emitted before any listener is
 * attached (Node's ERR_UNHANDLED_ERROR carrying `{_tag: "InvalidBoundary"}`). The message for each.
 */
const unreadableBody = (defect: unknown): string | undefined => {
  if (HttpServerError.isServerError(defect) && defect._tag === "RequestError") {
    return "The request body is not readable as JSON"
  }
  const multipartParse =
    (Predicate.hasProperty(defect, Multipart.ErrorTypeId) &&
      (defect as Multipart.MultipartError).reason !== "InternalError") ||
    (defect instanceof Error &&
      (defect as { code?: unknown }).code === "ERR_UNHANDLED_ERROR" &&
      Predicate.isTagged((defect as { context?: unknown }).context, "InvalidBoundary"))
  return multipartParse ? "The request body is not readable as multipart/form-data" : undefined
}

/**
 * Runs inside the API's error encoder, so whatever it fails with leaves in the uniform body:
 * an unknown route becomes a JSON 404, an unreadable or too deeply nested request body a 400, a
 * database that cannot be reached (a restart, a failover) a 503 SERVICE_UNAVAILABLE that the client
 * may retry, and any other defect is logged and answered with a plain 500 body. Typed failures pass through
 * untouched for the schema encoder.
 */
export const ErrorMappingLive = HttpApiBuilder.middleware(Api, (app) =>
  Effect.catchAllCause(
    Effect.zipRight(checkBody, app),
    (cause: Cause.Cause<unknown>): Effect.Effect<never, MappedError, HttpServerRequest.HttpServerRequest> => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const error = failure.value
        if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
          return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
            Effect.fail(
              new ApiError.NotFound({ message: `No route for ${request.method} ${request.url.split("?")[0]}` })
            )
          )
        }
        // Typed failures are the API's declared errors: hand them to the encoder unchanged.
        return Effect.failCause(cause as Cause.Cause<never>)
      }
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const defect = Cause.squash(cause)
      const unreadable = unreadableBody(defect)
      if (unreadable !== undefined) {
        return Effect.fail(new ApiError.ValidationError({ message: unreadable }))
      }
      if (Cause.defects(cause).pipe(Chunk.some(isDatabaseUnavailable))) {
        return Effect.logWarning("PostgreSQL unavailable while serving a request: 503", defect).pipe(
          Effect.zipRight(
            Effect.fail(
              new ApiError.ServiceUnavailable({ message: "The database is unavailable; retry in a few seconds" })
            )
          )
        )
      }
      return Effect.logError("Unhandled defect while serving a request", cause).pipe(
        Effect.zipRight(Effect.fail(new ApiError.InternalError({ message: "Internal server error" })))
      )
    }
  )
)
