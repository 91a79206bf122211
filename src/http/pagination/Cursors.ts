import { Effect, Either, Option, Redacted } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { type CursorPosition, decodeCursor, encodeCursor } from "../../domain/Cursor.js"
import { Secrets } from "../../infra/config/LocalSecrets.js"

const messages = {
  malformed: "The cursor is not one this API issued",
  signature: "The cursor is not one this API issued",
  query_mismatch: "The cursor belongs to a different query; send the same filters as for the first page"
} as const

const invalidCursor = (message: string = messages.malformed) =>
  new ApiError.InvalidCursor({ message, details: [{ path: "cursor", message }] })

/**
 * Where a page resumes: after the row `after` (none on page 1), within the snapshot `bound` and, for
 * lists filtered by deadline, as of the instant `asOf` (both fixed by page 1).
 */
export interface Resumption<Position> {
  readonly after: Option.Option<Position>
  readonly bound: string | undefined
  readonly asOf: number | undefined
}

/** Cursor codec bound to the process's signing secret; failures are 400 INVALID_CURSOR. */
export const makeCursors = Effect.map(Secrets, ({ cursorSecret }) => {
  const secret = Redacted.value(cursorSecret)
  const decode = (query: string, cursor: string) =>
    Either.match(decodeCursor(secret, query, cursor), {
      onLeft: (error) => Effect.fail(invalidCursor(messages[error.reason])),
      onRight: Effect.succeed
    })
  return {
    encode: (query: string, position: CursorPosition) => encodeCursor(secret, query, position),
    /** Reads the optional `cursor` of a request; `readKey` turns its sort key into the listing's position. */
    resume: <Position>(
      query: string,
      cursor: string | undefined,
      readKey: (key: CursorPosition["key"]) => Option.Option<Position>
    ): Effect.Effect<Resumption<Position>, ApiError.InvalidCursor> => {
      if (cursor === undefined) return Effect.succeed({ after: Option.none(), bound: undefined, asOf: undefined })
      return Effect.flatMap(decode(query, cursor), (position) => {
        const after = readKey(position.key)
        return Option.isNone(after)
          ? Effect.fail(invalidCursor())
          : Effect.succeed({ after, bound: position.bound, asOf: position.asOf })
      })
    }
  }
})
