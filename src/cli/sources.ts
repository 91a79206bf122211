import { Command } from "@effect/cli"
import { Effect } from "effect"
import { IngestState, sourceStatus } from "../infra/ingest/IngestState.js"
import { missingSubcommand, printJson } from "./CliSupport.js"

const status = Command.make("status", {}, () =>
  Effect.flatMap(IngestState, (state) => state.all).pipe(
    Effect.flatMap((sources) => printJson({ sources: sources.map(sourceStatus) }))
  )
).pipe(
  Command.withDescription(
    'The notice sources (TED, SEAP) and their pollers → {"sources":[{"name","enabled","watermark","lastSuccessAt","lastErrorAt","lastError","ingested","skipped"}]}'
  )
)

/** `sources status` → {"sources":[…]} */
export const sourcesCommand = Command.make("sources", {}, missingSubcommand("sources", ["status"])).pipe(
  Command.withSubcommands([status])
)
