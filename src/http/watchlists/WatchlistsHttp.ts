import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import type { WatchlistInvalid } from "../../domain/Errors.js"
import { planRules } from "../../domain/Plan.js"
import { type Watchlist, WatchlistsRepo } from "../../infra/accounts/WatchlistsRepo.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"

const invalid = (error: WatchlistInvalid) =>
  new ApiError.ValidationError({
    message: `Invalid watchlist: ${error.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
    details: error.problems
  })

const notFound = () => new ApiError.NotFound({ message: "No such watchlist" })

const envelope = (watchlist: Watchlist) => ({ data: watchlist })

export const WatchlistsHttpLive = HttpApiBuilder.group(Api, "watchlists", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* WatchlistsRepo
    return handlers
      .handle("list", () =>
        Effect.flatMap(CurrentAccount, (account) => repo.list(account.tenantId)).pipe(Effect.map((data) => ({ data })))
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const account = yield* CurrentAccount
          const limit = planRules[account.plan].watchlistLimit
          const created = yield* repo
            .create({
              tenantId: account.tenantId,
              limit,
              fields: {
                name: payload.name,
                cpvCodes: payload.cpvCodes ?? [],
                keywords: payload.keywords ?? [],
                minValue: payload.minValue ?? null,
                maxValue: payload.maxValue ?? null,
                authorityId: payload.authorityId ?? null,
                companyId: payload.companyId,
                minScore: payload.minScore ?? 50,
                counties: payload.counties ?? []
              }
            })
            .pipe(
              Effect.catchTags({
                WatchlistInvalid: (error) => Effect.fail(invalid(error)),
                WatchlistLimitReached: (error) =>
                  Effect.fail(
                    new ApiError.WatchlistLimitReached({
                      message: `The ${account.plan} plan allows ${error.limit} active watchlist(s); delete one or upgrade`
                    })
                  )
              })
            )
          return envelope(created)
        })
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          const account = yield* CurrentAccount
          const updated = yield* repo.update({ tenantId: account.tenantId, id: path.id, patch: payload }).pipe(
            Effect.catchTags({
              WatchlistInvalid: (error) => Effect.fail(invalid(error)),
              WatchlistNotFound: () => Effect.fail(notFound())
            })
          )
          return envelope(updated)
        })
      )
      .handle("remove", ({ path }) =>
        Effect.flatMap(CurrentAccount, (account) =>
          repo
            .remove({ tenantId: account.tenantId, id: path.id })
            .pipe(Effect.catchTag("WatchlistNotFound", () => Effect.fail(notFound())))
        )
      )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
