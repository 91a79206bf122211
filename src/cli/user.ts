import { Command } from "@effect/cli"
import { Effect } from "effect"
import { EmailAddress } from "../domain/EmailAddress.js"
import { NewPassword } from "../domain/Password.js"
import { UsersRepo } from "../infra/accounts/UsersRepo.js"
import { CliFailure, missingSubcommand, printJson, schemaOption, uuidOption } from "./CliSupport.js"

const create = Command.make(
  "create",
  {
    tenant: uuidOption("tenant"),
    email: schemaOption("email", EmailAddress),
    // Login's limit too: a password it refused would lock the user out.
    password: schemaOption("password", NewPassword)
  },
  ({ tenant, email, password }) =>
    Effect.gen(function* () {
      const users = yield* UsersRepo
      const user = yield* users.create({ tenantId: tenant, email, password }).pipe(
        Effect.catchTags({
          EmailTaken: (e) => new CliFailure({ message: `A user with the e-mail ${e.email} already exists` }),
          TenantNotFound: (e) => new CliFailure({ message: `No tenant with id ${e.tenantId}` })
        })
      )
      yield* printJson({ userId: user.id })
    })
).pipe(Command.withDescription("Create a user of a tenant → {userId}"))

/** `user create --tenant T --email E --password P` → {"userId"} */
export const userCommand = Command.make("user", {}, missingSubcommand("user", ["create"])).pipe(
  Command.withSubcommands([create])
)
