import { ParseResult, Schema } from "effect"
import { ROMANIAN_COUNTIES } from "../domain/tenders/Counties.js"
import { canonicalCounty } from "../domain/tenders/CountyDistance.js"

/**
 * Checks shared by request schemas, for inputs PostgreSQL cannot store: refused at decoding, they are
 * a 400 naming the field instead of a database error (500).
 */

/** A string without U+0000: PostgreSQL `text` cannot hold a NUL character. */
export const Text = Schema.String.pipe(
  Schema.filter((text) => !text.includes("\u0000"), {
    message: () => "must not contain NUL characters (U+0000)",
    jsonSchema: { pattern: "^[^\\u0000]*$" }
  })
)

/**
 * `text`, composed to Unicode NFC once it is checked: "ș" typed as "s" + U+0326 (some keyboards, text
 * pasted from a PDF) becomes the one character the SQL candidate keys fold (migrations 0005 and 0010),
 * so a description or keyword matches the tenders as the scorer reads it. Not for secrets or
 * passwords, which are compared as sent.
 */
export const composed = <I, R>(text: Schema.Schema<string, I, R>) =>
  Schema.transform(text, Schema.String, {
    strict: true,
    decode: (value) => value.normalize("NFC"),
    encode: (value) => value
  })

/**
 * Composed text without surrounding whitespace (trimmed while decoding) and without NUL characters.
 * The trim is the server's: the type side is any string, so the browser's typed client, which checks
 * the type side while encoding, sends "Client SRL " as typed instead of refusing it.
 */
export const TrimmedText = Schema.transform(composed(Text), Schema.String, {
  strict: true,
  decode: (value) => value.trim(),
  encode: (value) => value
})

/** How many characters (Unicode code points) `text` has, counting no further than `max + 1`. */
const charactersUpTo = (text: string, max: number): number => {
  // UTF-16 length bounds the count from above (within it) and, halved, from below (beyond it).
  if (text.length <= max) return text.length
  if (text.length > 2 * (max + 1)) return max + 1
  let count = 0
  for (const _ of text) if (++count > max) break
  return count
}

/**
 * At most `max` characters, counted as people and JSON Schema's `maxLength` count them: an emoji is
 * one character, not the two UTF-16 units `Schema.maxLength` would count.
 */
export const atMostCharacters =
  (max: number) =>
  <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
    self.pipe(
      Schema.filter((text) => charactersUpTo(text, max) <= max, {
        message: () => `must be at most ${max} characters`,
        jsonSchema: { maxLength: max }
      })
    )

/** Trimmed text of 1 to `max` characters: names, keywords. */
export const NonEmptyText = (max: number) =>
  TrimmedText.pipe(Schema.minLength(1, { message: () => "must not be empty" }), atMostCharacters(max))

/** C0 and C1 controls (line feed, carriage return, tab, NUL, DEL, NEL…) and the Unicode line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

/**
 * Text that stays on one line: the rule of every name and label people type (company, tenant,
 * watchlist and API-key names, watchlist keywords). They are written into one-line outputs (the
 * digest's plain text, CSV cells, log lines, the PDF's headings), where a line break typed in a name
 * added lines that read as the output's own. Checked after the trim, so a name pasted with a
 * trailing line break is simply trimmed. Not for free text (a company's description), where line
 * breaks are the writer's.
 */
export const oneLine = <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
  self.pipe(
    Schema.filter((text) => !LINE_BREAKING.test(text), {
      message: () => "must not contain line breaks, tabs or other control characters",
      jsonSchema: { pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$" }
    })
  )

/** A name or label people type: trimmed, composed, 1 to `max` characters, on one line. */
export const NameText = (max: number) => oneLine(NonEmptyText(max))

/**
 * `YYYY-MM-DD` naming a day that exists (no 2026-02-30) in years 0001-9999: PostgreSQL has no year
 * 0000, which JavaScript's Date accepts.
 */
export const isCalendarDate = (text: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || text.startsWith("0000")) return false
  const date = new Date(`${text}T00:00:00Z`)
  // Date rolls a day past the month's end over into the next month; the round trip shows it.
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text)
}

