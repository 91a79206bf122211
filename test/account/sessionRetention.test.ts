import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock } from "effect"
import { hashRefreshToken, REFRESH_TOKEN_TTL } from "../../src/domain/RefreshToken.js"
import { TenantsRepo } from "../../src/infra/accounts/TenantsRepo.js"
import { UsersRepo } from "../../src/infra/accounts/UsersRepo.js"
import { AuthSessions, AuthSessionsLive } from "../../src/infra/auth/AuthSessions.js"
import { ENDED_SESSIONS_KEPT, makeSessionRetention } from "../../src/infra/auth/SessionRetention.js"
import { SessionSweeperLive } from "../../src/workers/SessionSweeper.js"
import { TestInfraLive } from "../support/TestServer.js"

const SessionsTest = AuthSessionsLive.pipe(Layer.provideMerge(TestInfraLive()))

const newUser = Effect.gen(function* () {
  const tenant = yield* (yield* TenantsRepo).create({ name: "Retention Tenant", plan: "starter" })
  const user = yield* (yield* UsersRepo).create({
    tenantId: tenant.id,
    email: `retention-${randomBytes(4).toString("hex")}@example.com`,
    password: "irrelevant password"
  })
  return { id: user.id, tenantId: tenant.id }
}).pipe(Effect.orDie)

const sweep = Effect.flatMap(makeSessionRetention, (retention) => retention.sweep).pipe(Effect.orDie)

/** The session a refresh token belongs to. */
const sessionOf = (token: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ session_id: string }>`SELECT session_id FROM refresh_tokens WHERE token_hash = ${hashRefreshToken(token)}`
  ).pipe(
    Effect.map((rows) => rows[0]!.session_id),
    Effect.orDie
  )

/** The session's row (none once deleted) and its refresh tokens. */
const stored = (sessionId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [sessions] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM auth_sessions WHERE id = ${sessionId}`
    const [tokens] = yield* sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM refresh_tokens WHERE session_id = ${sessionId}`
    return { sessions: sessions!.n, tokens: tokens!.n }
  }).pipe(Effect.orDie)

