import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Console, Context, Data, Effect, ParseResult, type Ref, Schema } from "effect"

/** A failure of an ops command, worded for the operator: printed as one line on stderr. */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly message: string }> {}

/**
 * The line the CLI prints on stderr when Ctrl-C (or SIGTERM) interrupts a command, before it exits
 * 130: "interrupted", unless the command has said what its interruption leaves behind (tenders
 * import: how many tenders it stored, and that their scoring is queued).
 */
export class InterruptionNote extends Context.Tag("InterruptionNote")<InterruptionNote, Ref.Ref<string>>() {}

/**
 * The first option named twice on a command line (`--name a --name b`, `--plan=a --plan b`), before
 * a `--`: none of our options repeats, and @effect/cli reports a repeated one as another option
 * missing or unknown, or prints nothing at all.
 */
export const repeatedOption = (args: ReadonlyArray<string>): string | undefined => {
  const seen = new Set<string>()
  for (const arg of args) {
    if (arg === "--") return undefined
    const name = /^(--[A-Za-z][\w-]*)(?:=|$)/.exec(arg)?.[1]
    if (name === undefined) continue
    if (seen.has(name)) return name
    seen.add(name)
  }
  return undefined
}

/** The one JSON object a successful command prints on stdout. */
export const printJson = (value: object) => Console.log(JSON.stringify(value))

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const invalid = (message: string) => ValidationError.invalidValue(HelpDoc.p(message))

/** A `--name <uuid>` option, checked before it reaches SQL (a malformed id is a usage error, not a SQL error). */
export const uuidOption = (name: string) =>
  Options.text(name).pipe(
    Options.mapEffect((value) =>
      UUID.test(value.trim())
        ? Effect.succeed(value.trim().toLowerCase())
        : Effect.fail(invalid(`--${name} must be a UUID (e.g. 0b6f1c5e-2c1a-4f7e-9a55-3d2b8f0e4a11), got "${value}"`))
    )
  )

/** A text option that must not be blank. */
export const nonEmptyText = (name: string) =>
  Options.text(name).pipe(
    Options.mapEffect((value) =>
      value.trim() === "" ? Effect.fail(invalid(`--${name} must not be empty`)) : Effect.succeed(value.trim())
    )
  )

/**
 * A text option decoded by `schema`, an HTTP API's own (so the CLI stores only what the API would):
 * a refusal names the option with the schema's wording (`--name must be at most 200 characters`).
 */
export const schemaOption = <A>(name: string, schema: Schema.Schema<A, string>) =>
  Options.text(name).pipe(decodedOption(name, schema))

/** Decodes a text option (its fallback's value too) by `schema`, as `schemaOption` does. */
export const decodedOption = <A>(name: string, schema: Schema.Schema<A, string>) =>
  Options.mapEffect((value: string) =>
    Schema.decode(schema)(value).pipe(
      Effect.mapError((error) =>
        invalid(`--${name} ${ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "is not valid"}`)
      )
    )
  )

/** The handler of a command group run without one of its subcommands. */
export const missingSubcommand = (group: string, subcommands: ReadonlyArray<string>) => () =>
  Effect.fail(
    new CliFailure({ message: `Missing subcommand: ${group} ${subcommands.join("|")} (see ${group} --help)` })
  )

/** An integer option whose error names the option (the CLI's own message does not). */
export const integerOption = (name: string) =>
  Options.text(name).pipe(
    Options.mapEffect((value) =>
      /^-?[0-9]+$/.test(value.trim())
        ? Effect.succeed(Number(value.trim()))
        : Effect.fail(invalid(`--${name} must be an integer, got "${value}"`))
    )
  )

/** One of fixed values, with an error naming the option and the choices. */
export const choiceOption = <const A extends string>(name: string, choices: ReadonlyArray<A>) =>
  Options.text(name).pipe(
    Options.mapEffect((value) =>
      (choices as ReadonlyArray<string>).includes(value)
        ? Effect.succeed(value as A)
        : Effect.fail(invalid(`--${name} must be one of ${choices.join(", ")}, got "${value}"`))
    )
  )
