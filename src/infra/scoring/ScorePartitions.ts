import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Months of partitions kept ready ahead of today: rows of a new month never land in the default partition. */
export const SCORE_PARTITION_MONTHS_AHEAD = 3

/** Any constant will do; it only has to be the same in every worker. */
const PARTITIONS_LOCK = 7_246_824

/**
 * The monthly partitions of tender_scores, tender_score_history (migration 0024), alerts and
 * match_events (migration 0029), all by the tender's publication month. Created ahead
 * of need by the worker, in a short transaction of their own: creating a partition locks the parent
 * table, which inside a scoring transaction would hold every list page for the write's duration.
 */
export const makeScorePartitions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Creates the partitions from last month to SCORE_PARTITION_MONTHS_AHEAD months after `now`, and
   * that of every month with rows in a default partition (a tender published long ago, imported
   * late), which moves those rows into their month. Returns the partitions created.
   */
  const ensure = (now: Date) =>
    sql.withTransaction(
      Effect.gen(function* () {
        // Workers run this at the same time on start: one creates, the others then find the tables.
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
    )

  return { ensure }
})
