import { Command, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { SqlError } from "@effect/sql"
import { Cause, Console, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { apikeyCommand } from "../cli/apikey.js"
import { CliFailure } from "../cli/CliSupport.js"
import { companyCommand } from "../cli/company.js"
import { creditsCommand } from "../cli/credits.js"
import { demoCommand } from "../cli/demo.js"
import { keysCommand } from "../cli/keys.js"
import { migrateCommand } from "../cli/migrate.js"
import { sourcesCommand } from "../cli/sources.js"
import { tenantCommand } from "../cli/tenant.js"
import { tendersCommand } from "../cli/tenders.js"
import { userCommand } from "../cli/user.js"
import { AppConfig, AppConfigLive, environmentConfig } from "../infra/config/AppConfig.js"
import { migrate } from "../infra/DatabaseSetup.js"
import { DatabaseLive, EMBEDDED_DATABASE } from "../infra/db/Database.js"
import { runningEmbeddedPostgres } from "../infra/db/EmbeddedPostgres.js"
import { PgLive } from "../infra/db/PgPool.js"
import { sqlFailureLine } from "../infra/db/SqlFailure.js"
import { RepositoriesLive } from "../infra/Repositories.js"

/** Runs a command's work after applying pending migrations, so it also works on a fresh database. */
const schemaFirst = <Name extends string, R, E, A>(command: Command.Command<Name, R, E, A>) =>
  Command.transformHandler(command, (effect) => Effect.zipRight(migrate, effect))

/**
 * The ops CLI (`npm run cli -- <command>`). Each command prints exactly one JSON object on stdout;
 * a failure prints one line on stderr and exits 1. Add a command group by adding it to `commands`.
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

/**
 * The database of the processes: DATABASE_URL, else the embedded cluster under DATA_DIR. When
 * `npm start` already runs that cluster, the CLI connects to it instead of starting a second one.
 */
const CliDatabaseLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) return DatabaseLive
    const running = yield* runningEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      database: EMBEDDED_DATABASE
    })
    return Option.match(running, {
      onNone: () => DatabaseLive,
      onSome: (url) => PgLive({ url, maxConnections: 4, applicationName: "tender-scoring-cli" })
    })
  })
)

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

Effect.flatMap(plainWhereNoTerminal, (console) => Effect.withConsole(cli(process.argv), console)).pipe(
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
  NodeRuntime.runMain({ disableErrorReporting: true })
)
