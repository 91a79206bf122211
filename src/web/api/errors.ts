import { Data, ParseResult } from "effect"
import { fieldName, t } from "../strings.js"

/**
 * A failed API call as the app shows it: one readable Romanian sentence, plus the API's code, for a
 * 429 the seconds to wait, and for a refused input the reasons of each field (keyed by the request's
 * field name, e.g. `minValue`), shown beside it. Every failure the client can produce (a declared API
 * error, a validation error, no connection, an unreadable answer) becomes one of these: no blank screens.
 */
export class AppError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly retryAfterSeconds?: number,
    readonly fields: ReadonlyMap<string, ReadonlyArray<string>> = new Map()
  ) {
    super(message)
  }

  /**
   * Whether asking again can succeed: a refusal of the plan (403 PLAN_UPGRADE_REQUIRED, spec 7) stands
   * until the plan changes, so no "retry" is offered for it.
   */
  get retryable(): boolean {
    return this.code !== "PLAN_UPGRADE_REQUIRED"
  }

  /** Why the request field `name` was refused (Romanian reasons), or undefined when it was not. */
  reasonsFor(name: string): ReadonlyArray<string> | undefined {
    return this.fields.get(name)
  }
}

/**
 * An answer the typed client could not decode into what the endpoint declares (api/client.ts): a
 * fault of the server or of something between, never of what the consultant typed.
 */
export class UnreadableAnswer extends Data.TaggedError("UnreadableAnswer") {}

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

const reason = t.errors.reason

/**
 * The server's validation reasons (its schemas' messages, English for API clients, in `details[]`)
 * as the app words them. A reason not listed gets the generic sentence: never English in the app.
 */
const reasons: ReadonlyArray<readonly [RegExp, (match: RegExpMatchArray) => string]> = [
  [/^must not be empty|is missing/, () => reason.required],
  [/at most (\d+) character/, (m) => reason.tooLong(Number(m[1]))],
  [/at least (\d+) character/, (m) => reason.tooShort(Number(m[1]))],
  [/array of at most (\d+) item|must list at most (\d+)/, (m) => reason.tooMany(Number(m[1] ?? m[2]))],
  [/NUL character/, () => reason.nul],
  [/must not contain line breaks/, () => reason.oneLine],
  [/must not be negative/, () => reason.negative],
  [/finite number|^Expected a number/, () => reason.number],
  [/below 10\^16/, () => reason.tooLarge],
  [
    /integer from (\d+) to (\d+)|^Expected (\d+)-(\d+)/,
    (m) => reason.range(Number(m[1] ?? m[3]), Number(m[2] ?? m[4]))
  ],
  [/^Expected an integer/, () => reason.integer],
  [/must not be greater than maxValue/, () => reason.minAboveMax],
  [/^unknown CPV code (\d{8}(?:-\d)?)$/, (m) => reason.unknownCpv(m[1]!)],
  [/must be a CPV code/, () => reason.cpvFormat],
  [/unknown contracting authority/, () => reason.unknownAuthority],
  [/Universally Unique Identifier/, () => reason.notAnId],
  [/41 counties/, () => reason.county],
  [/Romanian fiscal code/, () => reason.fiscalCode],
  [/https:\/\/ URL/, () => reason.https],
  [/does not resolve/, () => reason.unresolvable],
  [/ is in | resolves to /, () => reason.privateAddress],
  [/must not be before date_from/, () => reason.dateOrder],
  [/date YYYY-MM-DD/, () => reason.date],
  [/whole hour from 0 to 23/, () => reason.hour],
  [/watchlist of this company/, () => reason.notCompanyWatchlist],
  [/no active company|no such company/, () => reason.noCompany]
]

const reasonOf = (message: string) => {
  for (const [pattern, word] of reasons) {
    const match = message.match(pattern)
    if (match) return word(match)
  }
  return reason.invalid
}

/**
 * One sentence per field the app can name, its reasons in Romanian, and the same reasons by field for
 * the form to show beside each. A field refused twice says each reason once; the generic one goes
 * when there is a better (a nullable field's schema adds "Expected null" to the real reason). A field
 * the app has no label for is left to the lead sentence.
 */
const invalidInput = (issues: ReadonlyArray<Issue>) => {
  const byField = new Map<string, Array<string>>()
  for (const issue of issues) {
    // `cpvCodes.3` is the CPV codes' field.
    const field = String(issue.path[0] ?? "")
    if (fieldName(field) === undefined) continue
    const said = byField.get(field) ?? []
    const text = reasonOf(issue.message)
    if (!said.includes(text)) said.push(text)
    byField.set(field, said)
  }
  const fields = new Map(
    [...byField].map(([field, said]) => [
      field,
      said.length > 1 ? said.filter((text) => text !== reason.invalid) : said
    ])
  )
  const sentences = [...fields].map(([field, said]) => t.errors.field(fieldName(field)!, said))
  return new AppError([t.errors.invalidInput, ...sentences].join(" "), "VALIDATION_ERROR", undefined, fields)
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
  if (tag === "VALIDATION_ERROR") {
    // The same 400 as the typed client may decode it (no `details`, or the declared class): its
    // `details[].path` is dotted, and its English `message` is never shown.
    const details = (error?.details as ReadonlyArray<{ path: string; message: string }> | undefined) ?? []
    return invalidInput(details.map((d) => ({ path: d.path.split(".").filter(Boolean), message: d.message })))
  }
  // A value the typed client refused to send (an amount typed wrong, an id that is not one): told as
  // the server's 400 would tell it, naming the field. An answer it could not read never lands here
  // (api/client.ts tells it apart), so a proxy's error page is not taken for a mistake in the form.
  if (ParseResult.isParseError(failure)) return invalidInput(ParseResult.ArrayFormatter.formatErrorSync(failure))
  if (tag === "RequestError") return new AppError(t.errors.network, "NETWORK")
  if (tag === "UnreadableAnswer") return new AppError(t.errors.unexpected, tag)
  if (tag === "ResponseError") {
    const status = Number(record(error?.response)?.status ?? 0)
    if (status === 404) return new AppError(t.errors.notFound, "NOT_FOUND")
    if (status === 503) return new AppError(t.errors.byCode.SERVICE_UNAVAILABLE!, `HTTP_${status}`)
    return new AppError(status >= 500 ? t.errors.server : t.errors.unexpected, `HTTP_${status}`)
  }
  // A code this app has no sentence for (the server's message is English): said in Romanian, naming it.
  if (tag !== undefined && /^[A-Z_]+$/.test(tag)) return new AppError(t.errors.unknownCode(tag), tag)
  return new AppError(t.errors.unexpected, undefined)
}
