import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { PASSWORD_MAX_LENGTH } from "../../domain/Password.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { StrictBody, Text } from "../Inputs.js"
import { errors } from "../WireErrors.js"

export const TokenPair = Schema.Struct({
  data: Schema.Struct({
    accessToken: Schema.String,
    refreshToken: Schema.String,
    expiresIn: Schema.Int.annotations({ description: "Seconds the access token lives: 900" })
  })
})

export const LoginRequest = Schema.Struct({
  email: Text.pipe(Schema.maxLength(320)),
  password: Text.pipe(Schema.maxLength(PASSWORD_MAX_LENGTH))
})

export const RefreshRequest = Schema.Struct({ refreshToken: Schema.String.pipe(Schema.maxLength(200)) })

/** Login, refresh and logout of the browser app (spec 4.5), under /api/v1/auth. */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("login", "/login")
      .annotate(OpenApi.Summary, "Log in with e-mail and password: a token pair")
      .setPayload(StrictBody(LoginRequest))
      .addSuccess(TokenPair)
      .addError(errors(ApiError.InvalidCredentials, ApiError.RateLimitExceeded))
      .annotate(
        OpenApi.Description,
        "401 INVALID_CREDENTIALS for an unknown e-mail and a wrong password alike. Failed logins are limited per e-mail (5 per 15 min) and per client address (20 per 15 min); beyond that every attempt, right or wrong, gets 429 RATE_LIMIT_EXCEEDED with Retry-After until the window has run."
      )
  )
  .add(
    HttpApiEndpoint.post("refresh", "/refresh")
      .annotate(OpenApi.Summary, "Trade a refresh token for a new token pair")
      .setPayload(StrictBody(RefreshRequest))
      .addSuccess(TokenPair)
      .addError(
        errors(
          ApiError.RefreshTokenInvalid,
          ApiError.RefreshTokenExpired,
          ApiError.RefreshTokenReused,
          ApiError.SessionRevoked
        )
      )
      .annotate(
        OpenApi.Description,
        "Rotates the refresh token: a new pair each time. 401 REFRESH_TOKEN_INVALID / REFRESH_TOKEN_EXPIRED (7 days after its issue, or the session is SESSION_MAX_DAYS, default 30, past its login: log in again) / REFRESH_TOKEN_REUSED (a rotated token replayed after the 10 s grace window, or after its successor was itself refreshed: the session is revoked) / SESSION_REVOKED. Within the grace window, while its successor is unused, a second refresh of the same token returns the same pair."
      )
  )
  .add(
    HttpApiEndpoint.post("logout", "/logout")
      .annotate(OpenApi.Summary, "Log out: end the session")
      .addSuccess(Schema.Void, { status: 204 })
      .middleware(AccessTokenAuth)
      .annotate(OpenApi.Description, "Ends the session: its access tokens and refresh tokens stop working at once.")
  )
  .prefix("/api/v1/auth")
  .annotate(
    OpenApi.Description,
    "Login, token refresh and logout of the browser app. The access token (15 minutes) authorises the account API as `Authorization: Bearer <ACCESS_TOKEN>`; the refresh token (7 days) is rotated on every refresh, for at most SESSION_MAX_DAYS (default 30) days after the login."
  )
  .annotate(OpenApi.Title, "Account: authentication") {}
