import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import { AuthSessionsLive } from "../infra/auth/AuthSessions.js"
import { makeAccessTokenCheck } from "./AccessTokenAuthLive.js"
import { makeApiKeyAuth } from "./ApiKeyAuthLive.js"
import { WorkspaceReaderAuth } from "./WorkspaceReaderAuth.js"

const API_KEY = /^Bearer\s+svc_/i

/** Where WorkspaceReaderAuth is checked: the key check for `svc_…` bearers, the token check otherwise. */
export const WorkspaceReaderAuthLive = Layer.effect(
  WorkspaceReaderAuth,
  Effect.gen(function* () {
    const accessToken = yield* makeAccessTokenCheck
    const apiKey = (yield* makeApiKeyAuth("general")).apiKey
    return {
      accessTokenOrApiKey: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (API_KEY.test(request.headers.authorization ?? "")) {
            const caller = yield* apiKey(undefined)
            return { tenantId: caller.tenantId, plan: caller.plan, via: "apiKey" as const }
          }
          const account = yield* accessToken
          return { tenantId: account.tenantId, plan: account.plan, via: "accessToken" as const }
        })
    }
  })
).pipe(Layer.provide(AuthSessionsLive))
