import { createHash } from "node:crypto"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { clientNetwork } from "../../domain/ClientNetwork.js"
import type { RateLimitHit, RefreshRejected } from "../../domain/Errors.js"
import { clientAddress } from "../../domain/TrustProxy.js"
import { normalizeEmail, UsersRepo } from "../../infra/accounts/UsersRepo.js"
import { AuthSessions, AuthSessionsLive } from "../../infra/auth/AuthSessions.js"
import { hashPassword, verifyPassword } from "../../infra/auth/PasswordHasher.js"
import { AppConfig } from "../../infra/config/AppConfig.js"
import { checkNotLocked, recordFailure } from "../../infra/limits/LoginThrottle.js"
import { RateLimitPoliciesTag } from "../../infra/limits/RateLimits.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"
import { forwardedFor } from "../ClientAddress.js"
import { tooManyRequests } from "../TooManyRequests.js"

const refreshRejection = (error: RefreshRejected) => {
  switch (error.reason) {
    case "invalid":
      return new ApiError.RefreshTokenInvalid({ message: "The refresh token is not valid" })
    case "expired":
      return new ApiError.RefreshTokenExpired({ message: "The refresh token has expired; log in" })
    case "reused":
      return new ApiError.RefreshTokenReused({
        message: "The refresh token was already used; the session has been revoked, log in again"
      })
    case "revoked":
      return new ApiError.SessionRevoked({ message: "The session has ended; log in" })
  }
}

const rateLimited = (hit: RateLimitHit) => tooManyRequests(hit, "Too many login attempts; retry later")

const invalidCredentials = new ApiError.InvalidCredentials({ message: "Wrong e-mail or password" })

/** Rate-limit subjects carry no plain e-mail address. */
const emailSubject = (email: string) => createHash("sha256").update(email, "utf8").digest("hex").slice(0, 32)

export const AuthHttpLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* AuthSessions
    const users = yield* UsersRepo
    const policies = yield* RateLimitPoliciesTag
    const config = yield* AppConfig
    // Unknown e-mails are checked against this hash so they cost the same time as known ones.
    const dummyHash = yield* hashPassword("timing-equaliser: no account has this password")

    return handlers
      .handle("login", ({ payload }) =>
        Effect.gen(function* () {
          const email = normalizeEmail(payload.email)
          const request = yield* HttpServerRequest.HttpServerRequest
          // An IPv6 client is counted by its /64, which it can pick addresses from at will.
          const network = clientNetwork(
            clientAddress(Option.getOrUndefined(request.remoteAddress), forwardedFor(request), config.trustProxy)
          )
          const subjects = [
            [policies.loginPerAddress, network],
            [policies.loginPerEmail, emailSubject(email)]
          ] as const
          const refuseIfLocked = Effect.forEach(subjects, ([policy, subject]) => checkNotLocked(policy, subject), {
            discard: true
          }).pipe(Effect.catchAll(rateLimited))
          // A locked-out subject is refused before the password is even looked at.
          yield* refuseIfLocked
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
          // Checked again: guesses sent at once all pass the first check, so the one that locked the
          // subject may be answered while others are still verified; a right one among them is refused
          // like any attempt after the lock, or a burst would try any number of passwords.
          yield* refuseIfLocked
          const data = yield* sessions.login(user.value)
          return { data }
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
