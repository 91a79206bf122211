import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { planRules } from "../../domain/Plan.js"
import { type ApiKeySummary, ApiKeysRepo } from "../../infra/auth/ApiKeysRepo.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"

/** The tenant of the access token, if its plan has the key-authenticated API (Consultant). */
const consultantTenant = Effect.flatMap(CurrentAccount, (account) =>
  planRules[account.plan].apiAccess
    ? Effect.succeed(account.tenantId)
    : Effect.fail(new ApiError.PlanUpgradeRequired({ message: "API keys are part of the Consultant plan" }))
)

/**
 * The tenant of the access token on any plan: listing and revoking keys are security actions, so a
 * tenant that left the Consultant plan can still find and kill a leaked key (it would work again
 * after an upgrade). Only creation needs the plan.
 */
const anyPlanTenant = Effect.map(CurrentAccount, (account) => account.tenantId)

const toWire = (summary: ApiKeySummary) => ({
  id: summary.id,
  name: summary.name,
  maskedKey: summary.masked,
  active: summary.revokedAt === null,
  createdAt: summary.createdAt,
  revokedAt: summary.revokedAt,
  lastUsedAt: summary.lastUsedAt
})

export const SettingsHttpLive = HttpApiBuilder.group(Api, "settings", (handlers) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeysRepo
    return handlers
      .handle("createApiKey", ({ payload }) =>
        consultantTenant.pipe(
          Effect.flatMap((tenantId) => keys.create({ tenantId, name: payload.name ?? "" })),
          Effect.map(({ key, summary }) => ({ data: { ...toWire(summary), key } })),
          Effect.catchTags({
            ApiKeyLimitExceeded: (error) =>
              Effect.fail(
                new ApiError.ApiKeyLimitExceeded({
                  message: `At most ${error.limit} API keys may be active; revoke one first`
                })
              ),
            TenantNotFound: () => Effect.die("the tenant of a live session vanished")
          })
        )
      )
      .handle("listApiKeys", () =>
        anyPlanTenant.pipe(
          Effect.flatMap(keys.list),
          Effect.map((summaries) => ({ data: summaries.map(toWire) }))
        )
      )
      .handle("revokeApiKey", ({ path }) =>
        anyPlanTenant.pipe(
          Effect.flatMap((tenantId) => keys.revoke({ keyId: path.id, tenantId })),
          Effect.map((summary) => ({ data: toWire(summary) })),
          Effect.catchTag("ApiKeyNotFound", () => Effect.fail(new ApiError.NotFound({ message: "No such API key" })))
        )
      )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
