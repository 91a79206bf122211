import { Command } from "@effect/cli"
import { Effect } from "effect"
import { makeSourceReports } from "../infra/ingest/NoticeJobs.js"
import { missingSubcommand, printJson } from "./CliSupport.js"

const status = Command.make("status", {}, () =>
  Effect.flatMap(Effect.flatten(makeSourceReports), (sources) => printJson({ sources }))
).pipe(
  Command.withDescription(
    'The notice sources (TED, SEAP) and their pollers → {"sources":[{"name","enabled","watermark","lastSuccessAt","lastErrorAt","lastError","ingested","skipped","retryingNotices","lostNotices"}]}; retryingNotices / lostNotices: notices whose failed read is still retried / was dead-lettered'
  )
)

/** `sources status` → {"sources":[…]} */
export const sourcesCommand = Command.make("sources", {}, missingSubcommand("sources", ["status"])).pipe(
  Command.withSubcommands([status])
)
