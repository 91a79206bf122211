import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import { clockNow } from "../db/ClockNow.js"

/** How long a login session is kept once it is over (revoked, or its last refresh token expired). */
export const ENDED_SESSIONS_KEPT = Duration.days(7)

/** Refresh tokens one statement deletes at most with their sessions (a single larger session goes alone). */
const TOKENS_PER_BATCH = 5_000

/** Ended sessions one statement considers: their tokens are counted to stay within TOKENS_PER_BATCH. */
const SESSIONS_PER_BATCH = 100

/**
 * The retention of login sessions (README, "Data lifecycle"): a session is deleted, its refresh
 * tokens with it (ON DELETE CASCADE), ENDED_SESSIONS_KEPT after it ended: after its revocation (logout,
 * reuse detection), or after the expiry of its latest refresh token. Only whole sessions go: a
 * session that can still be refreshed keeps every rotated token, so a replay of one is still
 * recognised as reuse and revokes it. An ended session never comes back (a revocation is final, and
 * only an unexpired token of an unrevoked session is rotated), so no check races a refresh.
 * SESSION_MAX_DAYS is not read here: the tokens' stored expiries already respect it, and a worker
 * configured apart from the API could otherwise delete live sessions.
 */
export const makeSessionRetention = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // SKIP LOCKED: the sweeps of other workers take other sessions. The latest expiry is one probe of
  // refresh_tokens_session_expiry_idx (migration 0048); a session without tokens ended at its login.
  // Sessions are taken while the tokens before them stay under the budget, so a statement deletes
  // about TOKENS_PER_BATCH tokens whatever the sessions' sizes.
  const deleteBatch = (cutoff: Date) =>
    sql<{ n: number }>`
      WITH ended AS (
        SELECT s.id FROM auth_sessions s
        WHERE s.revoked_at < ${cutoff}
           OR coalesce((SELECT max(t.expires_at) FROM refresh_tokens t WHERE t.session_id = s.id), s.created_at) < ${cutoff}
        LIMIT ${SESSIONS_PER_BATCH}
        FOR UPDATE SKIP LOCKED
      ), sized AS (
        SELECT e.id, sum(n.tokens) OVER (ORDER BY e.id) - n.tokens AS tokens_before
        FROM ended e
        CROSS JOIN LATERAL (
          SELECT count(*) AS tokens
          FROM (SELECT FROM refresh_tokens t WHERE t.session_id = e.id LIMIT ${TOKENS_PER_BATCH}) capped
        ) n
      ), gone AS (
        DELETE FROM auth_sessions WHERE id IN (SELECT id FROM sized WHERE tokens_before < ${TOKENS_PER_BATCH})
        RETURNING 1
      )
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.map((rows) => rows[0]?.n ?? 0))

  /** Deletes the sessions over for longer than ENDED_SESSIONS_KEPT at the Clock's now; returns how many. */
  const sweep = Effect.gen(function* () {
    const now = yield* clockNow
    const cutoff = new Date(now.getTime() - Duration.toMillis(ENDED_SESSIONS_KEPT))
    let deleted = 0
    while (true) {
      const n = yield* deleteBatch(cutoff)
      if (n === 0) return deleted
      deleted += n
    }
  })

  return { sweep }
})
