import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { planRules } from "../../domain/Plan.js"
import { CreditUsage } from "../../infra/billing/CreditUsage.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"

export const CreditsHttpLive = HttpApiBuilder.group(Api, "credits", (handlers) =>
  Effect.gen(function* () {
    const usage = yield* CreditUsage
    return handlers.handle("summary", () =>
      Effect.gen(function* () {
        const account = yield* CurrentAccount
        if (!planRules[account.plan].apiAccess) {
          return yield* new ApiError.PlanUpgradeRequired({ message: "Credits are part of the Consultant plan" })
        }
        const summary = yield* usage
          .summary(account.tenantId)
          .pipe(Effect.catchTag("TenantNotFound", () => Effect.die("the tenant of a live session vanished")))
        return { data: { plan: account.plan, ...summary } }
      })
    )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
