import { Command, Options } from "@effect/cli"
import { Config, Effect } from "effect"
import { EmailAddress } from "../domain/EmailAddress.js"
import { NewPassword } from "../domain/Password.js"
import { UsersRepo } from "../infra/accounts/UsersRepo.js"
import { CliFailure, decodedOption, missingSubcommand, printJson, schemaOption, uuidOption } from "./CliSupport.js"

/**
 * The password from `--password` or, better (a command line stays in the shell's history and other
 * users of the machine see it in `ps`), from the USER_PASSWORD variable. Login's limit too: a
 * password it refused would lock the user out.
 */
const password = Options.text("password").pipe(
  Options.withFallbackConfig(Config.string("USER_PASSWORD")),
  decodedOption("password", NewPassword),
  Options.withDescription("The user's password (8-1,024 characters); or set USER_PASSWORD")
)

const create = Command.make(
  "create",
  {
    tenant: uuidOption("tenant"),
    email: schemaOption("email", EmailAddress),
    password
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

/** `user create --tenant T --email E --password P` (or USER_PASSWORD=P) → {"userId"} */
export const userCommand = Command.make("user", {}, missingSubcommand("user", ["create"])).pipe(
  Command.withSubcommands([create])
)
