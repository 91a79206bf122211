import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { ApiKeyAuthExport } from "../ApiKeyAuth.js"
import { isCalendarDate, QueryInteger } from "../Inputs.js"
import { CpvCode, CreditsBlock, ListStatusParam, UtcTimestamp } from "../tenders/TendersApi.js"
import { errors } from "../WireErrors.js"

const Percent = Schema.Int.pipe(Schema.between(0, 100))

/**
 * The three beta fields of spec 2.4: always null for now (README), typed as the spec gives them, so a
 * client generated from the document, or the browser's, keeps decoding rows once they are filled in
 * (spec 9.3).
 */
const BetaCpvDescription = Schema.NullOr(Schema.String).annotations({
  description: "The CPV description in Romanian; null during the current beta phase"
})
const BetaPriceSignal = Schema.NullOr(Schema.Literal("below_market", "in_range", "above_market")).annotations({
  description: "Always null during the current beta phase"
})
const BetaPriceMedian = Schema.NullOr(Schema.Number).annotations({
  description: "Null when unavailable or during the current beta phase"
})

/** Spec 2.4. */
export const ExportRowWire = Schema.Struct({
  tender_id: Schema.UUID,
  title: Schema.String,
  cpv_codes: Schema.Array(CpvCode),
  cpv_description: BetaCpvDescription,
  contracting_authority: Schema.String,
  authority_county: Schema.NullOr(Schema.String),
  deadline: Schema.NullOr(UtcTimestamp),
  estimated_value_ron: Schema.NullOr(Schema.Number),
  estimated_value_eur: Schema.NullOr(Schema.Number),
  publish_date: UtcTimestamp,
  overall_score: Percent,
  verdict: Verdict,
  score_cpv: Percent,
  score_semantic: Percent,
  score_keyword: Percent,
  score_value_fit: Percent,
  score_historical: Percent,
  price_benchmark_signal: BetaPriceSignal,
  price_benchmark_median_eur: BetaPriceMedian,
  source_url: Schema.String
})

/** The CSV header row: every field of 2.4, in the order of the spec. */
export const EXPORT_COLUMNS = Object.keys(ExportRowWire.fields) as ReadonlyArray<keyof typeof ExportRowWire.fields>

export const ExportJson = Schema.Struct({
  data: Schema.Array(ExportRowWire),
  meta: Schema.Struct({
    count: Schema.Int,
    next_cursor: Schema.NullOr(Schema.String),
    has_more: Schema.Boolean,
    exported_at: UtcTimestamp,
    credits: CreditsBlock
  })
})

/** A calendar date `YYYY-MM-DD` that exists, in years 0001-9999 (what PostgreSQL can represent). */
export const CalendarDate = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/),
  Schema.filter(isCalendarDate, {
    message: () => "Expected an existing calendar date YYYY-MM-DD, year 0001-9999",
    jsonSchema: { format: "date", description: "A day YYYY-MM-DD, in Europe/Bucharest" }
  })
)

/** Rows per page when `limit` is absent, and the most a page may ask for. */
export const EXPORT_DEFAULT_LIMIT = 100
export const EXPORT_MAX_LIMIT = 1000

/** `limit` over 1000 is the spec's own 400 LIMIT_EXCEEDED, checked by the handler, not at decoding. */
export const ExportQuery = Schema.Struct({
  companyId: Schema.UUID,
  from: CalendarDate,
  to: CalendarDate,
  format: Schema.optionalWith(Schema.Literal("json", "csv"), { exact: true }),
  status: Schema.optionalWith(ListStatusParam, { exact: true }),
  limit: Schema.optionalWith(
    QueryInteger({
      minimum: 1,
      maximum: EXPORT_MAX_LIMIT,
      default: EXPORT_DEFAULT_LIMIT,
      maximumCheckedByHandler: true,
      description: `Rows per page; over ${EXPORT_MAX_LIMIT} is 400 LIMIT_EXCEEDED`
    }),
    { exact: true }
  ),
  cursor: Schema.optionalWith(Schema.String, { exact: true })
})

