import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ParseResult, Schema } from "effect"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { DateTime } from "../../domain/Timestamps.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { isCalendarDate, QueryInteger, StrictBody } from "../Inputs.js"

export const Alert = Schema.Struct({
  id: Schema.UUID,
  tenderId: Schema.UUID,
  tenderTitle: Schema.String,
  score: Schema.Int,
  verdict: Verdict,
  watchlistId: Schema.UUID,
  watchlistName: Schema.String,
  companyId: Schema.UUID.annotations({ description: "Extension: the company the alert is for" }),
  companyName: Schema.String.annotations({ description: "Extension: that company's name" }),
  read: Schema.Boolean,
  createdAt: DateTime
})

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i

/**
 * Reads an ISO 8601 date or date-time as an instant: a bare date is midnight UTC, a date-time
 * without an offset is UTC (never the server's zone). An unencoded `+` of an offset arrives as a
 * space in a query string; it is read as the `+` it was. A day that does not exist is refused.
 */
export const parseIsoInstant = (input: string): Date | undefined => {
  const text = input
    .trim()
    .replace(/^(\d{4}-\d{2}-\d{2})[ t]/i, "$1T")
    .replace(/ (\d{2}:?\d{2})$/, "+$1")
  // Date would roll 2026-02-30 over into March: the day itself must exist (and not be in year 0000).
  if (!ISO_8601.test(text) || !isCalendarDate(text.slice(0, 10))) return undefined
  const withZone = /T/i.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? `${text}Z` : text
  const instant = new Date(withZone)
  return Number.isNaN(instant.getTime()) ? undefined : instant
}

/** ISO 8601 date or date-time in, Date out (see parseIsoInstant). */
export const IsoInstant = Schema.transformOrFail(Schema.String, Schema.DateFromSelf, {
  strict: true,
  decode: (text, _options, ast) => {
    const instant = parseIsoInstant(text)
    return instant === undefined
      ? ParseResult.fail(
          new ParseResult.Type(ast, text, "must be an existing ISO 8601 date or date-time, year 0001-9999")
        )
      : ParseResult.succeed(instant)
  },
  encode: (date) => ParseResult.succeed(date.toISOString())
}).annotations({
  jsonSchema: {
    anyOf: [
      { type: "string", format: "date-time" },
      { type: "string", format: "date" }
    ],
    description: "ISO 8601 date or date-time; a bare date is midnight UTC, a date-time without an offset is UTC"
  }
})

/** Page size when `limit` is absent. */
export const ALERTS_DEFAULT_LIMIT = 20

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** `true` / `false` in the query, a boolean for the handler; a boolean parameter in the document. */
const QueryBoolean = Schema.BooleanFromString.annotations({ jsonSchema: { type: "boolean" } })

export const AlertsQuery = Schema.Struct({
  unread: optional(QueryBoolean),
  watchlistId: optional(Schema.UUID),
  verdict: optional(Verdict),
  dateFrom: optional(IsoInstant),
  page: optional(QueryInteger({ minimum: 1, maximum: 1_000_000, default: 1, plainMessages: true })),
  limit: optional(QueryInteger({ minimum: 1, maximum: 100, default: ALERTS_DEFAULT_LIMIT, plainMessages: true }))
})

export const AlertsPage = Schema.Struct({
  data: Schema.Array(Alert),
  meta: Schema.Struct({ page: Schema.Int, limit: Schema.Int, total: Schema.Int, totalPages: Schema.Int })
})

/** Alerts of the account (spec 2.10, 4.8), under /api/v1/alerts. */
export class AlertsApi extends HttpApiGroup.make("alerts")
  .add(
    HttpApiEndpoint.get("list", "/")
      .annotate(OpenApi.Summary, "Alerts of the account, newest first, by page")
      .setUrlParams(AlertsQuery)
      .addSuccess(AlertsPage)
      .annotate(
        OpenApi.Description,
        "Newest first: createdAt desc; alerts raised at the same instant (one scoring pass) by score desc, then id desc. createdAt is when the alert was raised. unread=true: unread only; unread=false: read only. dateFrom: strictly after. page >= 1 (default 1), limit 1-100 (default 20); out of range is 400. An unknown watchlistId is 404."
      )
  )
  // Declared before `/:id`; the id is also a UUID, so `mark-all-read` can never be taken for one.
  .add(
    HttpApiEndpoint.patch("markAllRead", "/mark-all-read")
      .annotate(OpenApi.Summary, "Mark every alert of the account read")
      .annotate(
        OpenApi.Description,
        "Takes no body (or {}): a body naming fields (a filter such as watchlistId) is 400 VALIDATION_ERROR naming them, nothing marked."
      )
      .addSuccess(Schema.Struct({ data: Schema.Struct({ updated: Schema.Int }) }))
  )
  .add(
    HttpApiEndpoint.patch("setRead", "/:id")
      .annotate(OpenApi.Summary, "Mark one alert read or unread")
      .setPath(Schema.Struct({ id: Schema.UUID }))
      .setPayload(StrictBody(Schema.Struct({ read: Schema.Boolean })))
      .addSuccess(Schema.Struct({ data: Alert }))
  )
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/alerts")
  .annotate(
    OpenApi.Description,
    "A newly imported tender that passes a watchlist's filters and scores at least its `minScore` raises an alert, once per watchlist and tender."
  )
  .annotate(OpenApi.Title, "Account: alerts") {}
