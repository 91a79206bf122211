import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { AlertsRepo } from "../../infra/alerts/AlertsRepo.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"
import { ALERTS_DEFAULT_LIMIT } from "./AlertsApi.js"

/**
 * "Mark all read" takes no body (spec 4.8) and marks every alert of the account: a body naming
 * fields (`{"watchlistId": …}`, a filter a client may expect it to take) is refused, 400 naming them,
 * rather than marking everything read. No body, or `{}`, is the request.
 */
const refuseFilters = Effect.gen(function* () {
  const text = (yield* Effect.orElseSucceed((yield* HttpServerRequest.HttpServerRequest).text, () => "")).trim()
  if (text === "" || text === "{}") return
  const parsed = yield* Effect.option(Effect.try(() => JSON.parse(text) as unknown))
  const fields =
    parsed._tag === "Some" && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value)
      ? Object.keys(parsed.value)
      : []
  const message = "Mark all read takes no body: it marks every alert of the account read"
  return yield* new ApiError.ValidationError({
    message,
    details:
      fields.length === 0
        ? [{ path: "", message }]
        : fields.map((field) => ({ path: field, message: "is unexpected: this request takes no body" }))
  })
})

export const AlertsHttpLive = HttpApiBuilder.group(Api, "alerts", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* AlertsRepo
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const account = yield* CurrentAccount
          const page = urlParams.page ?? 1
          const limit = urlParams.limit ?? ALERTS_DEFAULT_LIMIT
          if (urlParams.watchlistId !== undefined) {
            const owned = yield* repo.ownsWatchlist({ tenantId: account.tenantId, watchlistId: urlParams.watchlistId })
            if (!owned) return yield* new ApiError.NotFound({ message: "No such watchlist" })
          }
          const { alerts, total } = yield* repo.list({
            tenantId: account.tenantId,
            filters: {
              ...(urlParams.unread === undefined ? {} : { unread: urlParams.unread }),
              ...(urlParams.watchlistId === undefined ? {} : { watchlistId: urlParams.watchlistId }),
              ...(urlParams.verdict === undefined ? {} : { verdict: urlParams.verdict }),
              ...(urlParams.dateFrom === undefined ? {} : { createdAfter: urlParams.dateFrom })
            },
            offset: (page - 1) * limit,
            limit
          })
          return { data: alerts, meta: { page, limit, total, totalPages: Math.ceil(total / limit) } }
        })
      )
      .handle("markAllRead", () =>
        refuseFilters.pipe(
          Effect.zipRight(CurrentAccount),
          Effect.flatMap((account) => repo.markAllRead(account.tenantId)),
          Effect.map((updated) => ({ data: { updated } }))
        )
      )
      .handle("setRead", ({ path, payload }) =>
        Effect.flatMap(CurrentAccount, (account) =>
          repo.setRead({ tenantId: account.tenantId, id: path.id, read: payload.read })
        ).pipe(
          Effect.map((data) => ({ data })),
          Effect.catchTag("AlertNotFound", () => Effect.fail(new ApiError.NotFound({ message: "No such alert" })))
        )
      )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
