import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { normalizeFiscalCode } from "../domain/tenders/FiscalCode.js"
import { CompaniesRepo } from "../infra/accounts/CompaniesRepo.js"
import { CliFailure, missingSubcommand, nonEmptyText, printJson, uuidOption } from "./CliSupport.js"

const create = Command.make(
  "create",
  {
    tenant: uuidOption("tenant"),
    name: nonEmptyText("name"),
    description: Options.text("description").pipe(Options.withDefault("")),
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
          description: description.trim(),
          fiscalCode: Option.getOrNull(Option.flatMapNullable(normalized, (n) => n.code))
        })
        .pipe(Effect.catchTag("TenantNotFound", (e) => new CliFailure({ message: `No tenant with id ${e.tenantId}` })))
      yield* printJson({ companyId: company.id })
    })
).pipe(Command.withDescription("Create a company of a tenant → {companyId}"))

const update = Command.make(
  "update",
  {
    id: uuidOption("id"),
    name: nonEmptyText("name").pipe(Options.optional),
    description: Options.text("description").pipe(Options.optional),
    fiscalCode: Options.text("fiscal-code").pipe(
      Options.withDescription('The new fiscal code; "" removes it'),
      Options.optional
    )
  },
  ({ id, name, description, fiscalCode }) =>
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
      const companies = yield* CompaniesRepo
      const company = yield* companies
        .update({
          id,
          ...(Option.isSome(name) ? { name: name.value } : {}),
          ...(Option.isSome(description) ? { description: description.value.trim() } : {}),
          ...(code === undefined ? {} : { fiscalCode: code })
        })
        .pipe(Effect.catchTag("CompanyNotFound", (e) => new CliFailure({ message: `No company with id ${e.id}` })))
      yield* printJson({ companyId: company.id, description: company.description, fiscalCode: company.fiscalCode })
    })
).pipe(
  Command.withDescription(
    "Change a company's name, description or fiscal code → {companyId, description, fiscalCode}; a new description or fiscal code rescores its open tenders"
  )
)

/**
 * `company create --tenant T --name N [--description D] [--fiscal-code CUI]` → {"companyId"};
 * `company update --id C [--name N] [--description D] [--fiscal-code CUI]`.
 */
export const companyCommand = Command.make("company", {}, missingSubcommand("company", ["create", "update"])).pipe(
  Command.withSubcommands([create, update])
)
