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
  408: "The request did not arrive in time",
  409: "Not allowed in the resource's current state",
  410: "Gone: the link expired or was used up",
  413: "The request body is larger than the server accepts",
  414: "The URL is longer than the server accepts",
  422: "A limit would be exceeded",
  429: "Rate limit exceeded; see Retry-After",
  431: "The request headers are larger than the server accepts",
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
      details: error.issues.map((issue) => ({ path: issue.path.join("."), message: issueMessage(issue) }))
    })
  }
).annotations(
  HttpApiSchema.annotations({ status: ValidationError.status, description: "The request did not match the schema" })
)

type Issue = HttpApiDecodeError["issues"][number]

/**
 * Schema names an object it expected by its whole type (`Expected { readonly email: { string |
 * filter } & maxLength(320); … }, actual []`): the caller is told an object was expected, in JSON's
 * words, not the payload schema's internals.
 */
const issueMessage = (issue: Issue) => {
  const message = issue.message.replace(/^Expected \{ .* \}, actual /s, "Expected a JSON object, actual ")
  return holdsCredential(issue, message) ? message.replace(QUOTED_VALUE, "") : shortenQuotes(message)
}

/**
 * The body fields that hold a credential: a password (login), a refresh token (refresh), a
 * webhook's signing secret. A refusal of one, or of a value that holds one (a login body sent inside
 * an array), says what was expected and never quotes the value, not even its first characters:
 * error bodies are kept by proxies, gateways and clients' logs.
 */
const CREDENTIAL_FIELDS = ["password", "refreshToken", "secret"]

/** Schema's quotation of the rejected value, at the end of its messages (`…, actual "…"`). */
const QUOTED_VALUE = /, actual [\s\S]*$/

const holdsCredential = (issue: Issue, message: string) => {
  const quoted = QUOTED_VALUE.exec(message)?.[0] ?? ""
  return CREDENTIAL_FIELDS.some((field) => issue.path.includes(field) || quoted.includes(`"${field}":`))
}

const describeIssue = (issue: Issue) =>
  issue.path.length > 0 ? `${issue.path.join(".")}: ${issueMessage(issue)}` : issueMessage(issue)

/** How much of a rejected value an error quotes: enough to recognise it, never the value itself. */
export const MAX_QUOTED_CHARACTERS = 64

/** The most characters of one issue's message, a backstop for values Schema prints unquoted (arrays, objects). */
const MAX_ISSUE_MESSAGE_CHARACTERS = 500

/** A JSON string literal as Schema prints a rejected value (`actual "…"`), escapes included. */
const QUOTED = /"(?:[^"\\]|\\.)*"/g

/**
 * Schema's messages quote the rejected value whole (`Expected a string at most 320 character(s) long,
 * actual "…"`): a 5 MB field came back twice in its 400. Quotes keep their first
 * MAX_QUOTED_CHARACTERS characters and an ellipsis; the message is cut at MAX_ISSUE_MESSAGE_CHARACTERS.
 */
export const shortenQuotes = (message: string): string => {
  const quoted = message.replace(QUOTED, (literal) =>
    // A cut escape (a trailing backslash) would swallow the closing quote: drop it.
    literal.length - 2 > MAX_QUOTED_CHARACTERS
      ? `${literal.slice(0, MAX_QUOTED_CHARACTERS + 1).replace(/\\+$/, "")}…"`
      : literal
  )
  return quoted.length > MAX_ISSUE_MESSAGE_CHARACTERS ? `${quoted.slice(0, MAX_ISSUE_MESSAGE_CHARACTERS)}…` : quoted
}
