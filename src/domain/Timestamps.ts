import { Schema } from "effect"

/**
 * Instants and days as the API writes them: ISO 8601 strings, documented in the OpenAPI document with
 * their `format` (`date-time`, `date`) so generated clients and validators know them for what they
 * are. The annotations change only the document, not what is accepted or written.
 */

/** An instant already in its wire form (`2026-03-01T09:30:00.000Z`, `2026-12-01T00:00:00+02:00`). */
export const DateTimeString = Schema.String.annotations({ jsonSchema: { type: "string", format: "date-time" } })

/** A calendar day already in its wire form, `YYYY-MM-DD`. */
export const DateString = Schema.String.annotations({ jsonSchema: { type: "string", format: "date" } })

/**
 * An instant that handlers hold as a `Date` and the wire carries as ISO 8601 (Schema.Date, which the
 * document would otherwise call "a string to be decoded into a Date"). One component, `DateTime`.
 */
export const DateTime = Schema.Date.annotations({
  identifier: "DateTime",
  jsonSchema: { type: "string", format: "date-time" }
})
