import { Command, Options } from "@effect/cli"
import { Effect, Option, Schema } from "effect"
import { canonicalCounty } from "../domain/tenders/CountyDistance.js"
import { normalizeFiscalCode } from "../domain/tenders/FiscalCode.js"
import { CompanyDescription, CompanyName } from "../http/companies/CompaniesApi.js"
import { CompaniesRepo } from "../infra/accounts/CompaniesRepo.js"
import { CliFailure, missingSubcommand, printJson, schemaOption, uuidOption } from "./CliSupport.js"

// The account API's rules (name 1-200 characters, trimmed, one line; description up to 10,000; both
// composed to NFC, no NUL): the CLI writes the same rows. A description is trimmed too, as the CLI always did.
const nameOption = schemaOption("name", CompanyName)
const descriptionOption = schemaOption("description", Schema.compose(Schema.Trim, CompanyDescription))

const create = Command.make(
  "create",
  {
    tenant: uuidOption("tenant"),
    name: nameOption,
    description: descriptionOption.pipe(Options.withDefault("")),
    fiscalCode: Options.text("fiscal-code").pipe(Options.optional)
  },
  ({ tenant, name, description, fiscalCode }) =>
    Effect.gen(function* () {
      const normalized = Option.map(fiscalCode, (input) => ({ input, code: normalizeFiscalCode(input) }))
      if (Option.isSome(normalized) && normalized.value.code === null) {
        return yield* new CliFailure({
          message: `--fiscal-code is not a Romanian fiscal code (CUI: 2-10 digits, optional RO prefix): "${normalized.value.input}"`
        })
      }
      const companies = yield* CompaniesRepo
      const company = yield* companies
        .create({
          tenantId: tenant,
          name,
          description,
          fiscalCode: Option.getOrNull(Option.flatMapNullable(normalized, (n) => n.code))
        })
        .pipe(Effect.catchTag("TenantNotFound", (e) => new CliFailure({ message: `No tenant with id ${e.tenantId}` })))
      yield* printJson({ companyId: company.id })
    })
).pipe(Command.withDescription("Create a company of a tenant → {companyId}"))

/** Comma-separated county names → their canonical names, distinct, in the order given; "" → []. */
const parseCounties = (input: string) =>
  Effect.gen(function* () {
    const names = input
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "")
    const counties: Array<string> = []
    for (const name of names) {
      const county = canonicalCounty(name)
      if (county === null) {
        return yield* new CliFailure({
          message: `--counties: "${name}" is not one of Romania's 41 counties or București`
        })
      }
      if (!counties.includes(county)) counties.push(county)
    }
    return counties
  })

const update = Command.make(
  "update",
  {
    id: uuidOption("id"),
    name: nameOption.pipe(Options.optional),
    description: descriptionOption.pipe(Options.optional),
    fiscalCode: Options.text("fiscal-code").pipe(
      Options.withDescription('The new fiscal code; "" removes it'),
      Options.optional
    ),
    counties: Options.text("counties").pipe(
      Options.withDescription(
        'The counties it works in, comma-separated (Romanian names, diacritics optional); "" clears them (then inferred from its awards)'
      ),
      Options.optional
    )
  },
  ({ id, name, description, fiscalCode, counties }) =>
    Effect.gen(function* () {
      let code: string | null | undefined
      if (Option.isSome(fiscalCode)) {
        const input = fiscalCode.value.trim()
        code = input === "" ? null : normalizeFiscalCode(input)
        if (input !== "" && code === null) {
          return yield* new CliFailure({
            message: `--fiscal-code is not a Romanian fiscal code (CUI: 2-10 digits, optional RO prefix): "${input}"`
          })
        }
      }
      const countyList = Option.isSome(counties) ? yield* parseCounties(counties.value) : undefined
      const companies = yield* CompaniesRepo
      const company = yield* companies
        .update({
          id,
          ...(Option.isSome(name) ? { name: name.value } : {}),
          ...(Option.isSome(description) ? { description: description.value } : {}),
          ...(code === undefined ? {} : { fiscalCode: code }),
          ...(countyList === undefined ? {} : { counties: countyList })
        })
        .pipe(Effect.catchTag("CompanyNotFound", (e) => new CliFailure({ message: `No company with id ${e.id}` })))
      yield* printJson({
        companyId: company.id,
        description: company.description,
        fiscalCode: company.fiscalCode,
        counties: company.counties
      })
    })
).pipe(
  Command.withDescription(
    "Change a company's name, description, fiscal code or counties → {companyId, description, fiscalCode, counties}; a new description, fiscal code or counties rescores its open tenders"
  )
)

/**
 * `company create --tenant T --name N [--description D] [--fiscal-code CUI]` → {"companyId"};
 * `company update --id C [--name N] [--description D] [--fiscal-code CUI] [--counties "Cluj, Bihor"]`.
 */
export const companyCommand = Command.make("company", {}, missingSubcommand("company", ["create", "update"])).pipe(
  Command.withSubcommands([create, update])
)