/** What a query integer accepts and what the handler uses when it is absent. */
export interface QueryIntegerSpec {
  readonly minimum: number
  readonly maximum: number
  readonly default: number
  /** The parameter's description in the OpenAPI document. */
  readonly description?: string
  /** Decoding checks only `minimum`: the handler refuses values above `maximum` with its own error code. */
  readonly maximumCheckedByHandler?: boolean
  /** Details worded "must be an integer from 1 to 100" (account API) instead of Schema's default wording (key API). */
  readonly plainMessages?: boolean
}

/**
 * A whole number in a query string (`limit`, `page`, `minScore`). `Schema.NumberFromString` alone is
 * documented as "a string to be decoded into a number", which generated clients type as a string; the
 * `jsonSchema` annotation documents the integer, its bounds and its default instead. It changes only
 * the OpenAPI document, not what decoding accepts or how it words a refusal.
 */
export const QueryInteger = (spec: QueryIntegerSpec): Schema.Schema<number, string> => {
  const { minimum, maximum } = spec
  const description = spec.description === undefined ? {} : { description: spec.description }
  const documented = { jsonSchema: { type: "integer", minimum, maximum, default: spec.default, ...description } }
  // Decimal digits only: `Number` alone also reads "0x10", "1e1", " 10", "+10" and "10.0". Any run
  // of digits is a whole number however long, so one past 2^53 is still "too large", not "not an integer".
  const integer = Schema.String.pipe(
    Schema.pattern(/^-?[0-9]+$/, {
      message: (issue) =>
        spec.plainMessages ? "must be an integer" : `Expected an integer, actual ${JSON.stringify(issue.actual)}`
    }),
    Schema.compose(Schema.NumberFromString)
  )
  if (spec.maximumCheckedByHandler) return integer.pipe(Schema.greaterThanOrEqualTo(minimum)).annotations(documented)
  return integer
    .pipe(
      Schema.between(
        minimum,
        maximum,
        spec.plainMessages ? { message: () => `must be an integer from ${minimum} to ${maximum}` } : undefined
      )
    )
    .annotations(documented)
}

/**
 * A Romanian county (or București) as people write it (`valcea`, `Județul Vâlcea`), decoded to the
 * stored spelling (`Vâlcea`, domain/tenders/CountyDistance.ts); anything else is a 400 naming the field.
 */
export const CountyInput = Schema.transformOrFail(Text.pipe(Schema.maxLength(60)), Schema.String, {
  strict: true,
  decode: (text, _options, ast) => {
    const county = canonicalCounty(text)
    return county === null
      ? ParseResult.fail(new ParseResult.Type(ast, text, "must be one of Romania's 41 counties or București"))
      : ParseResult.succeed(county)
  },
  encode: ParseResult.succeed
}).annotations({
  jsonSchema: { type: "string", maxLength: 60, enum: [...ROMANIAN_COUNTIES] }
})

/**
 * An array of at most `max` items, counted before its items are decoded: `Schema.maxItems` on
 * `Schema.Array(item)` checks after every item is (trimmed, composed, measured), so a 1 MiB body of
 * 100,000 keywords held the event loop ~0.4 s, every tenant's requests waiting, to be refused. The
 * items' encoded side is checked first (a type test, a pattern), so the OpenAPI document is the same.
 */
export const boundedArray = <A, I, R>(item: Schema.Schema<A, I, R>, max: number, noun: string) =>
  Schema.compose(
    Schema.Array(Schema.encodedBoundSchema(item)).pipe(
      Schema.maxItems(max, { message: () => `must list at most ${max} ${noun}` })
    ),
    Schema.Array(item)
  )

/** Distinct counties, at most the 42 there are (repeats are dropped, in the order first named). */
export const CountiesInput = boundedArray(CountyInput, 42, "counties").pipe(
  Schema.transform(Schema.Array(Schema.String), {
    strict: true,
    decode: (counties) => [...new Set(counties)],
    encode: (counties) => counties
  })
)

/**
 * A request body that names only its schema's fields: any other field is a 400 naming it ("is
 * unexpected"), as the OpenAPI document says (`additionalProperties: false`). Ignored, a misspelt
 * optional field (`cpvcodes`) or one the endpoint does not take (`active` on a watchlist PATCH) was
 * answered 200 with nothing of it applied.
 */
export const StrictBody = <S extends Schema.Schema.Any>(schema: S): S =>
  schema.annotations({ parseOptions: { onExcessProperty: "error" } }) as S
