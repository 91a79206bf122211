import { createHmac, randomBytes } from "node:crypto"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { decodeCursor, encodeCursor, InvalidCursor, queryFingerprint } from "../../src/domain/Cursor.js"

/** The instant a cursor carries for lists filtered by deadline (issue 20). */

const secret = randomBytes(32)
const query = queryFingerprint(["tenders", "c", 0, "open"])
const bound = "100:105:101,102"

/** A cursor signed with the secret whose payload is `payload`, as a forger holding the secret would write it. */
const signed = (payload: unknown) => {
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url")
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`
}

describe("cursor: the as-of instant", () => {
  it("round-trips when given and stays absent otherwise", () => {
    const at = Date.parse("2026-11-25T06:00:00.123Z")
    const withInstant = encodeCursor(secret, query, { key: [90, "k", "id"], bound, asOf: at })
    expect(decodeCursor(secret, query, withInstant)).toEqual(Either.right({ key: [90, "k", "id"], bound, asOf: at }))
    const without = encodeCursor(secret, query, { key: [90, "k", "id"], bound })
    expect(decodeCursor(secret, query, without)).toEqual(Either.right({ key: [90, "k", "id"], bound }))
  })

  it.each([[-1], [1.5], ["1700000000000"], [null], [Number.MAX_SAFE_INTEGER + 2]])("refuses t=%j as malformed", (t) => {
    const cursor = signed({ v: 2, q: query, k: [90, "k", "id"], b: bound, t })
    expect(decodeCursor(secret, query, cursor)).toEqual(Either.left(new InvalidCursor({ reason: "malformed" })))
  })
})
