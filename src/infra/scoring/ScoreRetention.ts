import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Option } from "effect"
import { withShortLockWaits } from "./MaintenanceLocks.js"

/** Tenders whose rows one retention transaction removes (a few hundred rows each, in the bench's data). */
const TENDERS_PER_BATCH = 100

/**
 * The tables partitioned by the tender's publication month (migrations 0024 and 0029): a pair's
 * score, its replaced versions, its alerts and its match event go with their tender's month.
 */
const MONTHLY_TABLES = ["tender_scores", "tender_score_history", "alerts", "match_events"] as const

/** A monthly partition of one of MONTHLY_TABLES, by name (`…_pYYYY_MM`). */
const MONTHLY_PARTITION = new RegExp(`^(${MONTHLY_TABLES.join("|")})_p(\\d{4})_(\\d{2})$`)

/** A partition gone since it was listed (42P01, undefined_table): dropped by someone else, nothing left to do. */
const isAlreadyGone = (error: SqlError.SqlError) =>
  (error.cause as { readonly code?: unknown } | undefined)?.code === "42P01"

/** The tables retention deletes from row by row, a closed tender's rows at a time (versions are pruned by age). */
const PER_TENDER_TABLES = ["tender_scores", "alerts", "match_events"] as const

export interface RetentionResult {
  readonly partitionsDropped: ReadonlyArray<string>
  readonly rowsDeleted: number
}

/**
 * The retention policy of scores, alerts and match events (README, "Data lifecycle"): a tender's
 * rows may go once it closed (deadline passed, or cancelled) more than the retention period ago; an
 * open tender's never. Whole monthly partitions go when every row in them qualifies (a DROP, no dead
 * rows to vacuum); the rest go by batched DELETE. Removed scores are not kept as replaced versions:
 * no cursor is owed scores this old.
 */
export const makeScoreRetention = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** `alias` (a tenders row) closed before `cutoff`; a tender with neither a deadline nor a cancellation never qualifies. */
  const closedBefore = (alias: string, cutoff: string) =>
    sql`least(${sql(alias)}.deadline, ${sql(alias)}.cancelled_at) < ${cutoff}::timestamptz`

  /** Whether `partition` holds a row of a tender that has not closed before `cutoff`. */
  const holdsRowsToKeep = (partition: string, cutoff: string) =>
    sql<{ any: boolean }>`
      SELECT EXISTS (
        SELECT 1 FROM ${sql(partition)} s JOIN tenders t ON t.id = s.tender_id
        WHERE NOT coalesce(${closedBefore("t", cutoff)}, false)) AS any`.pipe(
      Effect.map((rows) => rows[0]?.any !== false)
    )

  /** Partitions whose month ended before `cutoff` (a tender closes after it is published) and whose every row qualifies. */
  const expiredPartitions = (cutoff: string) =>
    Effect.gen(function* () {
      const partitions = yield* sql<{ name: string }>`
        SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent::regclass::text = ANY(${[...MONTHLY_TABLES]}::text[])
        ORDER BY c.relname`
      const expired: Array<string> = []
      for (const { name } of partitions) {
        const month = MONTHLY_PARTITION.exec(name)
        if (month === null) continue
        const monthEnd = new Date(Date.UTC(Number(month[2]), Number(month[3]), 1))
        if (monthEnd.getTime() > new Date(cutoff).getTime()) continue
        if (!(yield* holdsRowsToKeep(name, cutoff))) expired.push(name)
      }
      return expired
    })

  /** One batch: the rows of `table` of up to TENDERS_PER_BATCH tenders past retention. Returns the rows deleted. */
  const deleteBatch = (table: (typeof PER_TENDER_TABLES)[number], cutoff: string) =>
    sql.withTransaction(
      Effect.gen(function* () {
        // Removed scores are not kept as replaced versions (migration 0024's trigger reads it).
        yield* sql`SELECT set_config('tss.retention', 'on', true)`
        const deleted = yield* sql<{ n: number }>`
          WITH expired AS (
            SELECT t.id, t.publish_date FROM tenders t
            WHERE ${closedBefore("t", cutoff)}
              -- The publish date lets each probe read one partition (run-time pruning).
              AND EXISTS (SELECT 1 FROM ${sql(table)} s WHERE s.tender_id = t.id AND s.tender_publish_date = t.publish_date)
            LIMIT ${TENDERS_PER_BATCH}
            -- Locked, so the tender's state is read again as its rows go: an erratum that reopened it
            -- after this statement began takes it out (PostgreSQL re-checks a row updated since), and one
            -- not yet committed leaves it to the next round; either way its fresh scores stay. Not waited
            -- for: an intake holding several tenders must not deadlock with a batch holding others.
            FOR SHARE OF t SKIP LOCKED
          ), gone AS (
            DELETE FROM ${sql(table)} s USING expired e WHERE s.tender_id = e.id RETURNING 1
          )
          SELECT count(*)::int AS n FROM gone`
        return deleted[0]?.n ?? 0
      })
    )

  /**
   * Drops an expired partition, checked again under its lock: a scoring transaction in flight when it
   * was found expired (an old notice imported late, an erratum reopening a tender) may have written a
   * row to keep, and commits before the lock is granted. Dropping a partition locks its parent, so the
   * parent is locked first (a writer holds the parent before the partition). The lock waits are short
   * (MaintenanceLocks): a queued ACCESS EXCLUSIVE request holds every later list page. Tables still
   * busy leave it to the next round. (`DETACH PARTITION … CONCURRENTLY` would need no such lock, but
   * PostgreSQL refuses it on a table with a default partition.) Returns whether it was dropped.
   */
  const dropIfExpired = (partition: string, parent: string, cutoff: string) =>
    withShortLockWaits(
      `Dropping ${partition}`,
      Effect.gen(function* () {
        yield* sql`LOCK TABLE ONLY ${sql(parent)} IN ACCESS EXCLUSIVE MODE`
        yield* sql`LOCK TABLE ${sql(partition)} IN ACCESS EXCLUSIVE MODE`
        if (yield* holdsRowsToKeep(partition, cutoff)) return false
        yield* sql`DROP TABLE ${sql(partition)}`
        return true
      })
    ).pipe(
      Effect.map(Option.getOrElse(() => false)),
      Effect.catchIf(isAlreadyGone, () => Effect.succeed(false))
    )

  /** Applies the policy at `now` for a retention of `days` days. */
  const run = (now: Date, days: number) =>
    Effect.gen(function* () {
      const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString()
      const partitionsDropped: Array<string> = []
      for (const name of yield* expiredPartitions(cutoff)) {
        const parent = MONTHLY_PARTITION.exec(name)![1]!
        if (yield* dropIfExpired(name, parent, cutoff)) partitionsDropped.push(name)
      }
      let rowsDeleted = 0
      for (const table of PER_TENDER_TABLES) {
        while (true) {
          const n = yield* deleteBatch(table, cutoff)
          if (n === 0) break
          rowsDeleted += n
        }
      }
      return { partitionsDropped, rowsDeleted } satisfies RetentionResult
    })

  return { run }
})
