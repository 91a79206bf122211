import { Command } from "@effect/cli"
import { Effect } from "effect"
import { migrate } from "../infra/DatabaseSetup.js"
import { printJson } from "./CliSupport.js"

/** `migrate` → {"applied": [file names applied by this run]} (empty when the schema is current). */
export const migrateCommand = Command.make("migrate", {}, () =>
  Effect.flatMap(migrate, (applied) => printJson({ applied }))
).pipe(Command.withDescription("Apply the pending SQL migrations and load the CPV table"))
