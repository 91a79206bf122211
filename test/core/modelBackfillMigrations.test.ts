import { describe, expect, it } from "vitest"
import {
  databaseBeforeMigration,
  migrationText,
  modelVersionMigrations,
  seedTenantAndTenders
} from "../support/MigrationDatabase.js"

/**
 * A model version's migration (`NNNN_tsm_…sql`) changes no table: it queues one `scores.backfill`
 * job when scores exist, so the worker rescores them under the new model, and none on an empty
 * database. Each is run, in a transaction rolled back, on a database at the first of them.
 */
describe("model-version migrations", () => {
  const first = modelVersionMigrations[0]!
  const { db } = databaseBeforeMigration(first.slice(0, 4))

  const backfillsQueuedBy = async (file: string) => {
    await db.query("BEGIN")
    try {
      await db.query(migrationText(file))
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM jobs WHERE kind = 'scores.backfill'`)
      return rows[0].n as number
    } finally {
      await db.query("ROLLBACK")
    }
  }

  it("each queues one scores.backfill job when scores exist, and none without", async () => {
    expect(modelVersionMigrations).toEqual(
      expect.arrayContaining([
        "0026_tsm_1_5_0.sql",
        "0027_tsm_1_6_0.sql",
        "0028_tsm_1_7_0.sql",
        "0030_tsm_1_8_0.sql",
        "0037_tsm_1_9_0.sql",
        "0042_tsm_1_10_0.sql",
        "0052_tsm_1_11_0.sql",
        "0053_tsm_1_12_0.sql"
      ])
    )
    for (const file of modelVersionMigrations) expect(await backfillsQueuedBy(file), file).toBe(0)

    const { companies, tenders } = await seedTenantAndTenders(db, ["2026-01-10T08:00:00Z"])
    await db.query(
      `INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, score_semantic,
         score_keyword, score_cpv, score_value_fit, score_historical, cpv_type, model_version, scored_at,
         tender_publish_date, tender_ingest_seq)
       SELECT $1, t.id, 40, 0.8, 'RESEARCH', 0.5, 0.25, 0.75, 1, 0.5, 'primary', 'tsm-1.4.0', now(), t.publish_date, t.ingest_seq
       FROM tenders t WHERE t.id = $2`,
      [companies[0]!.id, tenders[0]!.id]
    )
    for (const file of modelVersionMigrations) expect(await backfillsQueuedBy(file), file).toBe(1)
  })
})
