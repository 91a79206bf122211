import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { withShortLockWaits } from "./MaintenanceLocks.js"

/** Months of partitions kept ready ahead of today: rows of a new month never land in the default partition. */
export const SCORE_PARTITION_MONTHS_AHEAD = 3

/** Any constant will do; it only has to be the same in every worker. */
const PARTITIONS_LOCK = 7_246_824

/**
 * The monthly partitions of tender_scores, tender_score_history (migration 0024), alerts and
 * match_events (migration 0029), all by the tender's publication month. Created ahead
 * of need by the worker, in a short transaction of their own: creating a partition locks the parent
 * table, which inside a scoring transaction would hold every list page for the write's duration.
 * A new month is created SCORE_PARTITION_MONTHS_AHEAD months before it starts, so a round that finds
 * the tables busy (MaintenanceLocks: short lock waits, then the next round) delays nothing needed.
 */
export const makeScorePartitions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Creates the partitions from last month to SCORE_PARTITION_MONTHS_AHEAD months after `now`, and
   * that of every month with rows in a default partition (a tender published long ago, imported
   * late), which moves those rows into their month. Returns the partitions created (none when the
   * tables stayed busy: the next round creates them).
   */
  const ensure = (now: Date) =>
    withShortLockWaits(
      "Creating score partitions",
      Effect.gen(function* () {
        // Two callers at once (the lifecycle round runs one at a time, under its lease): one creates,
        // the other then finds the tables.
        yield* sql`SELECT pg_advisory_xact_lock(${PARTITIONS_LOCK})`
        const strays = yield* sql<{ month: Date }>`
          SELECT DISTINCT date_trunc('month', tender_publish_date, 'UTC') AS month FROM tender_scores_default
          UNION SELECT DISTINCT date_trunc('month', tender_publish_date, 'UTC') FROM tender_score_history_default
          UNION SELECT DISTINCT date_trunc('month', tender_publish_date, 'UTC') FROM alerts_default
          UNION SELECT DISTINCT date_trunc('month', tender_publish_date, 'UTC') FROM match_events_default`
        let created = 0
        for (const { month } of strays) {
          const [row] = yield* sql<{ created: number }>`
            SELECT score_partitions_ensure(${month.toISOString()}::timestamptz, ${month.toISOString()}::timestamptz) AS created`
          created += row?.created ?? 0
        }
        const [ahead] = yield* sql<{ created: number }>`
          SELECT score_partitions_ensure(${now.toISOString()}::timestamptz - interval '1 month',
            ${now.toISOString()}::timestamptz + make_interval(months => ${SCORE_PARTITION_MONTHS_AHEAD})) AS created`
        return created + (ahead?.created ?? 0)
      })
    ).pipe(Effect.map(Option.getOrElse(() => 0)))

  return { ensure }
})
