import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { DOWNLOAD_TOKEN_MAX_DOWNLOADS } from "../../domain/reports/DownloadTokenRules.js"
import { isIdempotencyKey } from "../../domain/reports/IdempotencyKeyRules.js"
import { REPORT_CREDIT_COST, REPORT_STATUSES } from "../../domain/reports/ReportJob.js"
import { ApiKeyAuth, ApiKeyAuthReportCreation } from "../ApiKeyAuth.js"
import { isCalendarDate, StrictBody } from "../Inputs.js"
import { UtcTimestamp } from "../tenders/TendersApi.js"
import { errors } from "../WireErrors.js"

const ReportDate = Schema.String.pipe(
  Schema.filter(isCalendarDate, {
    message: () => "must be a date YYYY-MM-DD",
    jsonSchema: { format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" }
  })
)

/** Spec 4.3: the creation body. Dates are Europe/Bucharest calendar days, both inclusive. */
export const CreateReport = Schema.Struct({
  date_from: ReportDate.annotations({ description: "First publication day, YYYY-MM-DD (Europe/Bucharest)" }),
  date_to: ReportDate.annotations({ description: "Last publication day, YYYY-MM-DD, not before date_from" }),
  min_score: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(0, 100)).annotations({ description: "0-100, default 0" }),
    { exact: true }
  ),
  watchlist_id: Schema.optionalWith(
    Schema.NullOr(Schema.UUID).annotations({
      description: "A watchlist of this company: only the tenders it alerted on"
    }),
    { exact: true }
  )
}).pipe(
  Schema.filter((body) =>
    body.date_from <= body.date_to ? true : { path: ["date_to"], message: "must not be before date_from" }
  )
)

export const ReportStatus = Schema.Literal(...REPORT_STATUSES)

/**
 * The optional `Idempotency-Key` of a report creation (domain/reports/IdempotencyKey.ts): declared
 * as the endpoint's headers so OpenAPI shows it; a malformed key is a 400 VALIDATION_ERROR.
 */
export const IdempotencyKeyHeaders = Schema.Struct({
  "idempotency-key": Schema.optionalWith(
    Schema.String.pipe(
      Schema.filter(isIdempotencyKey, {
        message: () => "must be 1-255 printable ASCII characters",
        jsonSchema: { minLength: 1, maxLength: 255, pattern: "^[ -~]{1,255}$" }
      })
    ).annotations({
      description:
        "A key of your choosing (a UUID) that makes retrying the creation safe: the same key with the same request within 24 hours answers the job it created (same job_id, `Idempotent-Replayed: true`) and holds no more credits; the same key with another company or body is 409 IDEMPOTENCY_KEY_REUSED. Per tenant; a refused request stores no key. Sent once: the header on more than one line is 400 VALIDATION_ERROR.",
      examples: ["5f2b6c1e-8d4a-4c3e-9b7a-2e1f0d9c8b7a"]
    }),
    { exact: true }
  )
})

/**
 * Documents `Idempotent-Replayed` on a creation's 202: set by a pre-response decoration, which the
 * generator cannot see.
 */
export const withReplayedHeader = (operation: Record<string, any>): Record<string, any> => {
  const accepted = operation.responses["202"]
  return {
    ...operation,
    responses: {
      ...operation.responses,
      202: {
        ...accepted,
        headers: {
          ...accepted.headers,
          "Idempotent-Replayed": {
            description:
              "`true` when the answer repeats an earlier creation with the same Idempotency-Key (nothing new created or held); absent otherwise.",
            required: false,
            schema: { type: "string", enum: ["true"] }
          }
        }
      }
    }
  }
}

const JobId = Schema.Struct({ jobId: Schema.UUID })

const general = "Counts against the general rate limit (60 per minute per tenant); costs 0 credits."

