import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import { isWellFormedApiKey } from "../domain/ApiKey.js"
import { planRules } from "../domain/Plan.js"
import type { RateLimitPolicies } from "../domain/RateLimitPolicy.js"
import { ApiKeysRepo } from "../infra/auth/ApiKeysRepo.js"
import { CreditLedger } from "../infra/billing/CreditLedger.js"
import { RateLimitPoliciesTag, RateLimits } from "../infra/limits/RateLimits.js"
import { noteTenant } from "../infra/observability/RequestTrail.js"
import { ScoredTendersRepo } from "../infra/scoring/ScoredTendersRepo.js"
import { ApiCaller, ApiKeyAuth, ApiKeyAuthExport, ApiKeyAuthReportCreation } from "./ApiKeyAuth.js"
import { CreditsReport } from "./credits/CreditsReport.js"
import { tooManyRequests } from "./TooManyRequests.js"

/** Where the API key is checked (the tags in ApiKeyAuth.ts are shared with the browser app). */

const BEARER = /^Bearer /i

const invalidKey = new ApiError.ApiKeyInvalid({ message: "The API key is not valid" })

/** The security handler, for the rate-limit policy `policy` (null: the handler counts its own limit). */
export const makeApiKeyAuth = (policy: keyof RateLimitPolicies | null) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeysRepo
    const ledger = yield* CreditLedger
    const rateLimits = yield* RateLimits
    const policies = yield* RateLimitPoliciesTag

    return {
      // HttpApiSecurity.bearer slices 7 characters off any header without checking the scheme, and
      // passes a missing header as "": read the raw header instead.
      apiKey: (_sliced: unknown) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const header = request.headers.authorization ?? ""
          if (!BEARER.test(header) || header.slice(7).trim() === "") {
            return yield* new ApiError.ApiKeyMissing({
              message: "Send the API key as `Authorization: Bearer <API_KEY>`"
            })
          }
          const presented = header.slice(7).trim()
          if (!isWellFormedApiKey(presented)) return yield* invalidKey
          const found = yield* keys.findOwner(presented)
          if (Option.isNone(found)) return yield* invalidKey
          const owner = found.value
          yield* noteTenant(owner.tenantId)
          if (owner.revoked) return yield* new ApiError.ApiKeyRevoked({ message: "The API key has been revoked" })
          if (!planRules[owner.plan].apiAccess) {
            return yield* new ApiError.PlanUpgradeRequired({ message: "The API is available on the Consultant plan" })
          }
          yield* keys.noteUse(owner.keyId)
          const credits = new CreditsReport()
          yield* CreditsReport.install(credits, owner.tenantId, ledger)
          if (policy !== null) {
            yield* rateLimits
              .consume(policies[policy], owner.tenantId)
              .pipe(
                Effect.catchTag("RateLimitHit", (hit) =>
                  tooManyRequests(hit, `Rate limit exceeded; retry in ${hit.retryAfterSeconds} seconds`)
                )
              )
          }
          return { keyId: owner.keyId, tenantId: owner.tenantId, plan: owner.plan, credits }
        })
    }
  })

export const ApiKeyAuthLive = Layer.effect(ApiKeyAuth, makeApiKeyAuth("general"))
export const ApiKeyAuthExportLive = Layer.effect(ApiKeyAuthExport, makeApiKeyAuth("export"))
export const ApiKeyAuthReportCreationLive = Layer.effect(ApiKeyAuthReportCreation, makeApiKeyAuth(null))

/**
 * 403 COMPANY_ACCESS_DENIED: the company is not of the caller's tenant. A company that does not
 * exist gets the same answer, so ids of other tenants cannot be probed.
 */
export const companyAccessDenied = () =>
  new ApiError.CompanyAccessDenied({
    message: "The company does not belong to the tenant of this API key"
  })

/** The caller, or COMPANY_ACCESS_DENIED unless the company belongs to the caller's tenant. */
export const requireOwnCompany = (companyId: string) =>
  Effect.gen(function* () {
    const caller = yield* ApiCaller
    const owner = yield* (yield* ScoredTendersRepo).companyTenant(companyId)
    if (Option.isNone(owner) || owner.value !== caller.tenantId) return yield* companyAccessDenied()
    return caller
  })
