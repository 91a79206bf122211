import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { CreditsExhaustedWire } from "../ApiErrors.js"
import { ApiKeyAuthExport } from "../ApiKeyAuth.js"
import { isCalendarDate } from "../Inputs.js"
import { CpvCode, CreditsBlock, UtcTimestamp } from "../tenders/TendersApi.js"

const Percent = Schema.Int.pipe(Schema.between(0, 100))

/** Spec 2.4. The three beta fields are always null for now. */
export const ExportRowWire = Schema.Struct({
  tender_id: Schema.UUID,
  title: Schema.String,
  cpv_codes: Schema.Array(CpvCode),
  cpv_description: Schema.Null,
  contracting_authority: Schema.String,
  authority_county: Schema.NullOr(Schema.String),
  deadline: Schema.NullOr(UtcTimestamp),
  estimated_value_ron: Schema.NullOr(Schema.Number),
  estimated_value_eur: Schema.NullOr(Schema.Number),
  publish_date: UtcTimestamp,
  overall_score: Percent,
  verdict: Verdict,
  score_cpv: Schema.NullOr(Percent),
  score_semantic: Schema.NullOr(Percent),
  score_keyword: Schema.NullOr(Percent),
  score_value_fit: Schema.NullOr(Percent),
  score_historical: Schema.NullOr(Percent),
  price_benchmark_signal: Schema.Null,
  price_benchmark_median_eur: Schema.Null,
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
    message: () => "Expected an existing calendar date YYYY-MM-DD, year 0001-9999"
  })
)

/** `limit` has no upper bound here: over 1000 is the spec's own 400 LIMIT_EXCEEDED, checked by the handler. */
export const ExportQuery = Schema.Struct({
  companyId: Schema.UUID,
  from: CalendarDate,
  to: CalendarDate,
  format: Schema.optionalWith(Schema.Literal("json", "csv"), { exact: true }),
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1)), {
    exact: true
  }),
  cursor: Schema.optionalWith(Schema.String, { exact: true })
})

export class ExportApi extends HttpApiGroup.make("export")
  .add(
    HttpApiEndpoint.get("tenders", "/export/tenders")
      .setUrlParams(ExportQuery)
      .addSuccess(ExportJson)
      .addError(CreditsExhaustedWire)
      .annotate(OpenApi.Summary, "Bulk export of scored tenders, JSON or CSV")
      .annotate(
        OpenApi.Description,
        "Tenders published between `from` and `to` (dates in Europe/Bucharest, both inclusive; at most 90 days apart), oldest first. `format=csv` answers `text/csv; charset=utf-8` (UTF-8 with BOM, header row, RFC 4180 quoting, arrays joined with `;`, nulls empty) as an attachment `svc-export-<date>.csv`, with the page state in headers `X-Next-Cursor` (absent on the last page), `X-Has-More`, `X-Export-Count`, `X-Exported-At`. Cost: 1 credit per row; a page the balance cannot fully pay is cut to what it pays for (402 when it pays for nothing). Every response to a valid key carries `X-API-Credits-Cost` and `X-API-Credits-Remaining`."
      )
  )
  .middleware(ApiKeyAuthExport)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Export") {}
