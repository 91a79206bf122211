import { HttpApiSchema } from "@effect/platform"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { Schema } from "effect"
import { type ApiErrorClass, ErrorDetail, ValidationError } from "../domain/ApiErrors.js"

/**
 * How the error vocabulary of domain/ApiErrors.ts leaves the server: `{statusCode, code, message}`
 * plus the class's other fields (`details`, the extra fields of 402 and 429), never its `_tag`.
 * Endpoints declare their errors with `errors(...)`, so the OpenAPI document and the responses agree.
 */

/** The response description of each status, shared by its codes. */
const statusDescriptions: Record<number, string> = {
  400: "Invalid request",
  401: "Missing or invalid credentials",
  402: "The credit balance is below the cost of the operation",
  403: "Not allowed for this caller",
  404: "No such resource",
  409: "Not allowed in the resource's current state",
  410: "Gone: the link expired or was used up",
  422: "A limit would be exceeded",
  429: "Rate limit exceeded; see Retry-After",
  500: "Unexpected server error",
  503: "A dependency is unreachable"
}

/** One schema per class: endpoints sharing a code share its schema, which the OpenAPI document lists once. */
const wireSchemas = new WeakMap<ApiErrorClass, Schema.Schema<any, unknown>>()

/** The wire form of one error class: `{statusCode, code: <its tag>, ...its fields}`, at its status. */
export const wireError = <C extends ApiErrorClass>(errorClass: C): Schema.Schema<InstanceType<C>, unknown> => {
  const known = wireSchemas.get(errorClass)
  if (known !== undefined) return known
  const { _tag, ...fields } = errorClass.fields
  const { status, _tag: code } = errorClass
  const wire: Schema.Schema<any, any> = (Schema.Struct as any)({
    statusCode: Schema.Literal(status),
    code: Schema.Literal(code),
    ...fields
  })
  const schema = Schema.transform(wire, Schema.typeSchema(errorClass) as Schema.Schema<any>, {
    strict: false,
    decode: ({ statusCode: _status, code: _code, ...rest }: any) => new errorClass(rest),
    // Error instances keep `message` non-enumerable, so copy the declared fields one by one.
    encode: (error: any) => {
      const wireFields: Record<string, unknown> = { statusCode: status, code }
      for (const key of Object.keys(fields)) if (error[key] !== undefined) wireFields[key] = error[key]
      return wireFields
    }
  }).annotations(HttpApiSchema.annotations({ status, description: statusDescriptions[status] ?? code }))
  wireSchemas.set(errorClass, schema)
  return schema as Schema.Schema<InstanceType<C>, unknown>
}

/** The errors an endpoint, group or middleware can answer with, for `addError` or `failure`. */
export const errors = <const Classes extends ReadonlyArray<ApiErrorClass>>(
  ...classes: Classes
): Schema.Schema<InstanceType<Classes[number]>, unknown> => Schema.Union(...classes.map(wireError)) as any

/** Schema decode failures of paths, queries, headers and bodies: a VALIDATION_ERROR naming each field. */
export const DecodeErrorWire: Schema.Schema<HttpApiDecodeError, any> = Schema.transform(
  Schema.Struct({
    statusCode: Schema.Literal(ValidationError.status),
    code: Schema.Literal(ValidationError._tag),
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
      statusCode: ValidationError.status,
      code: ValidationError._tag,
      message: `Invalid request: ${error.issues.map(describeIssue).join("; ")}`,
      details: error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }))
    })
  }
).annotations(
  HttpApiSchema.annotations({ status: ValidationError.status, description: "The request did not match the schema" })
)

const describeIssue = (issue: HttpApiDecodeError["issues"][number]) =>
  issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message
