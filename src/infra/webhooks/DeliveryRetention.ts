import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Deliveries one retention transaction removes (their attempts go with them). */
const DELIVERIES_PER_BATCH = 1_000

/**
 * The retention of webhook deliveries (README, "Data lifecycle"): a delivery that ended (succeeded,
 * failed, or its webhook deleted) goes, with its attempts, `days` days after it last changed; a
 * manual retry from the dashboard changes it, so a retried delivery stays its full period again. A
 * pending or delivering one never goes. They are the dashboard's log, not billing: nothing else
 * reads them once they ended.
 */
export const makeDeliveryRetention = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const deleteBatch = (cutoff: Date) =>
    sql<{ n: number }>`
      WITH gone AS (
        -- The outer condition again: a row the subquery chose but a manual retry made \`pending\`
        -- meanwhile is re-checked as the retry left it (after waiting on its lock), and kept.
        DELETE FROM webhook_deliveries WHERE id IN (
          SELECT id FROM webhook_deliveries
          WHERE status IN ('succeeded', 'failed', 'webhook_deleted') AND updated_at < ${cutoff}
          LIMIT ${DELIVERIES_PER_BATCH})
        AND status IN ('succeeded', 'failed', 'webhook_deleted') AND updated_at < ${cutoff}
        RETURNING 1
      )
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.map((rows) => rows[0]?.n ?? 0))

  /** Applies the policy at `now` for a retention of `days` days; returns the deliveries deleted. */
  const run = (now: Date, days: number) =>
    Effect.gen(function* () {
      const cutoff = new Date(now.getTime() - days * 86_400_000)
      let deleted = 0
      while (true) {
        const n = yield* deleteBatch(cutoff)
        deleted += n
        if (n < DELIVERIES_PER_BATCH) return deleted
      }
    })

  return { run }
})
