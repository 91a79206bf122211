import { createHmac, timingSafeEqual } from "node:crypto"
import { Clock, Data, Duration, Effect } from "effect"

/**
 * Access tokens of the browser app: `at1.<payload>.<signature>`, both parts base64url, the
 * signature an HMAC-SHA256 over `at1.<payload>`. The payload names the user, tenant and login
 * session and the expiry (Unix milliseconds). Stateless to verify; the session is still checked
 * per request so logout takes effect at once.
 */

export const ACCESS_TOKEN_TTL = Duration.minutes(15)

const VERSION = "at1"

export interface AccessClaims {
  readonly userId: string
  readonly tenantId: string
  readonly sessionId: string
  /** Unix milliseconds. */
  readonly expiresAt: number
}

/** Signature or shape wrong: not a token we issued. */
export class AccessTokenMalformed extends Data.TaggedError("AccessTokenMalformed")<{}> {}

/** A genuine token past its expiry. */
export class AccessTokenExpired extends Data.TaggedError("AccessTokenExpired")<{ readonly expiredAt: number }> {}

const sign = (key: Uint8Array, signed: string) => createHmac("sha256", key).update(signed, "utf8").digest()

/** Pure: the token for these claims (equal claims give the equal token). */
export const encodeAccessToken = (key: Uint8Array, claims: AccessClaims): string => {
  const payload = Buffer.from(
    JSON.stringify({ sub: claims.userId, tid: claims.tenantId, sid: claims.sessionId, exp: claims.expiresAt }),
    "utf8"
  ).toString("base64url")
  const signed = `${VERSION}.${payload}`
  return `${signed}.${sign(key, signed).toString("base64url")}`
}

/** A token issued at `issuedAt` (Unix ms), valid for ACCESS_TOKEN_TTL. */
export const accessTokenIssuedAt = (
  key: Uint8Array,
  subject: Omit<AccessClaims, "expiresAt">,
  issuedAt: number
): string => encodeAccessToken(key, { ...subject, expiresAt: issuedAt + Duration.toMillis(ACCESS_TOKEN_TTL) })

/** A token issued now, by the Effect Clock. */
export const issueAccessToken = (key: Uint8Array, subject: Omit<AccessClaims, "expiresAt">) =>
  Effect.map(Clock.currentTimeMillis, (now) => accessTokenIssuedAt(key, subject, now))

const isUuid = (value: unknown): value is string =>
  typeof value === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)

/** Pure: the claims of a token with a valid signature, whatever its expiry. */
export const decodeAccessToken = (key: Uint8Array, token: string): AccessClaims | undefined => {
  const parts = token.split(".")
  if (parts.length !== 3 || parts[0] !== VERSION) return undefined
  const expected = sign(key, `${parts[0]}.${parts[1]}`)
  const given = Buffer.from(parts[2]!, "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"))
    if (!isUuid(payload.sub) || !isUuid(payload.tid) || !isUuid(payload.sid) || !Number.isSafeInteger(payload.exp))
      return undefined
    return { userId: payload.sub, tenantId: payload.tid, sessionId: payload.sid, expiresAt: payload.exp }
  } catch {
    return undefined
  }
}

/** Signature first, then expiry against the Effect Clock (a token is dead from its expiry instant on). */
export const verifyAccessToken = (
  key: Uint8Array,
  token: string
): Effect.Effect<AccessClaims, AccessTokenMalformed | AccessTokenExpired> =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (now): Effect.Effect<AccessClaims, AccessTokenMalformed | AccessTokenExpired> => {
      const claims = decodeAccessToken(key, token)
      if (claims === undefined) return Effect.fail(new AccessTokenMalformed())
      if (now >= claims.expiresAt) return Effect.fail(new AccessTokenExpired({ expiredAt: claims.expiresAt }))
      return Effect.succeed(claims)
    }
  )
