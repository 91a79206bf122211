import { Command } from "@effect/cli"
import { Effect } from "effect"
import { Plan } from "../domain/Plan.js"
import { TenantsRepo } from "../infra/accounts/TenantsRepo.js"
import { choiceOption, missingSubcommand, nonEmptyText, printJson } from "./CliSupport.js"

const create = Command.make(
  "create",
  { name: nonEmptyText("name"), plan: choiceOption("plan", Plan.literals) },
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
