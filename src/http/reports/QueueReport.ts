import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { reportRequestFingerprint } from "../../domain/reports/IdempotencyKey.js"
import { RateLimitPoliciesTag, RateLimits } from "../../infra/limits/RateLimits.js"
import { AppReportReads } from "../../infra/reports/AppReportReads.js"
import { type IdempotentCreation, ReportIdempotencyKeys } from "../../infra/reports/ReportIdempotencyKeys.js"
import { ReportJobsRepo } from "../../infra/reports/ReportJobsRepo.js"
import { decorateResponse } from "../ResponseDecorations.js"
import { tooManyRequests } from "../TooManyRequests.js"
import { refuseRepeatedIdempotencyKey } from "./RepeatedIdempotencyKey.js"

const notTheCompanysWatchlist = () =>
  new ApiError.ValidationError({
    message: "watchlist_id is not a watchlist of this company",
    details: [{ path: "watchlist_id", message: "must be a watchlist of this company" }]
  })

/** The answer to a repeated key: the job it stands for, or 409 when it was another request. */
const repeatOf = (existing: IdempotentCreation, fingerprint: string) =>
  existing.fingerprint === fingerprint
    ? decorateResponse((response) => HttpServerResponse.setHeader(response, "idempotent-replayed", "true")).pipe(
        Effect.as({ id: existing.jobId, replayed: true as const })
      )
    : Effect.fail(
        new ApiError.IdempotencyKeyReused({
          message:
            "This Idempotency-Key was already used for another request (company or body) in the last 24 hours; send a new key for a new report"
        })
      )

/** A report queued by this request (its credits held), or the one its idempotency key already stands for. */
export type QueuedReport =
  | { readonly id: string; readonly replayed: false; readonly remaining: number; readonly periodEndsAt: string }
  | { readonly id: string; readonly replayed: true }

/**
 * Queues a report, as both report routes do (key API and browser app): the company must be the
 * tenant's (`unknownCompany`: 403 for an API key, 404 in the app) and the watchlist that company's
 * (400), both in one query; the tenant's hourly report limit is counted only once the request is
 * valid (429), in the job's transaction; the job holds its credits (402 when fewer remain). The
 * watchlist is checked again under a lock in that transaction (a deletion meanwhile: 400, nothing
 * held or counted); the first check keeps a request refused anyway from reaching it.
 *
 * An `Idempotency-Key` header sent more than once is refused first (400, RepeatedIdempotencyKey.ts).
 * With an `idempotencyKey`, a key that already stands for a job of the tenant (within 24 hours)
 * answers that job when the request is the same (company and decoded body), with
 * `Idempotent-Replayed: true`, checked first: nothing is counted or held again; another request
 * is 409. A concurrent creation with the same key is found in the job's transaction (the key's
 * unique row), before the limit is counted, and answered the same way. A refused request stores no key.
 */
export const queueReport = <E>(input: {
  readonly unknownCompany: () => E
  readonly tenantId: string
  readonly companyId: string
  readonly payload: {
    readonly date_from: string
    readonly date_to: string
    readonly min_score?: number | undefined
    readonly watchlist_id?: string | null | undefined
  }
  readonly idempotencyKey?: string | undefined
}): Effect.Effect<
  QueuedReport,
  | E
  | ApiError.ValidationError
  | ApiError.RateLimitExceeded
  | ApiError.ApiCreditsExhausted
  | ApiError.IdempotencyKeyReused,
  | AppReportReads
  | ReportIdempotencyKeys
  | ReportJobsRepo
  | RateLimits
  | RateLimitPoliciesTag
  | HttpServerRequest.HttpServerRequest
> =>
  Effect.gen(function* () {
    yield* refuseRepeatedIdempotencyKey
    const { tenantId, companyId, payload, idempotencyKey } = input
    const watchlistId = payload.watchlist_id?.toLowerCase() ?? null
    const params = {
      date_from: payload.date_from,
      date_to: payload.date_to,
      min_score: payload.min_score ?? 0,
      watchlist_id: watchlistId
    }
    const fingerprint = reportRequestFingerprint(companyId, params)
    if (idempotencyKey !== undefined) {
      const existing = yield* (yield* ReportIdempotencyKeys).find(tenantId, idempotencyKey)
      if (Option.isSome(existing)) return yield* repeatOf(existing.value, fingerprint)
    }
    const target = yield* (yield* AppReportReads).checkTarget({ tenantId, companyId, watchlistId })
    if (!target.company) return yield* Effect.fail(input.unknownCompany())
    if (!target.watchlist) return yield* notTheCompanysWatchlist()
    const policies = yield* RateLimitPoliciesTag
    // Counted in the job's transaction, after its key is stored: a concurrent twin is not counted.
    const admit = (yield* RateLimits)
      .consume(policies.reportCreation, tenantId)
      .pipe(
        Effect.catchTag("RateLimitHit", (hit) =>
          tooManyRequests(hit, `Report limit exceeded; retry in ${hit.retryAfterSeconds} seconds`)
        )
      )
    const created = yield* (yield* ReportJobsRepo)
      .create({
        tenantId,
        companyId,
        params,
        idempotency: idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint },
        admit
      })
      .pipe(
        Effect.catchTags({
          InsufficientCredits: (error) =>
            Effect.fail(
              new ApiError.ApiCreditsExhausted({
                message: `A report costs ${error.required} credits; ${error.remaining} remain until ${error.periodEndsAt}`,
                credits_remaining: error.remaining,
                credits_required: error.required,
                period_ends_at: error.periodEndsAt
              })
            ),
          TenantNotFound: () => Effect.die("the tenant of an authenticated caller vanished"),
          WatchlistNotFound: () => Effect.fail(notTheCompanysWatchlist()),
          IdempotencyKeyTaken: (taken) => repeatOf(taken, fingerprint)
        })
      )
    return "replayed" in created ? created : { ...created, replayed: false as const }
  })
