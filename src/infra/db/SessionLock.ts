import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/**
 * Runs `body` holding the PostgreSQL session advisory lock `key` (one or two integers), or skips it
 * (None, `whenHeld` logged at info, not an error) when another session holds it. The lock is taken
 * with `pg_try_advisory_lock` on a connection reserved for the body and released on that same
 * connection before it goes back to the pool (the pool would otherwise lend it out still holding
 * the lock); a process that dies loses its connections, and with them the lock. For work one worker
 * of several should do at a time, for as long as it takes (LifecycleLease).
 */
export const withSessionLock = <A, E, R>(
  key: readonly [number] | readonly [number, number],
  whenHeld: string,
  body: Effect.Effect<A, E, R>
): Effect.Effect<Option.Option<A>, E, R | SqlClient.SqlClient> => {
  const args = key.map((_, i) => `$${i + 1}`).join(", ")
  return Effect.scoped(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Uninterruptible: the pool's connect cannot be called off, and a connection it hands over
      // after the wait was interrupted would never go back, keeping the pool from closing (a worker
      // stopped by a bad setting during its first round then never exited).
      const connection = yield* Effect.uninterruptible(sql.reserve).pipe(Effect.orDie)
      const taken = yield* Effect.acquireRelease(
        connection.execute(`SELECT pg_try_advisory_lock(${args}) AS taken`, key, undefined).pipe(
          Effect.map((rows) => (rows[0] as { taken?: unknown } | undefined)?.taken === true),
          Effect.orDie
        ),
        (taken) =>
          taken
            ? connection.execute(`SELECT pg_advisory_unlock(${args})`, key, undefined).pipe(Effect.ignore)
            : Effect.void
      )
      if (!taken) {
        yield* Effect.logInfo(whenHeld)
        return Option.none<A>()
      }
      return Option.some(yield* body)
    })
  )
}
