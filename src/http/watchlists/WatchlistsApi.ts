import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { DateTime } from "../../domain/Timestamps.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { boundedArray, CountiesInput, NameText, StrictBody } from "../Inputs.js"
import { errors } from "../WireErrors.js"

export const Watchlist = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  cpvCodes: Schema.Array(Schema.String),
  keywords: Schema.Array(Schema.String),
  minValue: Schema.NullOr(Schema.Number),
  maxValue: Schema.NullOr(Schema.Number),
  authorityId: Schema.NullOr(Schema.UUID),
  companyId: Schema.UUID.annotations({ description: "Extension: the company this watchlist belongs to" }),
  minScore: Schema.Int.annotations({ description: "Extension: the alert threshold, 0-100" }),
  counties: Schema.Array(Schema.String).annotations({
    description:
      "Extension: the counties the watchlist is limited to (the tender's contracting authority county); empty: anywhere"
  }),
  active: Schema.Boolean,
  createdAt: DateTime
})

const Name = NameText(200)
const CpvCode = Schema.String.pipe(
  Schema.pattern(/^[0-9]{8}(-[0-9])?$/, { message: () => "must be a CPV code, NNNNNNNN or NNNNNNNN-D" })
)
const CpvCodes = boundedArray(CpvCode, 100, "CPV codes")
const Keyword = NameText(100)
const Keywords = boundedArray(Keyword, 50, "keywords")
const Ron = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.nonNegative({ message: () => "must not be negative" }),
  Schema.lessThan(1e16, { message: () => "must be below 10^16" })
)
const MinScore = Schema.Int.pipe(Schema.between(0, 100, { message: () => "must be an integer from 0 to 100" }))

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** Every field but `name` is optional in both the create and the update body. */
const OptionalFields = {
  cpvCodes: optional(CpvCodes),
  keywords: optional(Keywords),
  minValue: optional(Schema.NullOr(Ron)),
  maxValue: optional(Schema.NullOr(Ron)),
  authorityId: optional(Schema.NullOr(Schema.UUID)),
  companyId: optional(Schema.UUID),
  minScore: optional(MinScore),
  counties: optional(CountiesInput)
}

/** A new watchlist needs a name; the rest have defaults. */
export const CreateWatchlist = Schema.Struct({ name: Name, ...OptionalFields })

/** A patch: only the fields sent change. */
export const UpdateWatchlist = Schema.Struct({ name: optional(Name), ...OptionalFields })

const WatchlistPath = Schema.Struct({ id: Schema.UUID })

/** Watchlists of the account (spec 2.7, 4.6), under /api/v1/watchlists. */
export class WatchlistsApi extends HttpApiGroup.make("watchlists")
  .add(
    HttpApiEndpoint.get("list", "/")
      .annotate(OpenApi.Summary, "Active watchlists of the account")
      .addSuccess(Schema.Struct({ data: Schema.Array(Watchlist) }))
  )
  .add(
    HttpApiEndpoint.post("create", "/")
      .annotate(OpenApi.Summary, "Create a watchlist")
      .setPayload(StrictBody(CreateWatchlist))
      .addSuccess(Schema.Struct({ data: Watchlist }), { status: 201 })
      .addError(errors(ApiError.WatchlistLimitReached))
      .annotate(
        OpenApi.Description,
        "403 WATCHLIST_LIMIT_REACHED at the plan's limit (Free 1, Starter 5, Activ 20, Consultant 100 active watchlists)."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/:id")
      .annotate(OpenApi.Summary, "Change a watchlist; unsent fields stay as they are")
      .setPath(WatchlistPath)
      .setPayload(StrictBody(UpdateWatchlist))
      .addSuccess(Schema.Struct({ data: Watchlist }))
  )
  .add(
    HttpApiEndpoint.del("remove", "/:id")
      .annotate(OpenApi.Summary, "Delete a watchlist; the alerts it raised are kept")
      .setPath(WatchlistPath)
      .addSuccess(Schema.Void, { status: 204 })
  )
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/watchlists")
  .annotate(
    OpenApi.Description,
    "What a company looks for in tenders: CPV codes, keywords, value range, contracting authority, and the score from which a tender raises an alert (`minScore`). Every change re-scores the companies it touches."
  )
  .annotate(OpenApi.Title, "Account: watchlists") {}
