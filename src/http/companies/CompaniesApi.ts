import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ParseResult, Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { DateTime } from "../../domain/Timestamps.js"
import { normalizeFiscalCode } from "../../domain/tenders/FiscalCode.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { atMostCharacters, CountiesInput, composed, NameText, StrictBody, Text } from "../Inputs.js"
import { errors } from "../WireErrors.js"
import { WorkspaceReaderAuth } from "../WorkspaceReaderAuth.js"

/** Stored digits of a Romanian fiscal code (CUI), or null when the company has none. */
const StoredFiscalCode = Schema.NullOr(Schema.String).annotations({
  description: "Romanian fiscal code (CUI) as stored: 2-10 digits without the RO prefix; null when unknown"
})

const Counties = Schema.Array(Schema.String).annotations({
  description:
    "Extension: the counties the company works in, as set (PATCH `counties`); empty when not set, and then scoring infers them from its award history (`inferredCounties`)"
})

export const CompanyListItem = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.String,
  fiscalCode: StoredFiscalCode,
  counties: Counties,
  active: Schema.Boolean,
  watchlistCount: Schema.Int,
  createdAt: DateTime
})

export const CompanyDetail = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.String,
  fiscalCode: StoredFiscalCode,
  counties: Counties,
  inferredCounties: Schema.Array(Schema.String).annotations({
    description:
      "Extension: the counties inferred from the company's award history (the authorities' counties holding at least 20% of its awards, or 3 of them); scoring uses them while `counties` is empty"
  }),
  active: Schema.Boolean,
  watchlists: Schema.Array(Schema.Struct({ id: Schema.UUID, name: Schema.String, active: Schema.Boolean })),
  createdAt: DateTime
})

/**
 * A fiscal code as people write it (`RO 22505268`, `22.505.268`), decoded to its stored digits by
 * the importer's rule (domain/tenders/FiscalCode.ts); anything else is a 400 naming the field.
 */
export const FiscalCodeInput = Schema.transformOrFail(Text.pipe(Schema.maxLength(40)), Schema.String, {
  strict: true,
  decode: (text, _options, ast) => {
    const digits = normalizeFiscalCode(text)
    return digits === null
      ? ParseResult.fail(
          new ParseResult.Type(ast, text, "must be a Romanian fiscal code: 2-10 digits, optionally prefixed by RO")
        )
      : ParseResult.succeed(digits)
  },
  encode: ParseResult.succeed
}).annotations({
  jsonSchema: {
    type: "string",
    maxLength: 40,
    description: "Romanian fiscal code (CUI): 2-10 digits, with or without RO; spaces, dots and dashes are ignored"
  }
})

/**
 * A company's name and description as every writer takes them: this API and the ops CLI (cli/company.ts,
 * and cli/tenant.ts for a tenant's name). The name is one line; the description is free text, line breaks included.
 */
export const CompanyName = NameText(200)
export const CompanyDescription = composed(Text.pipe(atMostCharacters(10_000)))

export const CreateCompany = Schema.Struct({
  name: CompanyName,
  description: Schema.optionalWith(CompanyDescription, { exact: true }),
  fiscalCode: Schema.optionalWith(Schema.NullOr(FiscalCodeInput), { exact: true }),
  counties: Schema.optionalWith(CountiesInput, { exact: true }).annotations({
    description:
      "Extension: the counties the company works in (Romanian names, diacritics optional); absent or []: inferred from the award history"
  })
})

export const UpdateCompany = Schema.Struct({
  description: Schema.optionalWith(CompanyDescription, { exact: true }),
  name: Schema.optionalWith(CompanyName, { exact: true }),
  fiscalCode: Schema.optionalWith(Schema.NullOr(FiscalCodeInput), { exact: true }).annotations({
    description: "null clears it"
  }),
  counties: Schema.optionalWith(CountiesInput, { exact: true }).annotations({
    description:
      "Extension: the counties the company works in (Romanian names, diacritics optional); [] clears them, and then they are inferred from the award history"
  }),
  active: Schema.optionalWith(Schema.Boolean, { exact: true })
})

const CompanyPath = Schema.Struct({ id: Schema.UUID })

/** Companies of the multi-client workspace (spec 2.9, 4.7; Consultant plan), under /api/v1/companies. */
export class CompaniesApi extends HttpApiGroup.make("companies")
  .add(
    HttpApiEndpoint.get("list", "/")
      .annotate(OpenApi.Summary, "Companies of the workspace")
      .addSuccess(Schema.Struct({ data: Schema.Array(CompanyListItem) }))
      .middleware(WorkspaceReaderAuth)
      .annotate(
        OpenApi.Description,
        "Also answers an API key (read-only, 0 credits): an integrator finds here the `companyId` the key API asks for."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/")
      .annotate(OpenApi.Summary, "Add a client company")
      .setPayload(StrictBody(CreateCompany))
      .addSuccess(Schema.Struct({ data: CompanyDetail }), { status: 201 })
      .middleware(AccessTokenAuth)
      .annotate(
        OpenApi.Description,
        "`name` required (1-200 characters, trimmed); `description` up to 10,000 characters; `fiscalCode` a Romanian fiscal code (stored as digits). The new company is scored against the open tenders (a `company.rescore` job)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/:id")
      .annotate(OpenApi.Summary, "One company with its watchlists")
      .setPath(CompanyPath)
      .addSuccess(Schema.Struct({ data: CompanyDetail }))
      .middleware(WorkspaceReaderAuth)
      .addError(errors(ApiError.CompanyAccessDenied))
      .annotate(
        OpenApi.Description,
        "Also answers an API key (read-only, 0 credits). A company that is not the caller's (or does not exist) is 404 to an access token and 403 COMPANY_ACCESS_DENIED to an API key, as on every key route."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/:id")
      .annotate(OpenApi.Summary, "Change a company's name, description, fiscal code or active flag")
      .setPath(CompanyPath)
      .setPayload(StrictBody(UpdateCompany))
      .addSuccess(Schema.Struct({ data: CompanyDetail }))
      .middleware(AccessTokenAuth)
      .annotate(
        OpenApi.Description,
        "Writable: `name`, `description`, `fiscalCode` (null clears it), `counties` (extension: the counties it works in; [] clears them) and `active`; absent fields stay unchanged. A changed description, fiscal code or counties, or a reactivation, re-scores the company. An inactive company is no longer scored; its scores and watchlists are kept."
      )
  )
  .add(
    HttpApiEndpoint.del("deactivate", "/:id")
      .annotate(OpenApi.Summary, "Deactivate a company (kept, no longer scored)")
      .setPath(CompanyPath)
      .addSuccess(Schema.Struct({ data: CompanyDetail }))
      .middleware(AccessTokenAuth)
      .annotate(
        OpenApi.Description,
        "Sets `active` to false and answers the company; idempotent. Nothing is deleted: PATCH `active: true` reactivates it."
      )
  )
  .addError(errors(ApiError.PlanUpgradeRequired))
  .prefix("/api/v1/companies")
  .annotate(
    OpenApi.Description,
    "Only plans with the multi-client workspace (Consultant); others get 403 PLAN_UPGRADE_REQUIRED. Another account's company, like an unknown one, is 404. Reading (list, one company) takes an access token or an API key; changing takes an access token (an API key gets 401 ACCESS_TOKEN_INVALID: keys are read-only for account data)."
  )
  .annotate(OpenApi.Title, "Account: companies") {}
