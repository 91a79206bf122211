import { Command } from "@effect/cli"
import { Effect } from "effect"
import { seedDemoAndScore } from "../demo/seedDemo.js"
import { CliFailure, missingSubcommand, printJson } from "./CliSupport.js"

const seed = Command.make("seed", {}, () =>
  seedDemoAndScore.pipe(
    Effect.catchTag("EmailTaken", (e) =>
      Effect.fail(new CliFailure({ message: `The demo data is already seeded (the user ${e.email} exists)` }))
    ),
    Effect.flatMap(({ tenantId, email, password, apiKey, companyIds }) =>
      printJson({ tenantId, email, password, apiKey, companyIds })
    )
  )
).pipe(Command.withDescription("Seed the demo tenant, user, companies, API key and tenders"))

/** `demo seed` → {"tenantId","email","password","apiKey","companyIds":[...]} */
export const demoCommand = Command.make("demo", {}, missingSubcommand("demo", ["seed"])).pipe(
  Command.withSubcommands([seed])
)
