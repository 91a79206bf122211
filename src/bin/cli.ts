import { Command, ValidationError } from "@effect/cli"
import { defaultTeardown } from "@effect/platform/Runtime"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { SqlError } from "@effect/sql"
import { Cause, Console, Effect, Exit, Layer, Logger, LogLevel, Option, Ref } from "effect"
import { apikeyCommand } from "../cli/apikey.js"
import { CliDatabaseLive } from "../cli/CliDatabase.js"
import { CliFailure, InterruptionNote, repeatedOption } from "../cli/CliSupport.js"
import { companyCommand } from "../cli/company.js"
import { creditsCommand } from "../cli/credits.js"
import { demoCommand } from "../cli/demo.js"
import { keysCommand } from "../cli/keys.js"
import { migrateCommand } from "../cli/migrate.js"
import { sourcesCommand } from "../cli/sources.js"
import { tenantCommand } from "../cli/tenant.js"
import { tendersCommand } from "../cli/tenders.js"
import { userCommand } from "../cli/user.js"
import { AppConfigLive, environmentConfig } from "../infra/config/AppConfig.js"
import { migrate } from "../infra/DatabaseSetup.js"
import { sqlFailureLine } from "../infra/db/SqlFailure.js"
import { RepositoriesLive } from "../infra/Repositories.js"

/** Runs a command's work after applying pending migrations, so it also works on a fresh database. */
const schemaFirst = <Name extends string, R, E, A>(command: Command.Command<Name, R, E, A>) =>
  Command.transformHandler(command, (effect) => Effect.zipRight(migrate, effect))

/**
 * The ops CLI (`npm run -s cli -- <command>`: `-s` keeps npm's own lines off stdout). Each command prints
 * exactly one JSON object on stdout; a failure prints one line on stderr and exits 1, an interruption
 * (Ctrl-C) one line and exits 130. Add a command group by adding it to `commands`.
 */
const commands = [
  migrateCommand,
  schemaFirst(tenantCommand),
  schemaFirst(userCommand),
  schemaFirst(companyCommand),
  schemaFirst(apikeyCommand),
  schemaFirst(creditsCommand),
  schemaFirst(demoCommand),
  schemaFirst(tendersCommand),
  schemaFirst(sourcesCommand),
  schemaFirst(keysCommand)
] as const

/** Built only when a command runs (so `--help` needs no database). */
const CliServicesLive = RepositoriesLive.pipe(Layer.provideMerge(CliDatabaseLive), Layer.provideMerge(AppConfigLive))

const root = Command.make("tss", {}, () =>
  Effect.fail(new CliFailure({ message: "Missing command (see --help for the list)" }))
).pipe(Command.withSubcommands(commands), Command.provide(CliServicesLive))

/** One line for the operator: our messages as they are, anything unexpected without a stack trace. */
const describeFailure = (cause: Cause.Cause<unknown>): Option.Option<string> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    // @effect/cli has already printed its own message (usage errors, invalid option values).
    if (ValidationError.isValidationError(error)) return Option.none()
    if (error instanceof SqlError.SqlError) {
      return Option.some(`Database error: ${sqlFailureLine(error)}`)
    }
    if (typeof error === "object" && error !== null && "message" in error && String(error.message) !== "") {
      return Option.some(String(error.message))
    }
    return Option.some(`Failed: ${JSON.stringify(error)}`)
  }
  const defect = Cause.squash(cause)
  // The repositories turn a SqlError into a defect (orDie); PostgreSQL's reason is what the operator acts on.
  if (defect instanceof SqlError.SqlError) return Option.some(`Database error: ${sqlFailureLine(defect)}`)
  return Option.some(`Unexpected error: ${defect instanceof Error ? defect.message : String(defect)}`)
}

const cli = Command.run(root, { name: "tss", version: "0.1.0" })

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escape is the point
const ANSI_STYLE = /\u001b\[[0-9;]*m/g

/**
 * @effect/cli styles its help and usage errors with ANSI codes; a pipe, a file or NO_COLOR gets the
 * plain text instead (each stream is judged on its own), and a usage error is one line on stderr.
 */
const plainWhereNoTerminal = Effect.map(Console.consoleWith(Effect.succeed), (console): Console.Console => {
  const plain = (isTerminal: boolean | undefined) => (args: ReadonlyArray<unknown>) =>
    isTerminal && process.env.NO_COLOR === undefined
      ? args
      : args.map((arg) => (typeof arg === "string" ? arg.replace(ANSI_STYLE, "") : arg))
  const forStdout = plain(process.stdout.isTTY)
  // @effect/cli ends a usage error's text with a newline of its own: one line on stderr, not two.
  const forStderr = (args: ReadonlyArray<unknown>) =>
    plain(process.stderr.isTTY)(args).map((arg) => (typeof arg === "string" ? arg.replace(/\n+$/, "") : arg))
  return {
    ...console,
    log: (...args) => console.log(...forStdout(args)),
    error: (...args) => console.error(...forStderr(args)),
    unsafe: {
      ...console.unsafe,
      log: (...args) => console.unsafe.log(...forStdout(args)),
      error: (...args) => console.unsafe.error(...forStderr(args))
    }
  }
})

/** A command interrupted by Ctrl-C (or SIGTERM) exits as a shell reports a Ctrl-C (128 + SIGINT's 2): never 0. */
const INTERRUPTED_EXIT_CODE = 130

Effect.gen(function* () {
  const console = yield* plainWhereNoTerminal
  const interruption = yield* Ref.make("interrupted")
  const repeated = repeatedOption(process.argv.slice(2))
  if (repeated !== undefined) {
    return yield* new CliFailure({ message: `${repeated} is given more than once: give it once` })
  }
  return yield* cli(process.argv).pipe(
    Effect.provideService(InterruptionNote, interruption),
    Effect.withConsole(console),
    // One line, so an interrupted command never looks like one that finished (nothing on stdout).
    Effect.onInterrupt(() => Effect.flatMap(Ref.get(interruption), (line) => Console.error(line)))
  )
}).pipe(
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.void
      : Option.match(describeFailure(cause), {
          onNone: () => Effect.void,
          onSome: (line) => Console.error(line.replace(/\s*\n\s*/g, " "))
        })
  ),
  // stdout carries only the command's JSON: warnings and errors of the services go to stderr.
  Logger.withMinimumLogLevel(LogLevel.Warning),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.stringLogger))),
  Effect.provide(NodeContext.layer),
  Effect.withConfigProvider(environmentConfig()),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
        ? onExit(INTERRUPTED_EXIT_CODE)
        : defaultTeardown(exit, onExit)
  })
)
