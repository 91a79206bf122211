import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { SOURCE_NAMES, type SourceName } from "../../domain/ingest/SourceFailure.js"
import { withSessionLock } from "../db/SessionLock.js"

/**
 * The advisory lock of a source's poll: the pair (POLL_LOCK, the source's index in SOURCE_NAMES).
 * Two-key locks are a space apart from the one-key locks of the service (NoticeIntake, Migrator,
 * ScorePartitions, LifecycleLease), so none can meet this one.
 */
const POLL_LOCK = 7_246_836

/**
 * Runs `poll` holding its source's poll lease, or skips it (logged, not an error) when another poll
 * of the source holds it: another worker with the source in INGEST_SOURCES, or this one's poll still
 * running. Two polls at once would each download every notice, and the later one would rescore them
 * as changes and count them twice. The lease is a PostgreSQL session advisory lock (SessionLock); a
 * process that dies loses its connections, and with them the lease. Each poller takes it around its
 * own poll.
 */
export const withPollLease = <E, R>(
  source: SourceName,
  poll: Effect.Effect<void, E, R>
): Effect.Effect<void, E, R | SqlClient.SqlClient> =>
  Effect.asVoid(
    withSessionLock(
      [POLL_LOCK, SOURCE_NAMES.indexOf(source)],
      `${source}: another poll of this source is running; this one is skipped`,
      poll
    )
  )
