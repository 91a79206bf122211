import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import type { Plan } from "../domain/Plan.js"
import { errors } from "./WireErrors.js"

/** Who reads the workspace: a logged-in user (access token) or an integrator (API key). */
export interface WorkspaceReaderShape {
  readonly tenantId: string
  readonly plan: Plan
  readonly via: "accessToken" | "apiKey"
}

export class WorkspaceReader extends Context.Tag("WorkspaceReader")<WorkspaceReader, WorkspaceReaderShape>() {}

/**
 * Definition only (the browser app imports it through `Api`); the check is WorkspaceReaderAuthLive.ts.
 *
 * The read-only account endpoints an integrator needs to start from the key alone (which companies
 * may I ask scores for?) take either credential on the same `Authorization: Bearer` header: a value
 * starting `svc_` is checked as an API key (401 API_KEY_INVALID / API_KEY_REVOKED, 403
 * PLAN_UPGRADE_REQUIRED, the `general` rate limit, 0 credits with the credit headers), anything else
 * as an access token (401 ACCESS_TOKEN_INVALID / ACCESS_TOKEN_EXPIRED / SESSION_REVOKED). No header
 * at all is 401 ACCESS_TOKEN_MISSING, as on the other account endpoints.
 */
export class WorkspaceReaderAuth extends HttpApiMiddleware.Tag<WorkspaceReaderAuth>()("WorkspaceReaderAuth", {
  failure: errors(
    ApiError.AccessTokenMissing,
    ApiError.AccessTokenInvalid,
    ApiError.AccessTokenExpired,
    ApiError.SessionRevoked,
    // Not answered in practice (a `svc_` bearer is never empty), but the shared key check declares it.
    ApiError.ApiKeyMissing,
    ApiError.ApiKeyInvalid,
    ApiError.ApiKeyRevoked,
    ApiError.PlanUpgradeRequired,
    ApiError.RateLimitExceeded
  ),
  provides: WorkspaceReader,
  security: {
    accessTokenOrApiKey: HttpApiSecurity.annotate(
      HttpApiSecurity.bearer,
      OpenApi.Description,
      "An access token from POST /api/v1/auth/login, or an API key `svc_…` (read-only here, 0 credits, the general rate limit). A key answers 401 API_KEY_INVALID / API_KEY_REVOKED or 403 PLAN_UPGRADE_REQUIRED; a token 401 ACCESS_TOKEN_MISSING / ACCESS_TOKEN_INVALID / ACCESS_TOKEN_EXPIRED / SESSION_REVOKED."
    )
  }
}) {}
