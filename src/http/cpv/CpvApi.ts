import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { NonEmptyText, QueryInteger } from "../Inputs.js"

export const CpvEntry = Schema.Struct({
  code: Schema.String.annotations({ description: "`NNNNNNNN-D`, as watchlists take it" }),
  labelRo: Schema.String,
  labelEn: Schema.String,
  level: Schema.Literal("division", "group", "class", "category", "subcategory")
})

export const CPV_SEARCH_DEFAULT_LIMIT = 20

export const CpvSearchQuery = Schema.Struct({
  q: NonEmptyText(100).annotations({
    description: "Words of the Romanian or English label (diacritics and case ignored), or the code's first digits"
  }),
  limit: Schema.optionalWith(
    QueryInteger({
      minimum: 1,
      maximum: 50,
      default: CPV_SEARCH_DEFAULT_LIMIT,
      plainMessages: true,
      description: "Results at most"
    }),
    { exact: true }
  )
})

/** Search of the CPV 2008 table for the watchlist editor's picker (access token), under /api/v1/cpv. */
export class CpvApi extends HttpApiGroup.make("cpv")
  .add(
    HttpApiEndpoint.get("search", "/")
      .annotate(OpenApi.Summary, "Search CPV codes by Romanian or English label, or by code")
      .setUrlParams(CpvSearchQuery)
      .addSuccess(Schema.Struct({ data: Schema.Array(CpvEntry) }))
      .annotate(
        OpenApi.Description,
        "Every word of `q` must occur in the Romanian or the English label (diacritics and case ignored); digits match the start of the code. Broader codes (divisions, groups) and labels starting with the query come first."
      )
  )
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/cpv")
  .annotate(
    OpenApi.Description,
    "The CPV 2008 table (Romanian and English labels) for picking watchlist codes; access token, every plan."
  )
  .annotate(OpenApi.Title, "Account: CPV codes") {}
