import * as fs from "node:fs/promises"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Either } from "effect"
import { IMPORT_FORMATS, readImport } from "../domain/tenders/formats/ImportFormat.js"
import { escapeControls } from "../infra/observability/JsonLogger.js"
import { JobQueue } from "../infra/queue/JobQueue.js"
import { ScoreTenders } from "../infra/scoring/ScoringJobKinds.js"
import { SCORING_BATCH_SIZE, ScoringService } from "../infra/scoring/ScoringService.js"
import { TENDER_CHUNK_SIZE, TenderStore, type UpsertResult } from "../infra/tenders/TenderStore.js"
import { CliFailure, missingSubcommand, printJson } from "./CliSupport.js"

const readStdin = async (): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks).toString("utf8")
}

const readInput = (file: string) =>
  Effect.tryPromise({
    try: () => (file === "-" ? readStdin() : fs.readFile(file, "utf8")),
    catch: (error) =>
      new CliFailure({ message: `Cannot read ${file === "-" ? "stdin" : file}: ${(error as Error).message}` })
  })

/** A one-line progress bar on stderr, redrawn in place; only when stderr is a terminal and the input is large. */
const progressBar = (total: number) => {
  const enabled = process.stderr.isTTY === true && total > TENDER_CHUNK_SIZE
  return {
    update: (done: number, label: string) => {
      if (!enabled) return
      const width = 30
      const filled = Math.round((done / total) * width)
      process.stderr.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${label}`)
    },
    finish: () => {
      if (enabled) process.stderr.write("\n")
    }
  }
}

const importCommand = Command.make(
  "import",
  {
    file: Args.text({ name: "FILE" }).pipe(Args.withDescription('The file to import; "-" reads stdin')),
    format: Options.choice("format", IMPORT_FORMATS).pipe(
      Options.withDefault("auto" as const),
      Options.withDescription("Input format; auto detects it from the content")
    ),
    queue: Options.boolean("queue").pipe(
      Options.withDescription(
        "Store the tenders and queue their scoring for the workers (tenders.score jobs of at most 250 tenders each)"
      )
    )
  },
  ({ file, format, queue }) =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      const scoring = yield* ScoringService
      const text = yield* readInput(file)
      const catalog = yield* store.cpvCatalog
      // A file no format reads, or invalid as a whole, is refused before anything is stored.
      const read = readImport(text, format, catalog)
      if (Either.isLeft(read)) {
        const name = file === "-" ? "stdin" : file
        const reason = read.left.reason.replace(/\s+/g, " ").slice(0, 500)
        return yield* new CliFailure({
          message: `Cannot import ${name}: tried ${read.left.format}: ${reason}; nothing was written`
        })
      }
      const { tenders, skips } = read.right

      const progress = progressBar(tenders.length)
      const stored: { inserted: Array<string>; updated: Array<string>; failed: Array<UpsertResult["failed"][number]> } =
        { inserted: [], updated: [], failed: [] }
      for (let start = 0; start < tenders.length; start += TENDER_CHUNK_SIZE) {
        const result = yield* store.upsert(tenders.slice(start, start + TENDER_CHUNK_SIZE))
        stored.inserted.push(...result.inserted)
        stored.updated.push(...result.updated)
        stored.failed.push(...result.failed)
        progress.update(Math.min(start + TENDER_CHUNK_SIZE, tenders.length), "tenders stored")
      }
      progress.finish()

      // One line per skip: a reason quotes the file's values, which may hold line breaks.
      for (const skip of skips) yield* Console.error(escapeControls(`skipped ${skip.ref}: ${skip.reason}`))
      for (const { tender, reason } of stored.failed) {
        yield* Console.error(escapeControls(`skipped notice ${tender.source}/${tender.sourceNoticeId}: ${reason}`))
      }

      // Scored once everything is stored, so corpus-wide statistics see the whole file.
      const ids = [...new Set([...stored.inserted, ...stored.updated])]
      const counts = {
        imported: stored.inserted.length,
        updated: stored.updated.length,
        skipped: skips.length + stored.failed.length
      }
      if (queue) {
        // One job per scoring batch, so several workers share a large file (each claims its own).
        const isNew = new Set(stored.inserted)
        const jobs = Array.from({ length: Math.ceil(ids.length / SCORING_BATCH_SIZE) }, (_, i) => {
          const tenderIds = ids.slice(i * SCORING_BATCH_SIZE, (i + 1) * SCORING_BATCH_SIZE)
          return { payload: { tenderIds, isNew: tenderIds.filter((id) => isNew.has(id)) } }
        })
        yield* (yield* JobQueue).enqueueAll(ScoreTenders, jobs)
        return yield* printJson({ ...counts, scored: 0, queued: ids.length })
      }
      const { scored } = ids.length === 0 ? { scored: 0 } : yield* scoring.scoreTenders(ids, { isNew: stored.inserted })
      yield* printJson({ ...counts, scored })
    })
).pipe(
  Command.withDescription(
    'Import tenders (native JSON / JSON-lines / CSV, TED XML, eForms, SICAP) → {"imported","updated","skipped","scored"} (with --queue: scored 0 and "queued", the tenders a worker will score)'
  )
)

/** `tenders import FILE [--format auto|json|csv|ted-xml|eforms|sicap] [--queue]` */
export const tendersCommand = Command.make("tenders", {}, missingSubcommand("tenders", ["import"])).pipe(
  Command.withSubcommands([importCommand])
)
