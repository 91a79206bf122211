import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { TenderFeedback } from "../../infra/scoring/TenderFeedback.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"

const notScored = () => new ApiError.NotFound({ message: "No such tender scored for this company" })

export const FeedbackHttpLive = HttpApiBuilder.group(Api, "feedback", (handlers) =>
  Effect.gen(function* () {
    const feedback = yield* TenderFeedback
    return handlers
      .handle("mark", ({ path, payload }) =>
        Effect.gen(function* () {
          const account = yield* CurrentAccount
          const now = new Date(yield* Clock.currentTimeMillis)
          const mark = yield* feedback
            .mark({
              tenantId: account.tenantId,
              companyId: path.companyId.toLowerCase(),
              tenderId: path.tenderId.toLowerCase(),
              relevant: payload.relevant,
              now
            })
            .pipe(Effect.catchTag("FeedbackTargetNotFound", () => Effect.fail(notScored())))
          return { data: mark }
        })
      )
      .handle("unmark", ({ path }) =>
        Effect.gen(function* () {
          const account = yield* CurrentAccount
          yield* feedback
            .unmark({
              tenantId: account.tenantId,
              companyId: path.companyId.toLowerCase(),
              tenderId: path.tenderId.toLowerCase()
            })
            .pipe(Effect.catchTag("FeedbackTargetNotFound", () => Effect.fail(notScored())))
        })
      )
      .handle("list", ({ path }) =>
        Effect.gen(function* () {
          const account = yield* CurrentAccount
          const marks = yield* feedback.list({ tenantId: account.tenantId, companyId: path.companyId.toLowerCase() })
          if (Option.isNone(marks)) return yield* new ApiError.NotFound({ message: "No such company" })
          return { data: marks.value }
        })
      )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
