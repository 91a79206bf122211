import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { NonEmptyText, Text } from "../Inputs.js"
import { errors } from "../WireErrors.js"

export const CompanyListItem = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.String,
  active: Schema.Boolean,
  watchlistCount: Schema.Int,
  createdAt: Schema.Date
})

export const CompanyDetail = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.String,
  active: Schema.Boolean,
  watchlists: Schema.Array(Schema.Struct({ id: Schema.UUID, name: Schema.String, active: Schema.Boolean })),
  createdAt: Schema.Date
})

export const UpdateCompany = Schema.Struct({
  description: Schema.optionalWith(
    Text.pipe(Schema.maxLength(10_000, { message: () => "must be at most 10000 characters" })),
    { exact: true }
  ),
  name: Schema.optionalWith(NonEmptyText(200), { exact: true })
})

const CompanyPath = Schema.Struct({ id: Schema.UUID })

/** Companies of the multi-client workspace (spec 2.9, 4.7; Consultant plan), under /api/v1/companies. */
export class CompaniesApi extends HttpApiGroup.make("companies")
  .add(
    HttpApiEndpoint.get("list", "/")
      .annotate(OpenApi.Summary, "Companies of the workspace")
      .addSuccess(Schema.Struct({ data: Schema.Array(CompanyListItem) }))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id")
      .annotate(OpenApi.Summary, "One company with its watchlists")
      .setPath(CompanyPath)
      .addSuccess(Schema.Struct({ data: CompanyDetail }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/:id")
      .annotate(OpenApi.Summary, "Change a company's description or name")
      .setPath(CompanyPath)
      .setPayload(UpdateCompany)
      .addSuccess(Schema.Struct({ data: CompanyDetail }))
      .annotate(OpenApi.Description, "Writable: `description` and `name`. A changed description re-scores the company.")
  )
  .addError(errors(ApiError.PlanUpgradeRequired))
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/companies")
  .annotate(
    OpenApi.Description,
    "Only plans with the multi-client workspace (Consultant); others get 403 PLAN_UPGRADE_REQUIRED."
  )
  .annotate(OpenApi.Title, "Account: companies") {}
