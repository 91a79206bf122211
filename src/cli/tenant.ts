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

/** `tenant create --name N --plan free|starter|activ|consultant` → {"tenantId"} */
export const tenantCommand = Command.make("tenant", {}, missingSubcommand("tenant", ["create"])).pipe(
  Command.withSubcommands([create])
)
