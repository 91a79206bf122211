import { Command } from "@effect/cli"
import { Effect } from "effect"
import { Plan } from "../domain/Plan.js"
import { CompanyName } from "../http/companies/CompaniesApi.js"
import { TenantsRepo } from "../infra/accounts/TenantsRepo.js"
import { choiceOption, missingSubcommand, printJson, schemaOption } from "./CliSupport.js"

// A tenant is a firm, and no API names one: its name follows the company name's rule (1-200
// characters once trimmed, composed to NFC, one line: no line break or other control character)
// rather than one of its own (the column only refuses a blank name).
const create = Command.make(
  "create",
  { name: schemaOption("name", CompanyName), plan: choiceOption("plan", Plan.literals) },
  ({ name, plan }) =>
    Effect.flatMap(TenantsRepo, (tenants) => tenants.create({ name, plan })).pipe(
      Effect.flatMap((tenant) => printJson({ tenantId: tenant.id }))
    )
).pipe(Command.withDescription("Create a tenant → {tenantId}"))

const list = Command.make("list", {}, () =>
  Effect.flatMap(TenantsRepo, (tenants) => tenants.list).pipe(
    Effect.flatMap((tenants) =>
      printJson({
        tenants: tenants.map((tenant) => ({
          tenantId: tenant.id,
          name: tenant.name,
          plan: tenant.plan,
          createdAt: tenant.createdAt.toISOString(),
          users: tenant.userEmails,
          companies: tenant.companyCount
        }))
      })
    )
  )
).pipe(Command.withDescription("List the tenants, oldest first, with their users → {tenants: [{tenantId, …}]}"))

/** `tenant create --name N --plan free|starter|activ|consultant` → {"tenantId"}; `tenant list` → {"tenants"} */
export const tenantCommand = Command.make("tenant", {}, missingSubcommand("tenant", ["create", "list"])).pipe(
  Command.withSubcommands([create, list])
)
