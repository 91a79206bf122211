import { Effect, Either, Redacted } from "effect"
import { type CursorPosition, decodeCursor, encodeCursor } from "../../domain/Cursor.js"
import { Secrets } from "../../infra/auth/LocalSecrets.js"
import { BadRequest } from "../ApiErrors.js"

const messages = {
  malformed: "The cursor is not one this API issued",
  signature: "The cursor is not one this API issued",
  query_mismatch: "The cursor belongs to a different query; send the same filters as for the first page"
} as const

/** Cursor codec bound to the process's signing secret; failures are 400 INVALID_CURSOR. */
export const makeCursors = Effect.map(Secrets, ({ cursorSecret }) => {
  const secret = Redacted.value(cursorSecret)
  return {
    encode: (query: string, position: CursorPosition) => encodeCursor(secret, query, position),
    decode: (query: string, cursor: string) =>
      Either.match(decodeCursor(secret, query, cursor), {
        onLeft: (error) => Effect.fail(invalidCursor(messages[error.reason])),
        onRight: Effect.succeed
      })
  }
})

export const invalidCursor = (message: string = messages.malformed) =>
  new BadRequest({ code: "INVALID_CURSOR", message, details: [{ path: "cursor", message }] })
