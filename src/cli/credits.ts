import { Command } from "@effect/cli"
import { Effect } from "effect"
import { CreditLedger } from "../infra/billing/CreditLedger.js"
import { CliFailure, integerOption, missingSubcommand, printJson, uuidOption } from "./CliSupport.js"

const set = Command.make(
  "set",
  { tenant: uuidOption("tenant"), remaining: integerOption("remaining") },
  ({ tenant, remaining }) =>
    Effect.gen(function* () {
      if (remaining < 0 || remaining > 2_147_483_647) {
        return yield* new CliFailure({
          message: `--remaining must be an integer from 0 to 2147483647, got ${remaining}`
        })
      }
      const ledger = yield* CreditLedger
      const balance = yield* ledger
        .set({ tenantId: tenant, remaining, reason: "ops adjustment (cli)" })
        .pipe(Effect.catchTag("TenantNotFound", (e) => new CliFailure({ message: `No tenant with id ${e.tenantId}` })))
      yield* printJson({ remaining: balance.remaining })
    })
).pipe(Command.withDescription("Set the current period's credit balance (recorded in the ledger) → {remaining}"))

/** `credits set --tenant T --remaining N` → {"remaining": N} */
export const creditsCommand = Command.make("credits", {}, missingSubcommand("credits", ["set"])).pipe(
  Command.withSubcommands([set])
)
