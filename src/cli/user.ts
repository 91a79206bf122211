import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { EmailAddress } from "../domain/EmailAddress.js"
import { UsersRepo } from "../infra/accounts/UsersRepo.js"
import { CliFailure, missingSubcommand, printJson, schemaOption, uuidOption } from "./CliSupport.js"

const create = Command.make(
  "create",
  {
    tenant: uuidOption("tenant"),
    email: schemaOption("email", EmailAddress),
    password: Options.text("password")
  },
  ({ tenant, email, password }) =>
    Effect.gen(function* () {
      if (password.length < 8) return yield* new CliFailure({ message: "--password must have at least 8 characters" })
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
