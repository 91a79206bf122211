import { createHash } from "node:crypto"
import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { normalizeEmail, UsersRepo } from "../../infra/accounts/UsersRepo.js"
import { AuthSessions, AuthSessionsLive, type RefreshRejected } from "../../infra/auth/AuthSessions.js"
import { checkNotLocked, recordFailure } from "../../infra/auth/LoginThrottle.js"
import { hashPassword, verifyPassword } from "../../infra/auth/PasswordHasher.js"
import { type RateLimitHit, RateLimitPoliciesTag } from "../../infra/billing/RateLimits.js"
import { AccessTokenAuthLive, CurrentAccount } from "../AccessTokenAuth.js"
import { Api } from "../Api.js"
import { RateLimited, Unauthorized } from "../ApiErrors.js"

const refreshRejection = (error: RefreshRejected) => {
  switch (error.reason) {
    case "invalid":
      return new Unauthorized({ code: "REFRESH_TOKEN_INVALID", message: "The refresh token is not valid" })
    case "expired":
      return new Unauthorized({ code: "REFRESH_TOKEN_EXPIRED", message: "The refresh token has expired; log in" })
    case "reused":
      return new Unauthorized({
        code: "REFRESH_TOKEN_REUSED",
        message: "The refresh token was already used; the session has been revoked, log in again"
      })
    case "revoked":
      return new Unauthorized({ code: "SESSION_REVOKED", message: "The session has ended; log in" })
  }
}

/** 429 with Retry-After (set on the error response too, via the pre-response handler). */
const rateLimited = (hit: RateLimitHit) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(hit.retryAfterSeconds)))
  ).pipe(
    Effect.zipRight(
      Effect.fail(
        new RateLimited({
          message: "Too many login attempts; retry later",
          retry_after_seconds: hit.retryAfterSeconds
        })
      )
    )
  )

const invalidCredentials = new Unauthorized({ code: "INVALID_CREDENTIALS", message: "Wrong e-mail or password" })

/** Rate-limit subjects carry no plain e-mail address. */
const emailSubject = (email: string) => createHash("sha256").update(email, "utf8").digest("hex").slice(0, 32)

export const AuthHttpLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* AuthSessions
    const users = yield* UsersRepo
    const policies = yield* RateLimitPoliciesTag
    // Unknown e-mails are checked against this hash so they cost the same time as known ones.
    const dummyHash = yield* hashPassword("timing-equaliser: no account has this password")

    return handlers
      .handle("login", ({ payload }) =>
        Effect.gen(function* () {
          const email = normalizeEmail(payload.email)
          const request = yield* HttpServerRequest.HttpServerRequest
          const address = Option.getOrElse(request.remoteAddress, () => "unknown")
          const subjects = [
            [policies.loginPerAddress, address],
            [policies.loginPerEmail, emailSubject(email)]
          ] as const
          // A locked-out subject is refused before the password is even looked at.
          yield* Effect.forEach(subjects, ([policy, subject]) => checkNotLocked(policy, subject), {
            discard: true
          }).pipe(Effect.catchAll(rateLimited))
          const user = yield* users.findByEmail(email)
          const matches = yield* verifyPassword(
            Option.match(user, { onNone: () => dummyHash, onSome: (u) => u.passwordHash }),
            payload.password
          )
          if (Option.isNone(user) || !matches) {
            // Both budgets are charged; the failure that exceeds either is answered with 429.
            const hits = yield* Effect.forEach(subjects, ([policy, subject]) =>
              Effect.flip(recordFailure(policy, subject)).pipe(Effect.option)
            )
            const hit = hits.find(Option.isSome)
            if (hit !== undefined) return yield* rateLimited(hit.value)
            return yield* invalidCredentials
          }
          return { data: yield* sessions.login(user.value) }
        })
      )
      .handle("refresh", ({ payload }) =>
        sessions.refresh(payload.refreshToken).pipe(
          Effect.map((data) => ({ data })),
          Effect.mapError(refreshRejection)
        )
      )
      .handle("logout", () => Effect.flatMap(CurrentAccount, (account) => sessions.logout(account.sessionId)))
  })
).pipe(Layer.provide([AccessTokenAuthLive, AuthSessionsLive]))
