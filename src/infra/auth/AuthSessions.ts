import { hkdfSync } from "node:crypto"
import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import {
  ACCESS_TOKEN_TTL,
  type AccessClaims,
  accessTokenIssuedAt,
  verifyAccessToken
} from "../../domain/AccessToken.js"
import { AccessTokenRejected, RefreshRejected } from "../../domain/Errors.js"
import { Plan } from "../../domain/Plan.js"
import {
  generateRefreshToken,
  hashRefreshToken,
  isWellFormedRefreshToken,
  REFRESH_GRACE_WINDOW,
  refreshTokenExpiry,
  successorOf
} from "../../domain/RefreshToken.js"
import { AppConfig } from "../config/AppConfig.js"
import { Secrets } from "../config/LocalSecrets.js"

export interface TokenPair {
  readonly accessToken: string
  readonly refreshToken: string
  /** Seconds the access token lives (900). */
  readonly expiresIn: number
}

/** Who an accepted access token speaks for, read fresh from the database on each request. */
export interface Account {
  readonly userId: string
  readonly tenantId: string
  readonly sessionId: string
  readonly plan: Plan
}

/**
 * Login sessions. A session is one refresh-token family: login opens it with a random refresh
 * token, each refresh rotates the presented token (marks it rotated, links and stores the hash
 * of its successor), logout or a replay of a rotated token revokes it, and every access token
 * names its session so revocation rejects them at once. A session ends SESSION_MAX_DAYS after its
 * login (auth_sessions.created_at): no token of it expires later, and a refresh after that instant is
 * refused as expired even for a token stored before the limit existed. A session over for 7 days goes,
 * its tokens with it (SessionRetention).
 *
 * Concurrent refreshes: the token row is locked (FOR UPDATE), so the second refresh waits for the
 * first and then sees the token rotated. Within REFRESH_GRACE_WINDOW it gets the same pair: the
 * successor refresh token is derived from the presented one (HMAC, `successorOf`) and the access
 * token is minted for the rotation instant, so both are reproducible without storing any raw token.
 * The grace ends early once that successor has itself been rotated: the client evidently received
 * it, so the older token is a replay. Rows are locked oldest first (presented token, then its
 * successor), the order every rotation of the family takes them in.
 */
export class AuthSessions extends Context.Tag("AuthSessions")<
  AuthSessions,
  {
    readonly login: (user: { readonly id: string; readonly tenantId: string }) => Effect.Effect<TokenPair>
    readonly refresh: (refreshToken: string) => Effect.Effect<TokenPair, RefreshRejected>
    readonly logout: (sessionId: string) => Effect.Effect<void>
    readonly authenticate: (accessToken: string) => Effect.Effect<Account, AccessTokenRejected>
  }
>() {}

const EXPIRES_IN_SECONDS = Duration.toSeconds(ACCESS_TOKEN_TTL)

/** Purpose-bound keys from the master key (HKDF-SHA256), so one secret never serves two uses. */
const deriveKey = (masterKey: Buffer, purpose: string) =>
  Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), purpose, 32))

const PresentedTokenRow = Schema.Struct({
  id: Schema.String,
  session_id: Schema.String,
  user_id: Schema.String,
  tenant_id: Schema.String,
  expires_at: Schema.DateFromSelf,
  session_started_at: Schema.DateFromSelf,
  rotated_at: Schema.NullOr(Schema.DateFromSelf),
  successor_id: Schema.NullOr(Schema.String),
  session_revoked: Schema.Boolean
})

const IdRow = Schema.Struct({ id: Schema.String })

type RefreshOutcome =
  | { readonly _tag: "Issued"; readonly pair: TokenPair }
  | { readonly _tag: "Rejected"; readonly reason: RefreshRejected["reason"] }

const rejected = (reason: RefreshRejected["reason"]): RefreshOutcome => ({ _tag: "Rejected", reason })
const issued = (pair: TokenPair): RefreshOutcome => ({ _tag: "Issued", pair })

