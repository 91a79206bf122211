import { describe, expect, it } from "vitest"
import { databaseBeforeMigration, seedTenantAndTenders } from "../support/MigrationDatabase.js"

/**
 * Migration 0024 moves tender_scores and tender_score_history into tables partitioned by publication
 * month: a database migrated up to the one before, with scores of several months (one long ago) and
 * replaced versions, keeps every row and every value (a checksum), each in its month's partition, and
 * the triggers of 0012 still keep versions. (On a filled bench database: BENCHMARKS.md, "Issue 23".)
 */
const CHECKSUM = `
  SELECT (SELECT count(*)::int FROM tender_scores) AS scores,
         (SELECT md5(string_agg(concat_ws('|', company_id, tender_id, overall_score, overall_confidence, verdict,
                   model_version, scored_at, tender_publish_date, tender_ingest_seq, score_semantic, score_keyword,
                   score_cpv, score_value_fit, score_historical, cpv_type, written_xid), ',' ORDER BY company_id, tender_id))
          FROM tender_scores) AS scores_md5,
         (SELECT count(*)::int FROM tender_score_history) AS versions,
         (SELECT md5(string_agg(concat_ws('|', company_id, tender_id, overall_score, written_xid, superseded_xid,
                   superseded_at, tender_publish_date), ',' ORDER BY company_id, tender_id, superseded_xid))
          FROM tender_score_history) AS versions_md5`

describe("migration 0024: partitioned scores", () => {
  const { db, migrate } = databaseBeforeMigration("0024")

  it("keeps every score and version, each in its month's partition, and the version triggers", async () => {
    const months = ["2019-05-06T08:00:00Z", "2026-01-10T08:00:00Z", "2026-01-31T23:59:59Z", "2026-02-01T00:00:00Z"]
    const { companies, tenders, one } = await seedTenantAndTenders(db, months)
    for (const company of companies) {
      for (const [i, tender] of tenders.entries()) {
        await db.query(
          `INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, score_semantic,
             score_keyword, score_cpv, score_value_fit, score_historical, cpv_type, model_version, scored_at,
             tender_publish_date, tender_ingest_seq)
           SELECT $1, t.id, $2, 0.8, 'RESEARCH', 0.5, 0.25, 0.75, 1, 0.5, 'primary', 'tsm-1.3.0', now(), t.publish_date, t.ingest_seq
           FROM tenders t WHERE t.id = $3`,
          [company.id, 40 + i, tender.id]
        )
      }
    }
    // Replaced and removed versions (the triggers of 0012).
    await db.query(`UPDATE tender_scores SET overall_score = 77 WHERE tender_id = $1`, [tenders[1]!.id])
    await db.query(`DELETE FROM tender_scores WHERE company_id = $1 AND tender_id = $2`, [
      companies[0]!.id,
      tenders[3]!.id
    ])
    const checksumBefore = await one(CHECKSUM)
    expect(checksumBefore).toMatchObject({ scores: 11, versions: 4 })

    await migrate()

    expect(await one(CHECKSUM)).toEqual(checksumBefore)
    const placed = await db.query(`
      SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM tender_scores GROUP BY 1 ORDER BY 1`)
    expect(placed.rows).toEqual([
      { partition: "tender_scores_p2019_05", n: 3 },
      { partition: "tender_scores_p2026_01", n: 6 },
      { partition: "tender_scores_p2026_02", n: 2 }
    ])
    const versions = await db.query(`
      SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM tender_score_history GROUP BY 1 ORDER BY 1`)
    expect(versions.rows).toEqual([
      { partition: "tender_score_history_p2026_01", n: 3 },
      { partition: "tender_score_history_p2026_02", n: 1 }
    ])
    // The months ahead of now exist; the default partitions are empty.
    const ahead = new Date()
    ahead.setUTCDate(1) // (PostgreSQL's `+ 3 months` clamps the day; JavaScript's would roll over)
    ahead.setUTCMonth(ahead.getUTCMonth() + 3)
    const aheadName = `tender_scores_p${ahead.getUTCFullYear()}_${String(ahead.getUTCMonth() + 1).padStart(2, "0")}`
    expect((await one(`SELECT to_regclass($1) IS NOT NULL AS exists`, [aheadName])).exists).toBe(true)
    expect((await one(`SELECT count(*)::int AS n FROM tender_scores_default`)).n).toBe(0)

    // The version triggers work on the partitioned table: an update that changes a score, a delete.
    await db.query(`UPDATE tender_scores SET overall_score = 12 WHERE tender_id = $1`, [tenders[0]!.id])
    await db.query(`DELETE FROM tender_scores WHERE tender_id = $1`, [tenders[2]!.id])
    expect((await one(`SELECT count(*)::int AS n FROM tender_score_history`)).n).toBe(4 + 3 + 3)
    // The key holds the publish date: one row per (tender, company, publish date).
    const key = await one(`
      SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'tender_scores_pkey'`)
    expect(key.def).toBe("PRIMARY KEY (tender_id, company_id, tender_publish_date)")
  })
})
