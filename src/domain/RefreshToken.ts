import { createHash, createHmac, randomBytes } from "node:crypto"
import { Duration } from "effect"

/**
 * Refresh tokens: `rt_` + 32 random bytes in base64url, opaque to the client. Only their SHA-256
 * is stored. A token's successor is derived from it (HMAC under a server key), so a second,
 * concurrent refresh of the same token within the grace window can be answered with the very same
 * successor without ever storing a raw token.
 */

export const REFRESH_TOKEN_TTL = Duration.days(7)

/**
 * A session (refresh-token family) is never refreshed past this many days from its login, however
 * often it rotates (SESSION_MAX_DAYS; the spec names only the 7 days, which rotation renews for ever).
 */
export const DEFAULT_SESSION_MAX_DAYS = 30

/** A refresh token's expiry: 7 days from its issue, but never past the end of its session. */
export const refreshTokenExpiry = (issuedAt: number, sessionEndsAt: number): number =>
  Math.min(issuedAt + Duration.toMillis(REFRESH_TOKEN_TTL), sessionEndsAt)

/** How long after a rotation the old token still yields its (same) successor instead of counting as reuse. */
export const REFRESH_GRACE_WINDOW = Duration.seconds(10)

export const REFRESH_TOKEN_PATTERN = /^rt_[A-Za-z0-9_-]{43}$/

export const generateRefreshToken = (): string => `rt_${randomBytes(32).toString("base64url")}`

export const isWellFormedRefreshToken = (candidate: string): boolean => REFRESH_TOKEN_PATTERN.test(candidate)

/** The only form in which a refresh token is stored or looked up. */
export const hashRefreshToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()

/** The token that replaces `token` on rotation: unguessable without the key, equal for equal input. */
export const successorOf = (key: Uint8Array, token: string): string =>
  `rt_${createHmac("sha256", key).update(`successor:${token}`, "utf8").digest("base64url")}`