/** A response header in the OpenAPI document. */
const header = (description: string, schema: Record<string, unknown>) => ({ description, schema })

/**
 * Adds the `format=csv` answer to the endpoint's 200 response. The handler streams it as a raw
 * response, which the generator cannot see (one status has one media type there), so it is declared
 * here: the `text/csv` media type beside the JSON one, and the headers that carry the page state.
 */
const withCsvAnswer = (operation: Record<string, any>): Record<string, any> => {
  const ok = operation.responses["200"]
  const csvOnly = "Only with `format=csv`"
  return {
    ...operation,
    responses: {
      ...operation.responses,
      200: {
        ...ok,
        description: "JSON by default; with `format=csv`, the same page as a CSV attachment, its state in headers",
        content: {
          ...ok.content,
          "text/csv": {
            schema: {
              type: "string",
              description: `UTF-8 with BOM, CRLF line ends, RFC 4180 quoting; a header row \`${EXPORT_COLUMNS.join(",")}\`, then one row per tender; \`cpv_codes\` joined with \`;\`, nulls empty.`
            }
          }
        },
        headers: {
          ...ok.headers,
          "Content-Disposition": header(
            `${csvOnly}: \`attachment; filename="svc-export-<YYYY-MM-DD>.csv"\`, the day of the export in Europe/Bucharest.`,
            { type: "string" }
          ),
          "X-Next-Cursor": header(`${csvOnly}: the \`cursor\` of the next page; absent on the last page.`, {
            type: "string"
          }),
          "X-Has-More": header(`${csvOnly}: whether another page follows.`, { type: "boolean" }),
          "X-Export-Count": header(`${csvOnly}: rows in this page.`, { type: "integer", minimum: 0 }),
          "X-Exported-At": header(`${csvOnly}: when the page was read, ISO 8601 UTC.`, {
            type: "string",
            format: "date-time"
          })
        }
      }
    }
  }
}

export class ExportApi extends HttpApiGroup.make("export")
  .add(
    HttpApiEndpoint.get("tenders", "/export/tenders")
      .annotate(OpenApi.Transform, withCsvAnswer)
      .setUrlParams(ExportQuery)
      .addSuccess(ExportJson)
      .addError(
        errors(
          ApiError.DateRangeExceeded,
          ApiError.LimitExceeded,
          ApiError.InvalidCursor,
          ApiError.CompanyAccessDenied,
          ApiError.ApiCreditsExhausted,
          ApiError.MethodNotAllowed
        )
      )
      .annotate(OpenApi.Summary, "Bulk export of scored tenders, JSON or CSV")
      .annotate(
        OpenApi.Description,
        "Tenders published between `from` and `to` (dates in Europe/Bucharest, both inclusive; at most 90 days apart), oldest first; `status` keeps only the open or the closed ones (default `all`). A cursor continues only the query (companyId, from, to, status) that issued it. `format=csv` answers `text/csv; charset=utf-8` (UTF-8 with BOM, header row, RFC 4180 quoting, arrays joined with `;`, nulls empty) as an attachment `svc-export-<date>.csv`, with the page state in headers `X-Next-Cursor` (absent on the last page), `X-Has-More`, `X-Export-Count`, `X-Exported-At`. Cost: 1 credit per row; a page the balance cannot fully pay is cut to what it pays for (402 when it pays for nothing). Every response to a valid key carries `X-API-Credits-Cost` and `X-API-Credits-Remaining`."
      )
  )
  .middleware(ApiKeyAuthExport)
  .prefix("/api/v1")
  .annotate(
    OpenApi.Description,
    "Bulk export of scored tenders for the key API (`Authorization: Bearer <API_KEY>`, Consultant plan), as JSON or CSV. Costs credits; rate limit: 20 requests per hour per tenant by default."
  )
  .annotate(OpenApi.Title, "Export") {}
