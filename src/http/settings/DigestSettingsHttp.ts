import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { DigestSettingsRepo } from "../../infra/digest/DigestSettingsRepo.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"

export const DigestSettingsHttpLive = HttpApiBuilder.group(Api, "digestSettings", (handlers) =>
  Effect.gen(function* () {
    const settings = yield* DigestSettingsRepo
    return handlers
      .handle("getDigest", () =>
        Effect.flatMap(CurrentAccount, (account) => settings.get(account.userId)).pipe(Effect.map((data) => ({ data })))
      )
      .handle("setDigest", ({ payload }) =>
        Effect.flatMap(CurrentAccount, (account) => settings.set(account.userId, payload)).pipe(
          Effect.map((data) => ({ data }))
        )
      )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
