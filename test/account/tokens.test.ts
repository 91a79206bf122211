import { randomBytes, randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock } from "effect"
import {
  ACCESS_TOKEN_TTL,
  decodeAccessToken,
  encodeAccessToken,
  issueAccessToken,
  verifyAccessToken
} from "../../src/domain/AccessToken.js"
import {
  DEFAULT_SESSION_MAX_DAYS,
  generateRefreshToken,
  hashRefreshToken,
  isWellFormedRefreshToken,
  REFRESH_GRACE_WINDOW,
  REFRESH_TOKEN_TTL,
  successorOf
} from "../../src/domain/RefreshToken.js"
import { TenantsRepo } from "../../src/infra/accounts/TenantsRepo.js"
import { UsersRepo } from "../../src/infra/accounts/UsersRepo.js"
import { AuthSessions, AuthSessionsLive } from "../../src/infra/auth/AuthSessions.js"
import { TestInfraLive } from "../support/TestServer.js"

const subject = { userId: randomUUID(), tenantId: randomUUID(), sessionId: randomUUID() }

describe("access token codec", () => {
  const key = randomBytes(32)

  it("lifetimes are Durations: access 15 minutes, refresh 7 days, grace 10 seconds; sessions 30 days", () => {
    expect(Duration.toMinutes(ACCESS_TOKEN_TTL)).toBe(15)
    expect(Duration.toDays(REFRESH_TOKEN_TTL)).toBe(7)
    expect(Duration.toSeconds(REFRESH_GRACE_WINDOW)).toBe(10)
    expect(DEFAULT_SESSION_MAX_DAYS).toBe(30)
  })

  it.effect("a token is accepted until 15 minutes after issue and rejected as expired from then on", () =>
    Effect.gen(function* () {
      const token = yield* issueAccessToken(key, subject)
      expect(yield* verifyAccessToken(key, token)).toMatchObject(subject)
      yield* TestClock.adjust(Duration.subtract(ACCESS_TOKEN_TTL, Duration.millis(1)))
      expect(yield* verifyAccessToken(key, token)).toMatchObject(subject)
      yield* TestClock.adjust(Duration.millis(1))
      const error = yield* Effect.flip(verifyAccessToken(key, token))
      expect(error._tag).toBe("AccessTokenExpired")
    })
  )

  it.effect("another key, a changed payload or garbage is malformed, not expired", () =>
    Effect.gen(function* () {
      const token = yield* issueAccessToken(key, subject)
      expect((yield* Effect.flip(verifyAccessToken(randomBytes(32), token)))._tag).toBe("AccessTokenMalformed")
      const [version, , signature] = token.split(".")
      const other = encodeAccessToken(randomBytes(32), { ...subject, expiresAt: 1e15 }).split(".")[1]
      expect(decodeAccessToken(key, `${version}.${other}.${signature}`)).toBeUndefined()
      for (const junk of ["", "at1", "at1..", "a.b.c", `svc_${"0".repeat(64)}`])
        expect((yield* Effect.flip(verifyAccessToken(key, junk)))._tag).toBe("AccessTokenMalformed")
    })
  )

  it("refresh tokens: 32 random bytes, stored as SHA-256, successor reproducible only with the key", () => {
    const token = generateRefreshToken()
    expect(isWellFormedRefreshToken(token)).toBe(true)
    expect(Buffer.from(token.slice(3), "base64url")).toHaveLength(32)
    expect(hashRefreshToken(token)).toHaveLength(32)
    expect(generateRefreshToken()).not.toBe(token)
    const key = randomBytes(32)
    expect(successorOf(key, token)).toBe(successorOf(key, token))
    expect(successorOf(randomBytes(32), token)).not.toBe(successorOf(key, token))
    expect(isWellFormedRefreshToken(successorOf(key, token))).toBe(true)
  })
})

const SessionsTest = AuthSessionsLive.pipe(Layer.provideMerge(TestInfraLive()))

/** The stored expiry of a refresh token, as Unix ms. */
const storedExpiry = (token: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ expires_at: Date }>`
      SELECT expires_at FROM refresh_tokens WHERE token_hash = ${hashRefreshToken(token)}`
    return rows[0]!.expires_at.getTime()
  }).pipe(Effect.orDie)

const newUser = Effect.gen(function* () {
  const tenant = yield* (yield* TenantsRepo).create({ name: "Clock Tenant", plan: "starter" })
  const user = yield* (yield* UsersRepo).create({
    tenantId: tenant.id,
    email: `clock-${randomBytes(4).toString("hex")}@example.com`,
    password: "irrelevant password"
  })
  return { id: user.id, tenantId: tenant.id }
}).pipe(Effect.orDie)

