import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Months of partitions kept ready ahead of today: rows of a new month never land in the default partition. */
export const SCORE_PARTITION_MONTHS_AHEAD = 3

/**
 * The monthly partitions of tender_scores and tender_score_history (migration 0024). Created ahead
 * of need by the worker, in a short transaction of their own: creating a partition locks the parent
 * table, which inside a scoring transaction would hold every list page for the write's duration.
 */
export const makeScorePartitions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Creates the partitions from last month to SCORE_PARTITION_MONTHS_AHEAD months after `now`, and
   * those of any month with rows in a default partition (a tender published long ago, imported
   * late), which moves those rows into their month. Returns the partitions created.
   */
  const ensure = (now: Date) =>
    sql<{ created: number }>`
      SELECT score_partitions_ensure(
        least(${now.toISOString()}::timestamptz - interval '1 month',
              (SELECT min(tender_publish_date) FROM tender_scores_default),
              (SELECT min(tender_publish_date) FROM tender_score_history_default)),
        ${now.toISOString()}::timestamptz + make_interval(months => ${SCORE_PARTITION_MONTHS_AHEAD})) AS created`.pipe(
      Effect.map((rows) => rows[0]?.created ?? 0),
      sql.withTransaction
    )

  return { ensure }
})
