import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { DateTimeString } from "../../domain/Timestamps.js"
import { ApiKeyAuth } from "../ApiKeyAuth.js"
import { QueryInteger } from "../Inputs.js"
import { errors } from "../WireErrors.js"
import { ReasonLanguageHeaders } from "./ReasonLanguage.js"

/** ISO 8601 UTC timestamp as the API writes it, e.g. `2026-03-01T09:30:00.000Z`. */
const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const UtcTimestamp = Schema.String.pipe(
  Schema.pattern(UTC_TIMESTAMP),
  Schema.annotations({
    description: "ISO 8601 UTC timestamp",
    jsonSchema: { type: "string", format: "date-time", pattern: UTC_TIMESTAMP.source }
  })
)

export const CpvCode = Schema.String.pipe(Schema.pattern(/^\d{8}-\d$/))

/** Spec 2.8. */
export const CreditsBlock = Schema.Struct({
  cost: Schema.Int,
  remaining: Schema.Int,
  period_ends_at: DateTimeString.annotations({ description: "ISO 8601 with the Europe/Bucharest offset" })
})

/** Spec 2.1. Unknown deadlines and values are null. */
export const TenderListItem = Schema.Struct({
  tender_id: Schema.UUID,
  title: Schema.String,
  score: Schema.Int.pipe(Schema.between(0, 100)),
  verdict: Verdict,
  cpv_codes: Schema.Array(CpvCode),
  contracting_authority: Schema.String,
  deadline: Schema.NullOr(UtcTimestamp),
  estimated_value_ron: Schema.NullOr(Schema.Number),
  estimated_value_eur: Schema.NullOr(Schema.Number),
  publish_date: UtcTimestamp,
  source_url: Schema.String
})

/** Spec 2.2. `next_cursor` is null on the last page. */
export const TenderList = Schema.Struct({
  data: Schema.Array(TenderListItem),
  meta: Schema.Struct({
    total: Schema.Int,
    limit: Schema.Int,
    next_cursor: Schema.NullOr(Schema.String),
    has_more: Schema.Boolean,
    credits: CreditsBlock
  })
})

const Fraction = Schema.Number.pipe(Schema.between(0, 1))

const Factor = Schema.Struct({
  score: Fraction,
  weight: Fraction,
  contribution: Schema.Number,
  // Our addition to spec 2.3: one short sentence naming the evidence behind the factor.
  reason: Schema.String.annotations({
    description: 'One sentence naming the evidence, e.g. "keywords found: asfaltare, drum județean"'
  })
})

/** Spec 2.3, under `data`, with `meta.credits`. */
export const TenderScore = Schema.Struct({
  data: Schema.Struct({
    tender_id: Schema.UUID,
    overall_score: Schema.Int.pipe(Schema.between(0, 100)),
    overall_confidence: Fraction,
    verdict: Verdict,
    factors: Schema.Struct({
      semantic: Factor,
      keyword: Factor,
      cpv: Schema.Struct({ ...Factor.fields, cpv_type: Schema.String }),
      value_fit: Factor,
      historical: Factor
    }),
    scoring_model_version: Schema.String,
    scored_at: UtcTimestamp
  }),
  meta: Schema.Struct({ credits: CreditsBlock })
})

/**
 * `status` of the list and the export (our addition to spec 2.2 and 2.4). Absent is `all`: the spec
 * lists every scored tender, and a narrower default would silently change totals and costs.
 */
export const ListStatusParam = Schema.Literal("open", "closed", "all").annotations({
  description:
    "`open`: the deadline is strictly after the time of the request (page 1's, for later pages), or unknown, and the procedure is not cancelled; `closed`: every other tender (deadline at or before that time, or cancelled); `all` (the default): both."
})

/** Page size of the list when `limit` is absent. */
export const LIST_DEFAULT_LIMIT = 20

export const ListQuery = Schema.Struct({
  companyId: Schema.UUID,
  minScore: Schema.optionalWith(
    QueryInteger({ minimum: 0, maximum: 100, default: 0, description: "Only tenders scoring at least this" }),
    { exact: true }
  ),
  status: Schema.optionalWith(ListStatusParam, { exact: true }),
  limit: Schema.optionalWith(
    QueryInteger({ minimum: 1, maximum: 100, default: LIST_DEFAULT_LIMIT, description: "Items per page" }),
    { exact: true }
  ),
  cursor: Schema.optionalWith(Schema.String, { exact: true })
})

const creditHeaders = "Every response to a valid key carries `X-API-Credits-Cost` and `X-API-Credits-Remaining`."

export class TendersApi extends HttpApiGroup.make("tenders")
  .add(
    HttpApiEndpoint.get("list", "/tenders")
      .setUrlParams(ListQuery)
      .addSuccess(TenderList)
      .addError(
        errors(
          ApiError.InvalidCursor,
          ApiError.CompanyAccessDenied,
          ApiError.ApiCreditsExhausted,
          ApiError.MethodNotAllowed
        )
      )
      .annotate(OpenApi.Summary, "Scored tenders of a company, best first")
      .annotate(
        OpenApi.Description,
        `Ordered by score (desc), publish date (desc), tender id. Cursor pagination: pass meta.next_cursor as \`cursor\` with the same companyId, minScore and status; pages reflect the tenders known when page 1 was read. Cost: 1 credit per item; a page the balance cannot fully pay is cut to what it pays for (402 when it pays for nothing). ${creditHeaders}`
      )
  )
  .add(
    HttpApiEndpoint.get("score", "/tenders/:id/score")
      .setPath(Schema.Struct({ id: Schema.UUID }))
      .setUrlParams(Schema.Struct({ companyId: Schema.UUID }))
      .setHeaders(ReasonLanguageHeaders)
      .addSuccess(TenderScore)
      .addError(errors(ApiError.CompanyAccessDenied, ApiError.ApiCreditsExhausted, ApiError.MethodNotAllowed))
      .annotate(OpenApi.Summary, "Score breakdown of one tender for a company")
      .annotate(
        OpenApi.Description,
        `Cost: 2 credits; a 404 costs nothing. Each factor's \`reason\` is in English unless \`Accept-Language\` prefers Romanian (\`ro\`, \`ro-RO\`, by q-value over \`en\`); the answer names its language in \`Content-Language\` and carries \`Vary: Accept-Language\`. ${creditHeaders}`
      )
  )
  .middleware(ApiKeyAuth)
  .prefix("/api/v1")
  .annotate(
    OpenApi.Description,
    "Scored tenders of the caller's companies, for the key API (`Authorization: Bearer <API_KEY>`, Consultant plan). Costs credits; rate limit: 60 requests per minute per tenant by default."
  )
  .annotate(OpenApi.Title, "Tenders") {}