layer(SessionsTest, { timeout: 60_000 })("AuthSessions under the TestClock", (it) => {
  it.effect("the access token of a login is rejected 15 minutes later", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const pair = yield* sessions.login(yield* newUser)
      expect((yield* sessions.authenticate(pair.accessToken)).sessionId).toBeDefined()
      yield* TestClock.adjust(ACCESS_TOKEN_TTL)
      expect((yield* Effect.flip(sessions.authenticate(pair.accessToken))).reason).toBe("expired")
    })
  )

  it.effect("a refresh token works until 7 days after issue and is expired from then on", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const user = yield* newUser
      const early = yield* sessions.login(user)
      const late = yield* sessions.login(user)
      yield* TestClock.adjust(Duration.subtract(REFRESH_TOKEN_TTL, Duration.seconds(1)))
      const rotated = yield* sessions.refresh(early.refreshToken)
      expect(rotated.refreshToken).not.toBe(early.refreshToken)
      yield* TestClock.adjust(Duration.seconds(1))
      expect((yield* Effect.flip(sessions.refresh(late.refreshToken))).reason).toBe("expired")
      // The rotated successor got a fresh 7 days.
      yield* TestClock.adjust(Duration.days(6))
      expect((yield* sessions.refresh(rotated.refreshToken)).expiresIn).toBe(900)
    })
  )

  it.effect("within the 10 s grace window a rotated token yields the same pair; after it, reuse kills the family", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const pair = yield* sessions.login(yield* newUser)
      const first = yield* sessions.refresh(pair.refreshToken)
      yield* TestClock.adjust(REFRESH_GRACE_WINDOW)
      expect(yield* sessions.refresh(pair.refreshToken)).toEqual(first)
      yield* TestClock.adjust(Duration.millis(1))
      expect((yield* Effect.flip(sessions.refresh(pair.refreshToken))).reason).toBe("reused")
      expect((yield* Effect.flip(sessions.refresh(first.refreshToken))).reason).toBe("revoked")
      expect((yield* Effect.flip(sessions.authenticate(first.accessToken))).reason).toBe("revoked")
    })
  )

  it.effect("a session refreshed every 6 days works until 30 days after its login and is expired from then on", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      let pair = yield* sessions.login(yield* newUser)
      for (const day of [6, 12, 18, 24]) {
        yield* TestClock.adjust(Duration.days(6))
        pair = yield* sessions.refresh(pair.refreshToken)
        expect((yield* sessions.authenticate(pair.accessToken)).sessionId, `day ${day}`).toBeDefined()
      }
      // Day 30 less a second: still refreshed (its successor was issued on day 24).
      yield* TestClock.adjust(Duration.subtract(Duration.days(6), Duration.seconds(1)))
      pair = yield* sessions.refresh(pair.refreshToken)
      // Day 30: the token issued a second ago is refused, though its own 7 days have hardly begun.
      yield* TestClock.adjust(Duration.seconds(1))
      expect((yield* Effect.flip(sessions.refresh(pair.refreshToken))).reason).toBe("expired")
    })
  )

  it.effect("a successor expires 7 days after its issue, but never later than 30 days after the login", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const loginAt = yield* TestClock.currentTimeMillis
      const login = yield* sessions.login(yield* newUser)
      expect(yield* storedExpiry(login.refreshToken)).toBe(loginAt + Duration.toMillis(Duration.days(7)))
      yield* TestClock.adjust(Duration.days(6))
      const day6 = yield* sessions.refresh(login.refreshToken)
      expect(yield* storedExpiry(day6.refreshToken)).toBe(loginAt + Duration.toMillis(Duration.days(13)))
      yield* TestClock.adjust(Duration.days(6))
      const day12 = yield* sessions.refresh(day6.refreshToken)
      yield* TestClock.adjust(Duration.days(6))
      const day18 = yield* sessions.refresh(day12.refreshToken)
      yield* TestClock.adjust(Duration.days(6))
      // Issued on day 24: 7 days would be day 31; the session's end, day 30, comes first.
      const day24 = yield* sessions.refresh(day18.refreshToken)
      expect(yield* storedExpiry(day24.refreshToken)).toBe(loginAt + Duration.toMillis(Duration.days(30)))
    })
  )

  it.effect(
    "a session older than 30 days is refused even with a token stored uncapped (before the limit existed)",
    () =>
      Effect.gen(function* () {
        const sessions = yield* AuthSessions
        const sql = yield* SqlClient.SqlClient
        const pair = yield* sessions.login(yield* newUser)
        const sessionId = (yield* sessions.authenticate(pair.accessToken)).sessionId
        yield* TestClock.adjust(Duration.days(29))
        // As a family rotated before this change stands: its start is the login, its latest token has a
        // full 7 days from its issue (yesterday, day 28: expiry day 35).
        yield* sql`
        UPDATE refresh_tokens SET expires_at = ${new Date((yield* TestClock.currentTimeMillis) + Duration.toMillis(Duration.days(6)))}
        WHERE session_id = ${sessionId}`.pipe(Effect.orDie)
        yield* TestClock.adjust(Duration.days(1))
        expect((yield* Effect.flip(sessions.refresh(pair.refreshToken))).reason).toBe("expired")
      })
  )

  it.effect("logout revokes the session: its access token is refused at once", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const pair = yield* sessions.login(yield* newUser)
      const account = yield* sessions.authenticate(pair.accessToken)
      yield* sessions.logout(account.sessionId)
      expect((yield* Effect.flip(sessions.authenticate(pair.accessToken))).reason).toBe("revoked")
      expect((yield* Effect.flip(sessions.refresh(pair.refreshToken))).reason).toBe("revoked")
    })
  )
})

const ShortSessionsTest = AuthSessionsLive.pipe(Layer.provideMerge(TestInfraLive({ sessionMaxDays: 3 })))

layer(ShortSessionsTest, { timeout: 60_000 })("AuthSessions with SESSION_MAX_DAYS=3", (it) => {
  it.effect("even the login's refresh token expires when the session does, before its 7 days", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const loginAt = yield* TestClock.currentTimeMillis
      const pair = yield* sessions.login(yield* newUser)
      expect(yield* storedExpiry(pair.refreshToken)).toBe(loginAt + Duration.toMillis(Duration.days(3)))
      yield* TestClock.adjust(Duration.days(2))
      const next = yield* sessions.refresh(pair.refreshToken)
      yield* TestClock.adjust(Duration.days(1))
      expect((yield* Effect.flip(sessions.refresh(next.refreshToken))).reason).toBe("expired")
    })
  )
})
