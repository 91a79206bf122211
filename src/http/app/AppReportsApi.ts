import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { REPORT_CREDIT_COST } from "../../domain/reports/ReportJob.js"
import { DateString, DateTime } from "../../domain/Timestamps.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { StrictBody } from "../Inputs.js"
import { CreateReport, IdempotencyKeyHeaders, ReportStatus, withReplayedHeader } from "../reports/ReportsApi.js"
import { errors } from "../WireErrors.js"

/** A report job as the settings screen lists it. */
export const AppReport = Schema.Struct({
  id: Schema.UUID,
  companyId: Schema.UUID,
  companyName: Schema.String,
  status: ReportStatus,
  dateFrom: DateString,
  dateTo: DateString,
  minScore: Schema.Int,
  watchlistId: Schema.NullOr(Schema.UUID),
  createdAt: DateTime,
  completedAt: Schema.NullOr(DateTime)
})

const JobPath = Schema.Struct({ jobId: Schema.UUID })

/**
 * PDF reports from the browser app (access token, Consultant plan), under /api/v1/app: the same
 * jobs, credits and download links as the key API's /api/v1/reports (spec 4.3), so the settings
 * screen needs no API key.
 */
export class AppReportsApi extends HttpApiGroup.make("appReports")
  .add(
    HttpApiEndpoint.get("list", "/reports")
      .annotate(OpenApi.Summary, "The account's latest report jobs (50), newest first")
      .addSuccess(Schema.Struct({ data: Schema.Array(AppReport) }))
  )
  .add(
    HttpApiEndpoint.post("create", "/companies/:companyId/reports")
      .annotate(OpenApi.Transform, withReplayedHeader)
      .annotate(OpenApi.Summary, "Request a PDF report of a company's scored tenders")
      .setPath(Schema.Struct({ companyId: Schema.UUID }))
      .setPayload(StrictBody(CreateReport))
      .setHeaders(IdempotencyKeyHeaders)
      .addSuccess(Schema.Struct({ data: AppReport }), { status: 202 })
      .addError(errors(ApiError.ApiCreditsExhausted, ApiError.IdempotencyKeyReused, ApiError.RateLimitExceeded))
      .annotate(
        OpenApi.Description,
        `The body of POST /api/v1/reports/:companyId/pdf (date_from, date_to, min_score, watchlist_id). ${REPORT_CREDIT_COST} credits, held now and charged when the job completes (402 API_CREDITS_EXHAUSTED when fewer remain); shares the key API's report limit (10 per hour per tenant, 429). Another account's company is 404. Idempotency-Key as on the key API's creation (the same keys: per tenant); a repeat answers the job as it is now.`
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/reports/:jobId")
      .annotate(OpenApi.Summary, "One report job and its status")
      .setPath(JobPath)
      .addSuccess(Schema.Struct({ data: AppReport }))
  )
  .add(
    HttpApiEndpoint.post("downloadUrl", "/reports/:jobId/download-url")
      .annotate(OpenApi.Summary, "A fresh download URL for a completed report")
      .setPath(JobPath)
      .addSuccess(Schema.Struct({ data: Schema.Struct({ downloadUrl: Schema.String, expiresAt: DateTime }) }))
      .addError(errors(ApiError.ReportNotReady))
      .annotate(
        OpenApi.Description,
        "As GET /api/v1/reports/jobs/:jobId/download: a URL with a 64-character token, valid 15 minutes and for 3 downloads; 409 REPORT_NOT_READY before the job is completed. A POST, since each call issues a new token. Answered with `Cache-Control: no-store`."
      )
  )
  .addError(errors(ApiError.PlanUpgradeRequired, ApiError.NotFound))
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/app")
  .annotate(OpenApi.Description, "Consultant plan only (reports cost credits); others get 403 PLAN_UPGRADE_REQUIRED.")
  .annotate(OpenApi.Title, "Account: PDF reports") {}
