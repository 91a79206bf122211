import { SqlClient, type SqlError } from "@effect/sql"
import { Duration, Effect, Option, Schedule } from "effect"

/**
 * How long a lifecycle statement may wait for a table lock. Creating or dropping a monthly partition
 * takes ACCESS EXCLUSIVE on its parent; while that request waits behind a transaction in flight (a
 * scoring batch, an export page), every later statement on the table queues behind it, the key API's
 * list pages included. So the wait is short, and retried.
 */
export const MAINTENANCE_LOCK_TIMEOUT = Duration.millis(100)

/** Attempts after the first, MAINTENANCE_LOCK_SPACING apart (Clock), before the work is left to the next round. */
export const MAINTENANCE_LOCK_RETRIES = 4
export const MAINTENANCE_LOCK_SPACING = Duration.seconds(2)

/** A lock wait over `lock_timeout` (55P03) or a deadlock (40P01). */
const isLockConflict = (error: SqlError.SqlError) => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return code === "55P03" || code === "40P01"
}

/**
 * Runs `body` in a transaction whose lock waits end after MAINTENANCE_LOCK_TIMEOUT, again up to
 * MAINTENANCE_LOCK_RETRIES times on a lock conflict; past those, `what` is logged as left to the next
 * round and the result is None. The transaction is rolled back on each conflict, so `body` must be
 * safe to run again.
 */
export const withShortLockWaits = <A, R>(what: string, body: Effect.Effect<A, SqlError.SqlError, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const attempt = sql.withTransaction(
      Effect.zipRight(
        sql`SELECT set_config('lock_timeout', ${`${Duration.toMillis(MAINTENANCE_LOCK_TIMEOUT)}ms`}, true)`,
        body
      )
    )
    return yield* attempt.pipe(
      Effect.map(Option.some),
      Effect.retry({
        while: isLockConflict,
        schedule: Schedule.spaced(MAINTENANCE_LOCK_SPACING),
        times: MAINTENANCE_LOCK_RETRIES
      }),
      Effect.catchIf(isLockConflict, () =>
        Effect.as(
          Effect.logInfo(
            `${what}: tables busy (lock waits over ${Duration.format(MAINTENANCE_LOCK_TIMEOUT)}); left to the next round`
          ),
          Option.none<A>()
        )
      )
    )
  })
