import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { DateTime } from "../../domain/Timestamps.js"
import { ROMANIAN_COUNTIES } from "../../domain/tenders/Counties.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { CalendarDate } from "../export/ExportApi.js"
import { NonEmptyText, QueryInteger } from "../Inputs.js"
import { CpvCode } from "../tenders/TendersApi.js"
import { errors } from "../WireErrors.js"

/** A scored tender as the browser app lists it (camelCase, as the rest of the account API). */
export const AppTenderItem = Schema.Struct({
  id: Schema.UUID,
  title: Schema.String,
  score: Schema.Int.pipe(Schema.between(0, 100)),
  verdict: Verdict,
  cpvCodes: Schema.Array(Schema.String).annotations({ description: "Main CPV code first, `NNNNNNNN-D`" }),
  authority: Schema.String.annotations({ description: "Name of the contracting authority" }),
  authorityCounty: Schema.NullOr(Schema.String),
  deadline: Schema.NullOr(DateTime),
  estimatedValueRon: Schema.NullOr(Schema.Number),
  estimatedValueEur: Schema.NullOr(Schema.Number),
  publishDate: DateTime,
  sourceUrl: Schema.String.annotations({ description: "URL of the original notice" })
})

export const AppTenderList = Schema.Struct({
  data: Schema.Array(AppTenderItem),
  meta: Schema.Struct({
    total: Schema.Int,
    limit: Schema.Int,
    nextCursor: Schema.NullOr(Schema.String),
    hasMore: Schema.Boolean
  })
})

/** Whether a tender can still be bid on: deadline in the future (or unknown) vs. past; `all` is both. */
export const TenderStatus = Schema.Literal("open", "closed", "all")

/** The orders of the app's list: best score first, nearest deadline first, largest value first. */
export const TenderSort = Schema.Literal("score", "deadline", "value")
export type TenderSort = typeof TenderSort.Type

export const County = Schema.Literal(...(ROMANIAN_COUNTIES as [string, ...Array<string>]))

/** Page size when `limit` is absent. */
export const APP_TENDERS_DEFAULT_LIMIT = 20

export const AppTenderListQuery = Schema.Struct({
  minScore: Schema.optionalWith(
    QueryInteger({
      minimum: 0,
      maximum: 100,
      default: 0,
      plainMessages: true,
      description: "Only tenders scoring at least this"
    }),
    { exact: true }
  ),
  status: Schema.optionalWith(
    TenderStatus.annotations({
      description:
        "`open`: deadline after now (exact timestamp) or unknown, and not cancelled; `closed`: the rest; `all` or absent: both."
    }),
    { exact: true }
  ),
  q: Schema.optionalWith(
    NonEmptyText(200).annotations({
      description: "Every word in the title or the contracting authority's name (diacritics and case ignored)"
    }),
    { exact: true }
  ),
  county: Schema.optionalWith(
    County.annotations({ description: "The contracting authority's county (diacritics and case ignored)" }),
    { exact: true }
  ),
  cpv: Schema.optionalWith(
    CpvCode.annotations({
      description:
        "`NNNNNNNN-D`: tenders whose main or an additional CPV code lies under it (same leading digits, trailing zeros of the code ignored)"
    }),
    { exact: true }
  ),
  deadlineFrom: Schema.optionalWith(
    CalendarDate.annotations({ description: "Deadline on or after this day (Europe/Bucharest)" }),
    { exact: true }
  ),
  deadlineTo: Schema.optionalWith(
    CalendarDate.annotations({ description: "Deadline on or before this day (Europe/Bucharest), inclusive" }),
    { exact: true }
  ),
  sort: Schema.optionalWith(
    TenderSort.annotations({
      description:
        "`score` (default): score desc, publish date desc; `deadline`: nearest first, none last; `value`: estimated value in RON desc, unknown last. Ties by tender id."
    }),
    { exact: true }
  ),
  limit: Schema.optionalWith(
    QueryInteger({
      minimum: 1,
      maximum: 100,
      default: APP_TENDERS_DEFAULT_LIMIT,
      plainMessages: true,
      description: "Items per page"
    }),
    { exact: true }
  ),
  cursor: Schema.optionalWith(Schema.String, { exact: true })
})

/** One factor of the breakdown. `reason` says in words why it scored so (once the model gives one). */
export const AppFactor = Schema.Struct({
  score: Schema.Number.annotations({ description: "Fraction 0-1" }),
  weight: Schema.Number.annotations({ description: "Fraction 0-1" }),
  contribution: Schema.Number.annotations({ description: "Points contributed to the overall score" }),
  reason: Schema.optionalWith(Schema.String, { exact: true })
})

export const AppTenderDetail = Schema.Struct({
  ...AppTenderItem.fields,
  description: Schema.String,
  cpv: Schema.Array(Schema.Struct({ code: Schema.String, labelRo: Schema.String, labelEn: Schema.String })).annotations(
    { description: "The tender's CPV codes with their labels, main code first" }
  ),
  breakdown: Schema.Struct({
    overallConfidence: Schema.Number.annotations({ description: "Fraction 0-1" }),
    factors: Schema.Struct({
      semantic: AppFactor,
      keyword: AppFactor,
      cpv: Schema.Struct({ ...AppFactor.fields, cpvType: Schema.Literal("primary", "additional", "none") }),
      valueFit: AppFactor,
      historical: AppFactor
    }),
    modelVersion: Schema.String,
    scoredAt: DateTime
  })
})

const CompanyPath = Schema.Struct({ companyId: Schema.UUID })

/**
 * A company's scored tenders for the browser app (access token), under /api/v1/app. The same scores
 * as the key API, without credits: credits apply to the key-authenticated API (spec 1, 8.2).
 */
export class AppTendersApi extends HttpApiGroup.make("appTenders")
  .add(
    HttpApiEndpoint.get("list", "/companies/:companyId/tenders")
      .annotate(OpenApi.Summary, "A company's scored tenders for the app, best first (no credits)")
      .setPath(CompanyPath)
      .setUrlParams(AppTenderListQuery)
      .addSuccess(AppTenderList)
      .addError(errors(ApiError.InvalidCursor))
      .annotate(
        OpenApi.Description,
        "Ordered by score (desc), publish date (desc), tender id. Other orders with `sort`. Cursor pagination: pass `meta.nextCursor` as `cursor` with the same filters and sort. A deadline window with `deadlineTo` before `deadlineFrom` is 400. Costs no credits. Another account's company, like an unknown one, is 404."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/companies/:companyId/tenders/:tenderId")
      .annotate(OpenApi.Summary, "One scored tender with its factor breakdown (no credits)")
      .setPath(Schema.Struct({ companyId: Schema.UUID, tenderId: Schema.UUID }))
      .addSuccess(Schema.Struct({ data: AppTenderDetail }))
      .annotate(
        OpenApi.Description,
        "The tender, its CPV labels and the five factors (score, weight, contribution, reason). 404 when the company is not the account's or the tender is not scored for it."
      )
  )
  .addError(errors(ApiError.NotFound))
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/app")
  .annotate(OpenApi.Description, "Read by the browser app with an access token; every plan; no credits.")
  .annotate(OpenApi.Title, "Account: scored tenders") {}