// Nothing deleted a session or its refresh tokens (one a refresh, every 14 minutes while the app is
// open), revoked and expired ones included.
layer(SessionsTest, { timeout: 60_000 })("login sessions over for 7 days are deleted (TestClock)", (it) => {
  it.effect("an expired session goes with its tokens 7 days after its last token expired, and not before", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const login = yield* sessions.login(yield* newUser)
      const sessionId = yield* sessionOf(login.refreshToken)
      yield* TestClock.adjust("14 minutes")
      const second = yield* sessions.refresh(login.refreshToken)
      yield* TestClock.adjust("14 minutes")
      yield* sessions.refresh(second.refreshToken)
      expect(yield* stored(sessionId)).toEqual({ sessions: 1, tokens: 3 })
      // The last token expires 7 days after its issue; the session is kept 7 days more.
      yield* TestClock.adjust(Duration.sum(REFRESH_TOKEN_TTL, ENDED_SESSIONS_KEPT))
      yield* sweep
      expect(yield* stored(sessionId)).toEqual({ sessions: 1, tokens: 3 })
      yield* TestClock.adjust("1 millis")
      expect(yield* sweep).toBeGreaterThanOrEqual(1)
      expect(yield* stored(sessionId)).toEqual({ sessions: 0, tokens: 0 })
    })
  )

  it.effect("a revoked session is kept 7 days after its revocation, then deleted", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const login = yield* sessions.login(yield* newUser)
      const sessionId = yield* sessionOf(login.refreshToken)
      yield* TestClock.adjust("1 hour")
      yield* sessions.logout(sessionId)
      yield* TestClock.adjust(ENDED_SESSIONS_KEPT)
      yield* sweep
      expect(yield* stored(sessionId)).toEqual({ sessions: 1, tokens: 1 })
      // Its token, still unexpired for days, is refused as revoked until the session goes.
      expect((yield* Effect.flip(sessions.refresh(login.refreshToken))).reason).toBe("revoked")
      yield* TestClock.adjust("1 millis")
      yield* sweep
      expect(yield* stored(sessionId)).toEqual({ sessions: 0, tokens: 0 })
    })
  )

  it.effect("a live session keeps every token, long-expired rotated ones included, and a replay still revokes it", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const login = yield* sessions.login(yield* newUser)
      const sessionId = yield* sessionOf(login.refreshToken)
      // Refreshed every 6 days for 24 days: the login's token expired 17 days before the sweep.
      const issued = [login.refreshToken]
      for (let i = 0; i < 4; i++) {
        yield* TestClock.adjust("6 days")
        issued.push((yield* sessions.refresh(issued.at(-1)!)).refreshToken)
      }
      yield* TestClock.adjust("1 hour")
      yield* sweep
      expect(yield* stored(sessionId)).toEqual({ sessions: 1, tokens: 5 })
      // The token rotated an hour ago is unexpired: presented again, it is reuse, and the session dies.
      expect((yield* Effect.flip(sessions.refresh(issued.at(-2)!))).reason).toBe("reused")
      expect((yield* Effect.flip(sessions.refresh(issued.at(-1)!))).reason).toBe("revoked")
    })
  )

  it.effect("the worker's sweeper deletes an ended session at its start", () =>
    Effect.gen(function* () {
      const sessions = yield* AuthSessions
      const login = yield* sessions.login(yield* newUser)
      const sessionId = yield* sessionOf(login.refreshToken)
      yield* sessions.logout(sessionId)
      yield* TestClock.adjust(Duration.sum(ENDED_SESSIONS_KEPT, Duration.millis(1)))
      yield* Layer.build(SessionSweeperLive)
      // The sweep runs in its own fiber: wait (on the wall clock) until the session is gone.
      for (let i = 0; i < 100 && (yield* stored(sessionId)).sessions > 0; i++)
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      expect(yield* stored(sessionId)).toEqual({ sessions: 0, tokens: 0 })
    }).pipe(Effect.scoped)
  )

  it.effect("a backlog larger than a batch goes in one sweep; concurrent sweeps share it without error", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const user = yield* newUser
      const now = yield* TestClock.currentTimeMillis
      const ended = new Date(now - Duration.toMillis(ENDED_SESSIONS_KEPT) - 1)
      const live = new Date(now + Duration.toMillis(REFRESH_TOKEN_TTL))
      // 300 small sessions and 3 of 4,000 tokens each (a month of refreshes), all over; one live of 4,000.
      const insertSessions = (count: number, tokens: number, expiresAt: Date) => sql`
        WITH s AS (
          INSERT INTO auth_sessions (user_id, created_at)
          SELECT ${user.id}, ${new Date(0)} FROM generate_series(1, ${count}) RETURNING id
        )
        INSERT INTO refresh_tokens (session_id, token_hash, expires_at, created_at)
        SELECT s.id, sha256(convert_to(s.id::text || g::text, 'UTF8')), ${expiresAt}, ${new Date(0)}
        FROM s, generate_series(1, ${tokens}) g`
      yield* insertSessions(300, 2, ended)
      yield* insertSessions(3, 4_000, ended)
      yield* insertSessions(1, 4_000, live)
      const [deletedByTwo, deletedByOne] = yield* Effect.all([sweep, sweep], { concurrency: 2 })
      expect(deletedByTwo! + deletedByOne!).toBeGreaterThanOrEqual(303)
      const [left] = yield* sql<{ sessions: number; tokens: number }>`
        SELECT count(DISTINCT s.id)::int AS sessions, count(t.id)::int AS tokens
        FROM auth_sessions s LEFT JOIN refresh_tokens t ON t.session_id = s.id WHERE s.user_id = ${user.id}`
      expect(left).toEqual({ sessions: 1, tokens: 4_000 })
    }).pipe(Effect.orDie)
  )
})
