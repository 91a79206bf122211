import * as fs from "node:fs/promises"
import { Args, Command, Options } from "@effect/cli"
import { SqlError } from "@effect/sql"
import { Cause, Console, Effect, Either, Exit, Option, Ref } from "effect"
import { decodeFile, FILE_ENCODINGS, type FileEncoding } from "../domain/tenders/formats/FileEncoding.js"
import { IMPORT_FORMATS, readImport } from "../domain/tenders/formats/ImportFormat.js"
import { sqlFailureLine } from "../infra/db/SqlFailure.js"
import { escapeControls } from "../infra/observability/JsonLogger.js"
import { JobQueue } from "../infra/queue/JobQueue.js"
import { ScoreTenders } from "../infra/scoring/ScoringJobKinds.js"
import { SCORING_BATCH_SIZE, ScoringService } from "../infra/scoring/ScoringService.js"
import { TENDER_CHUNK_SIZE, TenderStore, type UpsertResult } from "../infra/tenders/TenderStore.js"
import { CliFailure, choiceOption, InterruptionNote, missingSubcommand, printJson } from "./CliSupport.js"

const readStdin = async (): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

const inputName = (file: string) => (file === "-" ? "stdin" : file)

/**
 * The file's text: its bytes (stdin's too) go through the one decoding step every format shares, so a
 * file that is not in its encoding is refused before anything is stored, never read with U+FFFD.
 */
const readInput = (file: string, encoding: Option.Option<FileEncoding>) =>
  Effect.tryPromise({
    try: () => (file === "-" ? readStdin() : fs.readFile(file)),
    catch: (error) => new CliFailure({ message: `Cannot read ${inputName(file)}: ${(error as Error).message}` })
  }).pipe(
    Effect.flatMap((bytes) =>
      Either.match(decodeFile(bytes, Option.getOrUndefined(encoding)), {
        onLeft: (reason) =>
          Effect.fail(new CliFailure({ message: `Cannot import ${inputName(file)}: ${reason}; nothing was written` })),
        onRight: ({ text }) => Effect.succeed(text)
      })
    )
  )

