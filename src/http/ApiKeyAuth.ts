import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import type { Plan } from "../domain/Plan.js"
import type { CreditsReport } from "./credits/CreditsReport.js"
import { errors } from "./WireErrors.js"

/** Who is calling the key API, as established by the key; plus this request's credit report. */
export interface ApiCallerShape {
  readonly keyId: string
  readonly tenantId: string
  readonly plan: Plan
  readonly credits: CreditsReport
}

export class ApiCaller extends Context.Tag("ApiCaller")<ApiCaller, ApiCallerShape>() {}

const options = {
  failure: errors(
    ApiError.ApiKeyMissing,
    ApiError.ApiKeyInvalid,
    ApiError.ApiKeyRevoked,
    ApiError.PlanUpgradeRequired,
    ApiError.RateLimitExceeded
  ),
  provides: ApiCaller,
  security: {
    apiKey: HttpApiSecurity.annotate(
      HttpApiSecurity.bearer,
      OpenApi.Description,
      "API key `svc_` + 64 hex characters, created in the settings (Consultant plan). 401 API_KEY_MISSING / API_KEY_INVALID / API_KEY_REVOKED; 403 PLAN_UPGRADE_REQUIRED."
    )
  }
} as const

/**
 * The key API's front door, in this order: the key (401 API_KEY_MISSING / API_KEY_INVALID /
 * API_KEY_REVOKED), the plan (403 PLAN_UPGRADE_REQUIRED), then the rate limit of the group, per
 * tenant (429 RATE_LIMIT_EXCEEDED). Every request that passes the key check, even one later
 * rejected as invalid, counts against the limit. Definitions only (the browser app imports them
 * through `Api`); the checks are in ApiKeyAuthLive.ts. One tag per rate-limit group:
 */

/** Tenders, scores, webhooks, report job status and download URLs: the `general` limit (60/min). */
export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", options) {}

/**
 * PDF report creation, its own group of spec 8.1: not the `general` limit; `reportCreation` (10/h)
 * is counted by the handler once the request is valid (QueueReport.ts).
 */
export class ApiKeyAuthReportCreation extends HttpApiMiddleware.Tag<ApiKeyAuthReportCreation>()(
  "ApiKeyAuthReportCreation",
  options
) {}

/** Bulk export: the `export` limit (20/h). */
export class ApiKeyAuthExport extends HttpApiMiddleware.Tag<ApiKeyAuthExport>()("ApiKeyAuthExport", options) {}
