import { HttpApiMiddleware, HttpApiSecurity, HttpServerRequest, OpenApi } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import type { AccessTokenRejected } from "../domain/Errors.js"
import { type Account, AuthSessions, AuthSessionsLive } from "../infra/auth/AuthSessions.js"
import { errors } from "./WireErrors.js"

/** The account an access token speaks for; provided to every handler behind AccessTokenAuth. */
export class CurrentAccount extends Context.Tag("CurrentAccount")<CurrentAccount, Account>() {}

/**
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

const missing = new ApiError.AccessTokenMissing({
  message: "Send the access token from login as `Authorization: Bearer <ACCESS_TOKEN>`"
})

const rejection = (error: AccessTokenRejected) => {
  switch (error.reason) {
    case "expired":
      return new ApiError.AccessTokenExpired({ message: "The access token has expired; refresh it" })
    case "revoked":
      return new ApiError.SessionRevoked({ message: "The session of this access token has ended" })
    case "invalid":
      return new ApiError.AccessTokenInvalid({ message: "The access token is not valid" })
  }
}

export const AccessTokenAuthLive = Layer.effect(
  AccessTokenAuth,
  Effect.map(AuthSessions, (sessions) => ({
    // The platform slices 7 characters off any header; read it ourselves and insist on "Bearer ".
    accessToken: () =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const header = request.headers.authorization ?? ""
        if (!/^Bearer /i.test(header)) return yield* missing
        const token = header.slice("Bearer ".length).trim()
        if (token === "") return yield* missing
        if (token.startsWith("svc_"))
          return yield* new ApiError.AccessTokenInvalid({
            message: "An API key is not an access token; log in for an access token"
          })
        return yield* sessions.authenticate(token).pipe(Effect.mapError(rejection))
      })
  }))
).pipe(Layer.provide(AuthSessionsLive))