/** A one-line progress bar on stderr, redrawn in place; only when stderr is a terminal and the input is large. */
const progressBar = (total: number) => {
  let enabled = process.stderr.isTTY === true && total > TENDER_CHUNK_SIZE
  return {
    update: (done: number, label: string) => {
      if (!enabled) return
      const width = 30
      const filled = Math.round((done / total) * width)
      process.stderr.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${label}`)
    },
    /** Ends the bar's line (once: an interruption finishes it too). */
    finish: () => {
      if (enabled) process.stderr.write("\n")
      enabled = false
    }
  }
}

/**
 * The tenders.score jobs that score `ids` (those in `inserted` as new: they may alert): one per scoring
 * batch, so several workers share a large file (each claims its own).
 */
const scoringJobs = (ids: ReadonlyArray<string>, inserted: ReadonlyArray<string>) => {
  const isNew = new Set(inserted)
  return Array.from({ length: Math.ceil(ids.length / SCORING_BATCH_SIZE) }, (_, i) => {
    const tenderIds = ids.slice(i * SCORING_BATCH_SIZE, (i + 1) * SCORING_BATCH_SIZE)
    return { payload: { tenderIds, isNew: tenderIds.filter((id) => isNew.has(id)) } }
  })
}

/** One line on why the database refused (no stack trace). */
const reasonOf = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  if (error instanceof SqlError.SqlError) return sqlFailureLine(error)
  return error instanceof Error ? error.message : String(error)
}

const importCommand = Command.make(
  "import",
  {
    file: Args.text({ name: "FILE" }).pipe(Args.withDescription('The file to import; "-" reads stdin')),
    format: choiceOption("format", IMPORT_FORMATS).pipe(
      Options.withDefault("auto" as const),
      Options.withDescription("Input format; auto detects it from the content")
    ),
    encoding: choiceOption("encoding", FILE_ENCODINGS).pipe(
      Options.optional,
      Options.withDescription(
        "The file's character encoding (default: what an XML file declares, else utf-8); windows-1250 for a CSV saved by Excel on a Romanian Windows"
      )
    ),
    queue: Options.boolean("queue").pipe(
      Options.withDescription(
        "Store the tenders and queue their scoring for the workers (tenders.score jobs of at most 250 tenders each)"
      )
    )
  },
  ({ encoding, file, format, queue }) =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      const scoring = yield* ScoringService
      const text = yield* readInput(file, encoding)
      const catalog = yield* store.cpvCatalog
      // A file no format reads, or invalid as a whole, is refused before anything is stored.
      const read = readImport(text, format, catalog)
      if (Either.isLeft(read)) {
        const reason = read.left.reason.replace(/\s+/g, " ").slice(0, 500)
        return yield* new CliFailure({
          message: `Cannot import ${inputName(file)}: tried ${read.left.format}: ${reason}; nothing was written`
        })
      }
      const { tenders, cancelled, skips } = read.right

      const progress = progressBar(tenders.length)
      const stored: { inserted: Array<string>; updated: Array<string>; failed: Array<UpsertResult["failed"][number]> } =
        { inserted: [], updated: [], failed: [] }
      const storedIds = () => [...new Set([...stored.inserted, ...stored.updated])]
      const jobQueue = yield* JobQueue
      const queueScoring = (ids: ReadonlyArray<string>) =>
        jobQueue.enqueueAll(ScoreTenders, scoringJobs(ids, stored.inserted))
      // An interruption before the stored tenders are scored (or their scoring queued) queues their
      // scoring, so they are scored and the new ones alert all the same: a re-run finds them stored
      // and counts them as updated, which never alert.
      let scoringOfStored: "pending" | "queued" | "done" = "pending"
      const interruption = yield* InterruptionNote

      return yield* Effect.gen(function* () {
        for (let start = 0; start < tenders.length; start += TENDER_CHUNK_SIZE) {
          // A chunk in flight is finished and counted before an interruption takes effect (below a second).
          yield* store.upsert(tenders.slice(start, start + TENDER_CHUNK_SIZE)).pipe(
            Effect.tap((result) => {
              stored.inserted.push(...result.inserted)
              stored.updated.push(...result.updated)
              stored.failed.push(...result.failed)
            }),
            Effect.uninterruptible
          )
          progress.update(Math.min(start + TENDER_CHUNK_SIZE, tenders.length), "tenders stored")
        }
        progress.finish()
        // A notice that cancels its procedure closes its tender (stored above, or before), before it is
        // scored: a closed tender alerts nobody.
        if (cancelled.length > 0) {
          yield* store.resolveVersions(cancelled).pipe(
            Effect.flatMap(store.tenderIds),
            Effect.flatMap((ids) => store.closeCancelled([...ids.values()])),
            Effect.uninterruptible
          )
        }

        // One line per skip: a reason quotes the file's values, which may hold line breaks.
        for (const skip of skips) yield* Console.error(escapeControls(`skipped ${skip.ref}: ${skip.reason}`))
        for (const { tender, reason } of stored.failed) {
          yield* Console.error(escapeControls(`skipped notice ${tender.source}/${tender.sourceNoticeId}: ${reason}`))
        }

        // Scored once everything is stored, so corpus-wide statistics see the whole file.
        const ids = storedIds()
        const counts = {
          imported: stored.inserted.length,
          updated: stored.updated.length,
          skipped: skips.length + stored.failed.length
        }
        if (queue) {
          yield* queueScoring(ids).pipe(
            Effect.tap(() => {
              scoringOfStored = "queued"
            }),
            Effect.uninterruptible
          )
          return yield* printJson({ ...counts, scored: 0, queued: ids.length })
        }
        const { scored } =
          ids.length === 0 ? { scored: 0 } : yield* scoring.scoreTenders(ids, { isNew: stored.inserted })
        scoringOfStored = "done"
        yield* printJson({ ...counts, scored })
      }).pipe(
        Effect.onInterrupt(() =>
          Effect.gen(function* () {
            progress.finish()
            const ids = storedIds()
            const done = `interrupted: ${ids.length} of ${tenders.length} tenders stored`
            if (ids.length === 0 || scoringOfStored === "done") return yield* Ref.set(interruption, done)
            // Scoring them here would hold the operator's Ctrl-C for minutes: the workers score them.
            const queued =
              scoringOfStored === "queued" ? Exit.void : yield* Effect.exit(Effect.asVoid(queueScoring(ids)))
            yield* Ref.set(
              interruption,
              Exit.match(queued, {
                onSuccess: () => `${done}; their scoring is queued for the workers`,
                onFailure: (cause) =>
                  `${done}; queueing their scoring failed, so they are not scored: ${reasonOf(cause)}`
              })
            )
          })
        )
      )
    })
).pipe(
  Command.withDescription(
    'Import tenders (native JSON / JSON-lines / CSV, TED XML, eForms, SICAP) → {"imported","updated","skipped","scored"} (with --queue: scored 0 and "queued", the tenders a worker will score)'
  )
)

/** `tenders import FILE [--format auto|json|csv|ted-xml|eforms|sicap] [--encoding utf-8|windows-1250|iso-8859-2] [--queue]` */
export const tendersCommand = Command.make("tenders", {}, missingSubcommand("tenders", ["import"])).pipe(
  Command.withSubcommands([importCommand])
)
