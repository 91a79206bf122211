import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import type { Account } from "../infra/auth/AuthSessions.js"
import { errors } from "./WireErrors.js"

/** The account an access token speaks for; provided to every handler behind AccessTokenAuth. */
export class CurrentAccount extends Context.Tag("CurrentAccount")<CurrentAccount, Account>() {}

/**
 * Definition only (no server code: the browser app imports it through `Api`); the check itself is
 * AccessTokenAuthLive.ts.
 *
 * `Authorization: Bearer <ACCESS_TOKEN>` for the browser-app endpoints. Failures are 401 with:
 * ACCESS_TOKEN_MISSING (no Bearer header or an empty token), ACCESS_TOKEN_INVALID (not a token we
 * signed, including any API key `svc_…`), ACCESS_TOKEN_EXPIRED (past its 15 minutes) and
 * SESSION_REVOKED (logged out, or its refresh family was revoked for reuse).
 */
export class AccessTokenAuth extends HttpApiMiddleware.Tag<AccessTokenAuth>()("AccessTokenAuth", {
  failure: errors(
    ApiError.AccessTokenMissing,
    ApiError.AccessTokenInvalid,
    ApiError.AccessTokenExpired,
    ApiError.SessionRevoked
  ),
  provides: CurrentAccount,
  security: {
    accessToken: HttpApiSecurity.annotate(
      HttpApiSecurity.bearer,
      OpenApi.Description,
      "Access token from POST /api/v1/auth/login (15 minutes). 401 ACCESS_TOKEN_MISSING / ACCESS_TOKEN_INVALID / ACCESS_TOKEN_EXPIRED / SESSION_REVOKED. API keys are not accepted here."
    )
  }
}) {}
