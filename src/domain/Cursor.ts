import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { Data, Either } from "effect"

/**
 * Pagination cursors: opaque to clients, signed by us, bound to the query that issued them.
 *
 * Wire form: `<base64url(JSON payload)>.<base64url(HMAC-SHA256(secret, payload part))>`.
 * The payload carries the position (the last served row's sort key), the snapshot bound (the
 * PostgreSQL snapshot page 1 was read in, `xmin:xmax:xip,…`; later pages read the score versions
 * that snapshot saw, so scores written, rescored or removed since neither enter, shift nor leave
 * the pages being read), for lists filtered by deadline the instant page 1 told open from closed
 * tenders by (so a deadline passing mid-pagination moves no tender between pages), and a fingerprint
 * of the query's filters, so a cursor only continues the query that produced it.
 */

// 2: the bound became a pg_snapshot (it was a tender ingestion sequence); older cursors are refused.
const VERSION = 2

export interface CursorPosition {
  /** The sort key of the last served row, in sort-key order. */
  readonly key: ReadonlyArray<string | number>
  /** The snapshot of page 1 as pg_snapshot text (`xmin:xmax:xip1,xip2,…`). */
  readonly bound: string
  /** The instant (epoch milliseconds) page 1 separated open from closed tenders at, when the list filters by it. */
  readonly asOf?: number
}

export type InvalidCursorReason = "malformed" | "signature" | "query_mismatch"

export class InvalidCursor extends Data.TaggedError("InvalidCursor")<{ readonly reason: InvalidCursorReason }> {}

/** A short digest of what a cursor is bound to, e.g. `["tenders", companyId, minScore]`. */
export const queryFingerprint = (parts: ReadonlyArray<string | number>): string =>
  createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 22)

const sign = (secret: Uint8Array, body: string) => createHmac("sha256", secret).update(body).digest()

export const encodeCursor = (secret: Uint8Array, query: string, position: CursorPosition): string => {
  const body = Buffer.from(
    JSON.stringify({
      v: VERSION,
      q: query,
      k: position.key,
      b: position.bound,
      ...(position.asOf === undefined ? {} : { t: position.asOf })
    }),
    "utf8"
  ).toString("base64url")
  return `${body}.${sign(secret, body).toString("base64url")}`
}

const SNAPSHOT_TEXT = /^\d{1,20}:\d{1,20}:(\d{1,20}(,\d{1,20})*)?$/

const isKeyPart = (x: unknown): x is string | number => typeof x === "string" || typeof x === "number"

export const decodeCursor = (
  secret: Uint8Array,
  query: string,
  cursor: string
): Either.Either<CursorPosition, InvalidCursor> => {
  const parts = cursor.split(".")
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") {
    return Either.left(new InvalidCursor({ reason: "malformed" }))
  }
  const [body, signature] = parts as [string, string]
  const presented = Buffer.from(signature, "base64url")
  const expected = sign(secret, body)
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    return Either.left(new InvalidCursor({ reason: "signature" }))
  }
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
  } catch {
    return Either.left(new InvalidCursor({ reason: "malformed" }))
  }
  const p = payload as { v?: unknown; q?: unknown; k?: unknown; b?: unknown; t?: unknown }
  if (
    p.v !== VERSION ||
    !Array.isArray(p.k) ||
    !p.k.every(isKeyPart) ||
    typeof p.b !== "string" ||
    !SNAPSHOT_TEXT.test(p.b) ||
    (p.t !== undefined && !(Number.isSafeInteger(p.t) && (p.t as number) >= 0))
  ) {
    return Either.left(new InvalidCursor({ reason: "malformed" }))
  }
  if (p.q !== query) return Either.left(new InvalidCursor({ reason: "query_mismatch" }))
  return Either.right({ key: p.k, bound: p.b, ...(typeof p.t === "number" ? { asOf: p.t } : {}) })
}
