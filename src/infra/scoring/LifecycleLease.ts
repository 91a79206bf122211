import type { SqlClient } from "@effect/sql"
import type { Effect, Option } from "effect"
import { withSessionLock } from "../db/SessionLock.js"

/** The advisory lock of the data lifecycle round; one key apart from ScorePartitions' (which the round takes inside it). */
const LIFECYCLE_LOCK = 7_246_825

/**
 * Runs `round` holding the lifecycle lease, or skips it (None, logged, not an error) when another
 * worker's round holds it: every worker runs a round at start, and a deployment starts them
 * together. Two rounds at once would race for the same partitions (the later one finding a month
 * already dropped) and the same rows, for nothing: one round does all there is to do. The lease is
 * a PostgreSQL session advisory lock (SessionLock, as PollLease's).
 */
export const withLifecycleLease = <A, E, R>(
  round: Effect.Effect<A, E, R>
): Effect.Effect<Option.Option<A>, E, R | SqlClient.SqlClient> =>
  withSessionLock([LIFECYCLE_LOCK], "Another worker's data lifecycle round is running; this one is skipped", round)
