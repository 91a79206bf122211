import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import type { AccessTokenRejected } from "../domain/Errors.js"
import { AuthSessions, AuthSessionsLive } from "../infra/auth/AuthSessions.js"
import { noteTenant } from "../infra/observability/RequestTrail.js"
import { AccessTokenAuth } from "./AccessTokenAuth.js"

/** Where the access token is checked (the tag in AccessTokenAuth.ts is shared with the browser app). */

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

/** The check of the request's access token, for any middleware that accepts one. */
export const makeAccessTokenCheck = Effect.map(AuthSessions, (sessions) =>
  // The platform slices 7 characters off any header; read it ourselves and insist on "Bearer ".
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const header = request.headers.authorization ?? ""
    if (!/^Bearer /i.test(header)) return yield* missing
    const token = header.slice("Bearer ".length).trim()
    if (token === "") return yield* missing
    if (token.startsWith("svc_"))
      return yield* new ApiError.AccessTokenInvalid({
        message:
          "An API key is not accepted here (keys are read-only: tenders, scores, export, reports, webhooks, and reading companies); log in for an access token"
      })
    return yield* sessions.authenticate(token).pipe(
      Effect.mapError(rejection),
      Effect.tap((account) => noteTenant(account.tenantId))
    )
  })
)

export const AccessTokenAuthLive = Layer.effect(
  AccessTokenAuth,
  Effect.map(makeAccessTokenCheck, (check) => ({ accessToken: () => check }))
).pipe(Layer.provide(AuthSessionsLive))
