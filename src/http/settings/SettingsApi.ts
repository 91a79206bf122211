import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { DateTime } from "../../domain/Timestamps.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { atMostCharacters, oneLine, StrictBody, TrimmedText } from "../Inputs.js"
import { errors } from "../WireErrors.js"

export const ApiKeySummary = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  maskedKey: Schema.String.annotations({ description: "`svc_` and the first 8 hex characters, then …" }),
  active: Schema.Boolean,
  createdAt: DateTime,
  revokedAt: Schema.NullOr(DateTime),
  lastUsedAt: Schema.NullOr(DateTime).annotations({
    description:
      "When the key last authenticated a request, to the minute (recorded at most once a minute per API process); null: never used"
  })
})

export const CreatedApiKey = Schema.Struct({
  ...ApiKeySummary.fields,
  key: Schema.String.annotations({ description: "The full key; shown in this response only" })
})

/** A key's name: trimmed, composed (NFC), at most 100 characters, one line (the API's and the CLI's rule); may be empty. */
export const ApiKeyName = oneLine(TrimmedText.pipe(atMostCharacters(100)))

export const CreateApiKey = Schema.Struct({
  name: Schema.optionalWith(ApiKeyName, { exact: true })
})

/**
 * API-key settings of the account (spec 5.3), under /api/v1/settings/api-keys: creation needs the
 * Consultant plan; listing and revoking work on every plan (a key must stay revocable after a downgrade).
 */
export class SettingsApi extends HttpApiGroup.make("settings")
  .add(
    HttpApiEndpoint.post("createApiKey", "/api-keys")
      .annotate(OpenApi.Summary, "Create an API key; the full key is shown once")
      .setPayload(StrictBody(CreateApiKey))
      .addSuccess(Schema.Struct({ data: CreatedApiKey }), { status: 201 })
      .addError(errors(ApiError.ApiKeyLimitExceeded, ApiError.PlanUpgradeRequired))
      .annotate(
        OpenApi.Description,
        "Consultant plan only; others get 403 PLAN_UPGRADE_REQUIRED. 422 API_KEY_LIMIT_EXCEEDED when 3 keys are already active."
      )
  )
  .add(
    HttpApiEndpoint.get("listApiKeys", "/api-keys")
      .annotate(OpenApi.Summary, "API keys of the account, masked")
      .addSuccess(Schema.Struct({ data: Schema.Array(ApiKeySummary) }))
      .annotate(OpenApi.Description, "Every plan: a tenant below Consultant still sees the keys it made before.")
  )
  .add(
    HttpApiEndpoint.del("revokeApiKey", "/api-keys/:id")
      .annotate(OpenApi.Summary, "Revoke an API key")
      .setPath(Schema.Struct({ id: Schema.UUID }))
      .addSuccess(Schema.Struct({ data: ApiKeySummary }))
      .annotate(
        OpenApi.Description,
        "Revokes at once (the next request with the key gets 401 API_KEY_REVOKED). Idempotent. Every plan: a key made on the Consultant plan stays revocable after a downgrade (it would work again after an upgrade)."
      )
  )
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/settings")
  .annotate(OpenApi.Description, "Creating a key needs the Consultant plan; listing and revoking work on every plan.")
  .annotate(OpenApi.Title, "Account: API-key settings") {}
