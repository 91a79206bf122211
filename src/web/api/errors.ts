import { ParseResult } from "effect"
import { t } from "../strings.js"

/**
 * A failed API call as the app shows it: one readable Romanian sentence, plus the API's code and,
 * for a 429, the seconds to wait. Every failure the client can produce (a declared API error, a
 * validation error, no connection, an unreadable answer) becomes one of these: no blank screens.
 */
export class AppError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly retryAfterSeconds?: number
  ) {
    super(message)
  }
}

/** Codes that mean the session is over (the app then shows the login form). */
export const SESSION_ENDED_CODES = new Set([
  "ACCESS_TOKEN_MISSING",
  "ACCESS_TOKEN_INVALID",
  "SESSION_REVOKED",
  "REFRESH_TOKEN_INVALID",
  "REFRESH_TOKEN_EXPIRED",
  "REFRESH_TOKEN_REUSED"
])

interface Issue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined

const invalidInput = (issues: ReadonlyArray<Issue>) => {
  const fields = issues.map((issue) => t.errors.field(issue.path.map(String).join("."), issue.message))
  return new AppError([t.errors.invalidInput, ...fields].join(" "), "VALIDATION_ERROR")
}

/** Turns whatever an API call failed with into an AppError. */
export const toAppError = (failure: unknown): AppError => {
  if (failure instanceof AppError) return failure
  const error = record(failure)
  const tag = typeof error?._tag === "string" ? error._tag : undefined
  if (tag === "RATE_LIMIT_EXCEEDED") {
    const seconds = Number(error?.retry_after_seconds ?? 1)
    return new AppError(t.errors.rateLimited(seconds), tag, seconds)
  }
  if (tag !== undefined && tag in t.errors.byCode) return new AppError(t.errors.byCode[tag]!, tag)
  if (tag === "HttpApiDecodeError") {
    // A 400 VALIDATION_ERROR: name each field the server refused.
    return invalidInput((error?.issues as ReadonlyArray<Issue> | undefined) ?? [])
  }
  // A value the typed client refused to send (an amount typed wrong, an id that is not one): told as
  // the server's 400 would tell it, naming the field.
  if (ParseResult.isParseError(failure)) return invalidInput(ParseResult.ArrayFormatter.formatErrorSync(failure))
  if (tag === "RequestError") return new AppError(t.errors.network, "NETWORK")
  if (tag === "ResponseError") {
    const status = Number(record(error?.response)?.status ?? 0)
    if (status === 404) return new AppError(t.errors.notFound, "NOT_FOUND")
    return new AppError(status >= 500 ? t.errors.server : t.errors.unexpected, `HTTP_${status}`)
  }
  // A code this app has no sentence for: the server's own message is better than nothing.
  if (tag !== undefined && /^[A-Z_]+$/.test(tag) && typeof error?.message === "string")
    return new AppError(error.message, tag)
  return new AppError(t.errors.unexpected, undefined)
}
