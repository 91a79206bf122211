import { HttpApiSchema } from "@effect/platform"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { Schema } from "effect"

/**
 * The API's error vocabulary. Every error leaves the server in one shape,
 * `{statusCode, code, message}` plus optional `details` (and the extra fields of 402 and 429).
 * Handlers fail with these classes; `wireError` declares how each is encoded, so the OpenAPI
 * document and the responses agree.
 */

export const ErrorDetail = Schema.Struct({ path: Schema.String, message: Schema.String })

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", {
  code: Schema.String,
  message: Schema.String,
  details: Schema.optionalWith(Schema.Array(ErrorDetail), { exact: true })
}) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  code: Schema.String,
  message: Schema.String
}) {}

export class CreditsExhausted extends Schema.TaggedError<CreditsExhausted>()("CreditsExhausted", {
  message: Schema.String,
  credits_remaining: Schema.Int,
  credits_required: Schema.Int,
  period_ends_at: Schema.String
}) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  code: Schema.String,
  message: Schema.String
}) {}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {}

export class Gone extends Schema.TaggedError<Gone>()("Gone", { code: Schema.String, message: Schema.String }) {}

export class Unprocessable extends Schema.TaggedError<Unprocessable>()("Unprocessable", {
  code: Schema.String,
  message: Schema.String
}) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retry_after_seconds: Schema.Int
}) {}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  message: Schema.String,
  details: Schema.optionalWith(Schema.Array(ErrorDetail), { exact: true })
}) {}

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {
  message: Schema.String
}) {}

type AnyErrorClass = Schema.Schema<any, any, never> & { readonly fields: Schema.Struct.Fields; new (args: any): any }

/**
 * Declares the wire form of an error class: its fields without `_tag`, plus `statusCode` and,
 * for classes with one fixed code, `code`.
 */
export const wireError = <C extends AnyErrorClass>(
  errorClass: C,
  options: { readonly status: number; readonly code?: string; readonly description?: string }
): Schema.Schema<InstanceType<C>, unknown> => {
  const { _tag, ...fields } = errorClass.fields
  const fixed = options.code === undefined ? {} : { code: Schema.Literal(options.code) }
  const wire: Schema.Schema<any, any> = (Schema.Struct as any)({
    statusCode: Schema.Literal(options.status),
    ...fixed,
    ...fields
  })
  return Schema.transform(wire, Schema.typeSchema(errorClass) as Schema.Schema<any>, {
    strict: false,
    decode: ({ statusCode: _status, code: _code, ...rest }: any) =>
      new errorClass(options.code === undefined ? { code: _code, ...rest } : rest),
    // Error instances keep `message` non-enumerable, so copy the declared fields one by one.
    encode: (error: any) => {
      const wireFields: Record<string, unknown> = { statusCode: options.status }
      if (options.code !== undefined) wireFields.code = options.code
      for (const key of Object.keys(fields)) if (error[key] !== undefined) wireFields[key] = error[key]
      return wireFields
    }
  }).annotations(
    HttpApiSchema.annotations({
      status: options.status,
      ...(options.description === undefined ? {} : { description: options.description })
    })
  ) as any
}

export const BadRequestWire = wireError(BadRequest, { status: 400, description: "Invalid request" })
export const UnauthorizedWire = wireError(Unauthorized, { status: 401, description: "Missing or invalid credentials" })
export const CreditsExhaustedWire = wireError(CreditsExhausted, {
  status: 402,
  code: "API_CREDITS_EXHAUSTED",
  description: "The credit balance is below the cost of the operation"
})
export const ForbiddenWire = wireError(Forbidden, { status: 403, description: "Not allowed for this caller" })
export const NotFoundWire = wireError(NotFound, { status: 404, code: "NOT_FOUND", description: "No such resource" })
export const GoneWire = wireError(Gone, { status: 410, description: "No longer available" })
export const UnprocessableWire = wireError(Unprocessable, { status: 422, description: "A limit would be exceeded" })
export const RateLimitedWire = wireError(RateLimited, {
  status: 429,
  code: "RATE_LIMIT_EXCEEDED",
  description: "Rate limit exceeded; see Retry-After"
})
export const ServiceUnavailableWire = wireError(ServiceUnavailable, {
  status: 503,
  code: "SERVICE_UNAVAILABLE",
  description: "A dependency is unreachable"
})
export const InternalErrorWire = wireError(InternalError, {
  status: 500,
  code: "INTERNAL_ERROR",
  description: "Unexpected server error"
})

/** Schema decode failures of paths, queries, headers and bodies, in the uniform shape. */
export const DecodeErrorWire: Schema.Schema<HttpApiDecodeError, any> = Schema.transform(
  Schema.Struct({
    statusCode: Schema.Literal(400),
    code: Schema.Literal("VALIDATION_ERROR"),
    message: Schema.String,
    details: Schema.Array(ErrorDetail)
  }),
  Schema.typeSchema(HttpApiDecodeError),
  {
    strict: false,
    decode: ({ message, details }) =>
      new HttpApiDecodeError({
        message,
        issues: details.map((d) => ({
          _tag: "Type" as const,
          path: d.path.split(".").filter(Boolean),
          message: d.message
        }))
      }),
    encode: (error) => ({
      statusCode: 400 as const,
      code: "VALIDATION_ERROR" as const,
      message: `Invalid request: ${error.issues.map(describeIssue).join("; ")}`,
      details: error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }))
    })
  }
).annotations(HttpApiSchema.annotations({ status: 400, description: "The request did not match the schema" }))

const describeIssue = (issue: HttpApiDecodeError["issues"][number]) =>
  issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message
