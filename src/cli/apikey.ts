import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { apiAccessPlans, planRules } from "../domain/Plan.js"
import { ApiKeyName } from "../http/settings/SettingsApi.js"
import { TenantsRepo } from "../infra/accounts/TenantsRepo.js"
import { ApiKeysRepo } from "../infra/auth/ApiKeysRepo.js"
import { CliFailure, missingSubcommand, printJson, schemaOption, uuidOption } from "./CliSupport.js"

const create = Command.make(
  "create",
  // The name follows the API's rule (POST /api/v1/settings/api-keys).
  { tenant: uuidOption("tenant"), name: schemaOption("name", ApiKeyName).pipe(Options.withDefault("")) },
  ({ tenant, name }) =>
    Effect.gen(function* () {
      // The settings API's rule: a key the key API would refuse must not take one of the tenant's slots.
      const { plan } = yield* (yield* TenantsRepo).get(tenant)
      if (!planRules[plan].apiAccess) {
        return yield* new CliFailure({
          message: `API keys are part of the ${apiAccessPlans.join(" or ")} plan; the tenant is on the ${plan} plan`
        })
      }
      return yield* (yield* ApiKeysRepo).create({ tenantId: tenant, name })
    }).pipe(
      Effect.catchTags({
        TenantNotFound: (e) => new CliFailure({ message: `No tenant with id ${e.tenantId}` }),
        ApiKeyLimitExceeded: (e) =>
          new CliFailure({
            message: `The tenant already has ${e.limit} active API keys (the maximum); revoke one first with: apikey revoke --id <keyId>`
          })
      }),
      Effect.flatMap(({ key, summary }) => printJson({ keyId: summary.id, key }))
    )
).pipe(Command.withDescription("Create an API key (shown once) → {keyId, key}"))

const revoke = Command.make("revoke", { id: uuidOption("id") }, ({ id }) =>
  Effect.flatMap(ApiKeysRepo, (keys) => keys.revoke({ keyId: id })).pipe(
    Effect.catchTag("ApiKeyNotFound", (e) => new CliFailure({ message: `No API key with id ${e.keyId}` })),
    Effect.flatMap((summary) => printJson({ keyId: summary.id, revoked: true }))
  )
).pipe(Command.withDescription("Revoke an API key (idempotent) → {keyId, revoked}"))

const list = Command.make("list", { tenant: uuidOption("tenant") }, ({ tenant }) =>
  Effect.gen(function* () {
    yield* (yield* TenantsRepo).get(tenant)
    const keys = yield* (yield* ApiKeysRepo).list(tenant)
    return yield* printJson({
      keys: keys.map((key) => ({
        keyId: key.id,
        name: key.name,
        maskedKey: key.masked,
        active: key.revokedAt === null,
        createdAt: key.createdAt.toISOString(),
        revokedAt: key.revokedAt?.toISOString() ?? null,
        lastUsedAt: key.lastUsedAt?.toISOString() ?? null
      }))
    })
  }).pipe(Effect.catchTag("TenantNotFound", (e) => new CliFailure({ message: `No tenant with id ${e.tenantId}` })))
).pipe(
  Command.withDescription(
    "The tenant's API keys, masked, oldest first, with when each was last used → {keys: [{keyId, name, maskedKey, active, createdAt, revokedAt, lastUsedAt}]}"
  )
)

/**
 * `apikey create --tenant T [--name N]` → {"keyId","key"}; `apikey list --tenant T` → {"keys":[…]};
 * `apikey revoke --id K` → {"keyId","revoked":true}
 */
export const apikeyCommand = Command.make("apikey", {}, missingSubcommand("apikey", ["create", "list", "revoke"])).pipe(
  Command.withSubcommands([create, list, revoke])
)
