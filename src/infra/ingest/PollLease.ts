import { SqlClient } from "@effect/sql"
import { Effect, FiberRef } from "effect"
import { SOURCE_NAMES, type SourceName } from "../../domain/ingest/SourceFailure.js"

/**
 * The advisory lock of a source's poll: the pair (POLL_LOCK, the source's index in SOURCE_NAMES).
 * Two-key locks are a space apart from the one-key locks of the service (NoticeIntake, Migrator,
 * ScorePartitions), so none can meet this one.
 */
const POLL_LOCK = 7_246_836

/** The sources whose poll lease this fiber (and the fibers it forks) holds. */
const held = FiberRef.unsafeMake<ReadonlySet<SourceName>>(new Set())

/**
 * Runs `poll` holding its source's poll lease, or skips it (logged, not an error) when another poll
 * of the source holds it: another worker with the source in INGEST_SOURCES, or this one's poll still
 * running. Two polls at once would each download every notice, and the later one would rescore them
 * as changes and count them twice. The lease is a PostgreSQL session advisory lock, taken with
 * `pg_try_advisory_lock` on a connection reserved for the poll and released on that same
 * connection before it goes back to the pool (the pool would otherwise lend it out still holding
 * the lock); a process that dies loses its connections, and with them the lease. A poll already
 * inside its source's lease (runPoller's around the poller's own) does not ask again.
 */
export const withPollLease = <E, R>(
  source: SourceName,
  poll: Effect.Effect<void, E, R>
): Effect.Effect<void, E, R | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const holding = yield* FiberRef.get(held)
    if (holding.has(source)) return yield* poll
    const sql = yield* SqlClient.SqlClient
    const key = [POLL_LOCK, SOURCE_NAMES.indexOf(source)]
    yield* Effect.scoped(
      Effect.gen(function* () {
        const connection = yield* sql.reserve.pipe(Effect.orDie)
        const taken = yield* Effect.acquireRelease(
          connection.execute("SELECT pg_try_advisory_lock($1, $2) AS taken", key, undefined).pipe(
            Effect.map((rows) => (rows[0] as { taken?: unknown } | undefined)?.taken === true),
            Effect.orDie
          ),
          (taken) =>
            taken
              ? connection.execute("SELECT pg_advisory_unlock($1, $2)", key, undefined).pipe(Effect.ignore)
              : Effect.void
        )
        if (!taken) {
          yield* Effect.logInfo(`${source}: another poll of this source is running; this one is skipped`)
          return
        }
        yield* Effect.locally(poll, held, new Set([...holding, source]))
      })
    )
  })
