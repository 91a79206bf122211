import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { CpvSearch } from "../../infra/tenders/CpvSearch.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"
import { CPV_SEARCH_DEFAULT_LIMIT } from "./CpvApi.js"

export const CpvHttpLive = HttpApiBuilder.group(Api, "cpv", (handlers) =>
  Effect.gen(function* () {
    const cpv = yield* CpvSearch
    return handlers.handle("search", ({ urlParams }) =>
      cpv.search({ q: urlParams.q, limit: urlParams.limit ?? CPV_SEARCH_DEFAULT_LIMIT }).pipe(
        Effect.map((rows) => ({
          data: rows.map((row) => ({ code: row.code, labelRo: row.label_ro, labelEn: row.label_en, level: row.level }))
        }))
      )
    )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
