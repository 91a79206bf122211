import { SqlClient } from "@effect/sql"
import { Context, Data, Duration, Effect, Option, Schedule } from "effect"
import type { SourceName } from "../../domain/ingest/SourceFailure.js"
import { clockNow } from "../db/ClockNow.js"

/**
 * How long a poll holds its source's lease without its heartbeat, which renews it every third of it
 * while the poll runs. A worker that dies mid-poll keeps the source's next poll waiting this long at
 * most: short, since a poller is the source's only way in; a worker stalled longer is fenced off.
 */
const POLL_LEASE = Duration.seconds(15)

/** The poll's lease passed to another poll: this one takes no more pages in. */
export class PollLeaseLost extends Data.TaggedError("PollLeaseLost")<{ readonly message: string }> {}

/**
 * The lease the running poll holds: its source and its epoch, the fencing token each of its pages
 * checks (`fencePoll`). Absent outside a poll (a notice retry job is no poll's).
 */
export class PollFence extends Context.Tag("PollFence")<
  PollFence,
  { readonly source: SourceName; readonly epoch: number }
>() {}

const after = (now: Date, duration: Duration.Duration) => new Date(now.getTime() + Duration.toMillis(duration))

/**
 * Runs `poll` holding its source's poll lease, or skips it (logged, not an error) when another poll
 * of the source holds it: another worker with the source in INGEST_SOURCES, or this one's poll still
 * running. Two polls at once would each download every notice, and the later one would rescore them
 * as changes and count them twice. The lease is a row (`ingest_poll_leases`) held until a time the
 * poll's heartbeat renews, not a connection's advisory lock: a connection that drops while the poll
 * waits for its source (a NAT, idle_session_timeout, a restarted proxy) freed the lock, and a second
 * poll then read everything beside the first. Taking the lease bumps its epoch; each page of the poll
 * checks it in its intake transaction (`fencePoll`), so a poll whose lease ran out and was taken by
 * another (its worker stalled, or cut from PostgreSQL past the lease) takes nothing more in and ends,
 * logged. A poll that ends frees the lease; one whose worker dies holds it until it runs out.
 */
export const withPollLease = <E, R>(
  source: SourceName,
  poll: Effect.Effect<void, E | PollLeaseLost, R>
): Effect.Effect<void, Exclude<E, PollLeaseLost>, Exclude<R, PollFence> | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = yield* clockNow
    const taken = yield* sql<{ epoch: number }>`
      INSERT INTO ingest_poll_leases AS lease (source, epoch, leased_until)
      VALUES (${source}, 1, ${after(now, POLL_LEASE)})
      ON CONFLICT (source) DO UPDATE SET epoch = lease.epoch + 1, leased_until = EXCLUDED.leased_until
        WHERE lease.leased_until IS NULL OR lease.leased_until <= ${now}
      RETURNING epoch::int AS epoch`.pipe(Effect.orDie)
    const epoch = taken[0]?.epoch
    if (epoch === undefined) {
      return yield* Effect.logInfo(`${source}: another poll of this source is running; this one is skipped`)
    }
    const mine = sql`source = ${source} AND epoch = ${epoch}`
    const renew = Effect.flatMap(
      clockNow,
      (at) => sql`UPDATE ingest_poll_leases SET leased_until = ${after(at, POLL_LEASE)} WHERE ${mine}`
    )
    yield* Effect.scoped(
      Effect.gen(function* () {
        yield* Effect.addFinalizer(() =>
          sql`UPDATE ingest_poll_leases SET leased_until = NULL WHERE ${mine}`.pipe(Effect.ignore)
        )
        yield* renew.pipe(
          Effect.catchAllCause((cause) => Effect.logWarning(`${source}: renewing the poll lease failed`, cause)),
          Effect.repeat(Schedule.spaced(Duration.times(POLL_LEASE, 1 / 3))),
          Effect.delay(Duration.times(POLL_LEASE, 1 / 3)),
          Effect.forkScoped
        )
        yield* poll.pipe(
          Effect.provideService(PollFence, { source, epoch }),
          Effect.catchIf(
            (error): error is PollLeaseLost => error instanceof PollLeaseLost,
            (lost) => Effect.logWarning(lost.message)
          )
        )
      })
    )
  })

/**
 * In a page's intake transaction: fails with PollLeaseLost when the running poll's lease passed to
 * another poll (its epoch moved on), which undoes the page. The row is locked (shared) to the
 * commit, so a poll taking the lease meanwhile waits for the page, and then reads its notices as read.
 * Outside a poll (a notice retry job), or for another source's page, it checks nothing.
 */
export const fencePoll = (sql: SqlClient.SqlClient, source: SourceName) =>
  Effect.flatMap(Effect.serviceOption(PollFence), (fence) =>
    Option.isNone(fence) || fence.value.source !== source
      ? Effect.void
      : sql`SELECT 1 FROM ingest_poll_leases WHERE source = ${source} AND epoch = ${fence.value.epoch} FOR SHARE`.pipe(
          Effect.orDie,
          Effect.filterOrFail(
            (rows) => rows.length > 0,
            () =>
              new PollLeaseLost({
                message: `${source}: this poll's lease ran out and another poll took it; this poll stops (its page is left to that one)`
              })
          ),
          Effect.asVoid
        )
  )