export const AuthSessionsLive = Layer.effect(
  AuthSessions,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const accessKey = deriveKey(Redacted.value(secrets.masterKey), "tss access-token v1")
    const successorKey = deriveKey(Redacted.value(secrets.masterKey), "tss refresh-successor v1")
    const sessionMaxMs = Duration.toMillis(Duration.days((yield* AppConfig).sessionMaxDays))
    const graceMs = Duration.toMillis(REFRESH_GRACE_WINDOW)

    const pair = (subject: Omit<AccessClaims, "expiresAt">, issuedAt: number, refreshToken: string): TokenPair => ({
      accessToken: accessTokenIssuedAt(accessKey, subject, issuedAt),
      refreshToken,
      expiresIn: EXPIRES_IN_SECONDS
    })

    const insertSession = SqlSchema.single({
      Request: Schema.Struct({ userId: Schema.String, createdAt: Schema.DateFromSelf }),
      Result: IdRow,
      execute: (input) => sql`
        INSERT INTO auth_sessions (user_id, created_at) VALUES (${input.userId}, ${input.createdAt}) RETURNING id`
    })
    const insertRefreshToken = SqlSchema.single({
      Request: Schema.Struct({
        sessionId: Schema.String,
        tokenHash: Schema.Uint8ArrayFromSelf,
        expiresAt: Schema.DateFromSelf,
        createdAt: Schema.DateFromSelf
      }),
      Result: IdRow,
      execute: (input) => sql`
        INSERT INTO refresh_tokens (session_id, token_hash, expires_at, created_at)
        VALUES (${input.sessionId}, ${input.tokenHash}, ${input.expiresAt}, ${input.createdAt})
        RETURNING id`
    })
    const lockPresentedToken = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: PresentedTokenRow,
      execute: (tokenHash) => sql`
        SELECT rt.id, rt.session_id, s.user_id, u.tenant_id, rt.expires_at, s.created_at AS session_started_at,
               rt.rotated_at, rt.successor_id, s.revoked_at IS NOT NULL AS session_revoked
        FROM refresh_tokens rt
        JOIN auth_sessions s ON s.id = rt.session_id
        JOIN users u ON u.id = s.user_id
        WHERE rt.token_hash = ${tokenHash}
        FOR UPDATE OF rt`
    })
    // FOR SHARE: a rotation of the successor in flight is waited for (it holds the row FOR UPDATE), and
    // one that has not begun waits until this refresh has answered with the successor.
    const successorRotated = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ rotated: Schema.Boolean }),
      execute: (successorId) => sql`
        SELECT rotated_at IS NOT NULL AS rotated FROM refresh_tokens WHERE id = ${successorId} FOR SHARE`
    })
    const sessionAccount = SqlSchema.findOne({
      Request: Schema.Struct({ sessionId: Schema.String, userId: Schema.String }),
      Result: Schema.Struct({ tenant_id: Schema.String, plan: Plan, revoked: Schema.Boolean }),
      execute: (input) => sql`
        SELECT u.tenant_id, t.plan, s.revoked_at IS NOT NULL AS revoked
        FROM auth_sessions s
        JOIN users u ON u.id = s.user_id
        JOIN tenants t ON t.id = u.tenant_id
        WHERE s.id = ${input.sessionId} AND s.user_id = ${input.userId}`
    })

    const sessionEndsAt = (startedAt: number) => startedAt + sessionMaxMs

    const storeRefreshToken = (sessionId: string, token: string, now: number, sessionStartedAt: number) =>
      insertRefreshToken({
        sessionId,
        tokenHash: hashRefreshToken(token),
        expiresAt: new Date(refreshTokenExpiry(now, sessionEndsAt(sessionStartedAt))),
        createdAt: new Date(now)
      }).pipe(Effect.map((row) => row.id))

    const login = (user: { readonly id: string; readonly tenantId: string }) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const token = generateRefreshToken()
        const sessionId = yield* sql.withTransaction(
          Effect.gen(function* () {
            const session = yield* insertSession({ userId: user.id, createdAt: new Date(now) })
            yield* storeRefreshToken(session.id, token, now, now)
            return session.id
          })
        )
        return pair({ userId: user.id, tenantId: user.tenantId, sessionId }, now, token)
      }).pipe(Effect.orDie)

    const rotate = (token: string, now: number) =>
      Effect.gen(function* () {
        const presented = yield* lockPresentedToken(hashRefreshToken(token))
        if (Option.isNone(presented)) return rejected("invalid")
        const row = presented.value
        if (row.session_revoked) return rejected("revoked")
        // The session's end is checked too: tokens stored before SESSION_MAX_DAYS existed carry a plain 7 days.
        const startedAt = row.session_started_at.getTime()
        if (Math.min(row.expires_at.getTime(), sessionEndsAt(startedAt)) <= now) return rejected("expired")
        const subject = { userId: row.user_id, tenantId: row.tenant_id, sessionId: row.session_id }
        const successor = successorOf(successorKey, token)
        if (row.rotated_at !== null) {
          const rotatedAt = row.rotated_at.getTime()
          // A concurrent (or retried) refresh of the same token: the same successor pair, unless the
          // successor has been redeemed already (then the client had it and this is a replay).
          const inGrace = now - rotatedAt <= graceMs
          const successorRedeemed =
            inGrace && row.successor_id !== null && (yield* successorRotated(row.successor_id)).rotated
          if (inGrace && !successorRedeemed) return issued(pair(subject, rotatedAt, successor))
          // A replay after the grace window or after the successor's own rotation: the token leaked,
          // so the whole family dies.
          yield* sql`
            UPDATE auth_sessions SET revoked_at = ${new Date(now)}, revoked_reason = 'refresh_token_reuse'
            WHERE id = ${row.session_id} AND revoked_at IS NULL`
          return rejected("reused")
        }
        const successorId = yield* storeRefreshToken(row.session_id, successor, now, startedAt)
        yield* sql`
          UPDATE refresh_tokens SET rotated_at = ${new Date(now)}, successor_id = ${successorId} WHERE id = ${row.id}`
        return issued(pair(subject, now, successor))
      })

    const refresh = (token: string) =>
      Effect.gen(function* () {
        if (!isWellFormedRefreshToken(token)) return yield* new RefreshRejected({ reason: "invalid" })
        const now = yield* Clock.currentTimeMillis
        // The transaction commits a reuse revocation too; the rejection is raised after it.
        const outcome = yield* sql.withTransaction(rotate(token, now)).pipe(Effect.orDie)
        if (outcome._tag === "Rejected") return yield* new RefreshRejected({ reason: outcome.reason })
        return outcome.pair
      })

    const logout = (sessionId: string) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => sql`
          UPDATE auth_sessions SET revoked_at = ${new Date(now)}, revoked_reason = 'logout'
          WHERE id = ${sessionId} AND revoked_at IS NULL`
      ).pipe(Effect.asVoid, Effect.orDie)

    const authenticate = (accessToken: string) =>
      Effect.gen(function* () {
        const claims = yield* verifyAccessToken(accessKey, accessToken).pipe(
          Effect.mapError(
            (error) => new AccessTokenRejected({ reason: error._tag === "AccessTokenExpired" ? "expired" : "invalid" })
          )
        )
        const found = yield* sessionAccount({ sessionId: claims.sessionId, userId: claims.userId }).pipe(Effect.orDie)
        if (Option.isNone(found) || found.value.revoked) return yield* new AccessTokenRejected({ reason: "revoked" })
        const row = found.value
        return { userId: claims.userId, tenantId: row.tenant_id, sessionId: claims.sessionId, plan: row.plan }
      })

    return { login, refresh, logout, authenticate }
  })
)