/** PDF reports (spec 4.3): creation (report rate limit), job status and download URL (general), the download (no key). */
export class ReportsApi extends HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.post("create", "/reports/:companyId/pdf")
      .annotate(OpenApi.Transform, withReplayedHeader)
      .setPath(Schema.Struct({ companyId: Schema.UUID }))
      .setPayload(StrictBody(CreateReport))
      .setHeaders(IdempotencyKeyHeaders)
      .addSuccess(
        Schema.Struct({
          job_id: Schema.UUID,
          status: Schema.Literal("generating"),
          estimated_seconds: Schema.Int
        }),
        { status: 202 }
      )
      .addError(
        errors(
          ApiError.CompanyAccessDenied,
          ApiError.ApiCreditsExhausted,
          ApiError.IdempotencyKeyReused,
          ApiError.RateLimitExceeded
        )
      )
      .middleware(ApiKeyAuthReportCreation)
      .annotate(OpenApi.Summary, "Request a branded PDF report of a company's scored tenders")
      .annotate(
        OpenApi.Description,
        `Queues the report; poll the job status (every 5 s). ${REPORT_CREDIT_COST} credits, charged when the job reaches completed: they are held on the balance at creation (X-API-Credits-Remaining already excludes them) and released if the job fails. 402 API_CREDITS_EXHAUSTED when fewer than ${REPORT_CREDIT_COST} remain; 400 VALIDATION_ERROR for a bad body (date_from after date_to, or a watchlist_id that is not this company's); 429 over the report limit (10 creations per hour per tenant; a refused body or company does not count); not counted against the general limit. With an Idempotency-Key, a repeat of the same request within 24 hours answers the first job's 202 again (as it was first answered), counts and holds nothing; the key used for another request is 409 IDEMPOTENCY_KEY_REUSED.`
      )
  )
  .add(
    HttpApiEndpoint.get("status", "/reports/jobs/:jobId/status")
      .setPath(JobId)
      .addSuccess(Schema.Struct({ job_id: Schema.UUID, status: ReportStatus }))
      .addError(errors(ApiError.NotFound))
      .middleware(ApiKeyAuth)
      .annotate(OpenApi.Summary, "Status of a report job")
      .annotate(
        OpenApi.Description,
        `generating (from its acceptance, while a worker renders it), pending (waiting for a retry after a failed attempt), completed, failed (after 3 attempts: send a new request). Another tenant's job is 404. ${general}`
      )
  )
  .add(
    HttpApiEndpoint.get("downloadUrl", "/reports/jobs/:jobId/download")
      .setPath(JobId)
      .addSuccess(Schema.Struct({ download_url: Schema.String, expires_at: UtcTimestamp }))
      .addError(errors(ApiError.NotFound, ApiError.ReportNotReady, ApiError.MethodNotAllowed))
      .middleware(ApiKeyAuth)
      .annotate(OpenApi.Summary, "A download URL for a completed report")
      .annotate(
        OpenApi.Description,
        `Each call issues a fresh URL carrying a 64-character token, valid 15 minutes and for ${DOWNLOAD_TOKEN_MAX_DOWNLOADS} downloads. 409 REPORT_NOT_READY (with the job's status) until the job is completed. ${general}`
      )
  )
  .add(
    HttpApiEndpoint.get("download", "/reports/download/:token")
      .setPath(Schema.Struct({ token: Schema.String }))
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/pdf" }))
      .addError(errors(ApiError.DownloadTokenExpired, ApiError.MethodNotAllowed))
      .annotate(OpenApi.Summary, "Download a report PDF (no authentication: the token is the credential)")
      .annotate(
        OpenApi.Description,
        `The PDF, as an attachment. 410 DOWNLOAD_TOKEN_EXPIRED once the token is 15 minutes old, after its ${DOWNLOAD_TOKEN_MAX_DOWNLOADS} downloads, or for an unknown token.`
      )
  )
  .prefix("/api/v1")
  .annotate(
    OpenApi.Description,
    "Asynchronous branded PDF reports (`Authorization: Bearer <API_KEY>`, Consultant plan), except the token download."
  )
  .annotate(OpenApi.Title, "PDF reports") {}
