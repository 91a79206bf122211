import { Effect } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { RateLimitPoliciesTag, RateLimits } from "../../infra/limits/RateLimits.js"
import { AppReportReads } from "../../infra/reports/AppReportReads.js"
import { ReportJobsRepo } from "../../infra/reports/ReportJobsRepo.js"
import { tooManyRequests } from "../TooManyRequests.js"

const notTheCompanysWatchlist = () =>
  new ApiError.ValidationError({
    message: "watchlist_id is not a watchlist of this company",
    details: [{ path: "watchlist_id", message: "must be a watchlist of this company" }]
  })

/**
 * Queues a report, as both report routes do (key API and browser app): the company must be the
 * tenant's (`unknownCompany`: 403 for an API key, 404 in the app) and the watchlist that company's
 * (400), both in one query; the tenant's hourly report limit is counted only once the request is
 * valid (429); the job holds its credits (402 when fewer remain). The watchlist is checked again
 * under a lock in the job's transaction (a deletion meanwhile: 400, nothing held); the first check
 * keeps a request refused anyway from using up the hour's reports.
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
}) =>
  Effect.gen(function* () {
    const { tenantId, companyId, payload } = input
    const watchlistId = payload.watchlist_id?.toLowerCase() ?? null
    const target = yield* (yield* AppReportReads).checkTarget({ tenantId, companyId, watchlistId })
    if (!target.company) return yield* Effect.fail(input.unknownCompany())
    if (!target.watchlist) return yield* notTheCompanysWatchlist()
    const policies = yield* RateLimitPoliciesTag
    yield* (yield* RateLimits)
      .consume(policies.reportCreation, tenantId)
      .pipe(
        Effect.catchTag("RateLimitHit", (hit) =>
          tooManyRequests(hit, `Report limit exceeded; retry in ${hit.retryAfterSeconds} seconds`)
        )
      )
    const params = {
      date_from: payload.date_from,
      date_to: payload.date_to,
      min_score: payload.min_score ?? 0,
      watchlist_id: watchlistId
    }
    return yield* (yield* ReportJobsRepo).create({ tenantId, companyId, params }).pipe(
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
        WatchlistNotFound: () => Effect.fail(notTheCompanysWatchlist())
      })
    )
  })
