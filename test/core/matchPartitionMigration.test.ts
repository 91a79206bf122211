import { describe, expect, it } from "vitest"
import { databaseBeforeMigration, seedTenantAndTenders } from "../support/MigrationDatabase.js"

/**
 * Migration 0029 moves alerts and match_events into tables partitioned by the tender's publication
 * month: a database migrated up to the one before, with alerts and events of several months (one
 * long ago) and webhook deliveries of the events, keeps every row and every value (a checksum), each
 * in its tender's month, and the deliveries keep naming their events.
 */
const CHECKSUM = `
  SELECT (SELECT count(*)::int FROM alerts) AS alerts,
         (SELECT md5(string_agg(concat_ws('|', id, tenant_id, company_id, watchlist_id, tender_id, score, verdict, read,
                   created_at), ',' ORDER BY id)) FROM alerts) AS alerts_md5,
         (SELECT count(*)::int FROM match_events) AS events,
         (SELECT md5(string_agg(concat_ws('|', id, tenant_id, company_id, tender_id, payload, created_at), ','
                   ORDER BY id)) FROM match_events) AS events_md5,
         (SELECT count(*)::int FROM webhook_deliveries d JOIN match_events e ON e.id = d.event_id) AS deliveries`

describe("migration 0029: partitioned alerts and match events", () => {
  const { db, migrate } = databaseBeforeMigration("0029")

  it("keeps every alert, event and delivery, each in its tender's month, one per (watchlist|company, tender)", async () => {
    const months = ["2019-05-06T08:00:00Z", "2026-01-10T08:00:00Z", "2026-01-31T23:59:59Z", "2026-02-01T00:00:00Z"]
    const { tenant, companies, tenders, one } = await seedTenantAndTenders(db, months)
    const webhook = await one(
      `INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events)
       VALUES ($1, 'https://x.ro', '\\x00', '{tender.matched}') RETURNING id`,
      [tenant.id]
    )
    for (const company of companies) {
      const watchlist = await one(
        `INSERT INTO watchlists (tenant_id, company_id, name) VALUES ($1, $2, 'W') RETURNING id`,
        [tenant.id, company.id]
      )
      for (const [i, tender] of tenders.entries()) {
        await db.query(
          `INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, read, created_at)
           VALUES ($1, $2, $3, $4, $5::smallint, 'GO', $6, now() - make_interval(days => $5::int))`,
          [tenant.id, company.id, watchlist.id, tender.id, 60 + i, i % 2 === 0]
        )
        const event = await one(
          `INSERT INTO match_events (tenant_id, company_id, tender_id, payload)
           VALUES ($1, $2, $3, jsonb_build_object('score', $4::int)) RETURNING id`,
          [tenant.id, company.id, tender.id, 60 + i]
        )
        await db.query(
          `INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, attempt_count)
           VALUES ($1, $2, $3, '{}', 'succeeded', 1)`,
          [webhook.id, event.id, tenant.id]
        )
      }
    }
    const checksumBefore = await one(CHECKSUM)
    expect(checksumBefore).toMatchObject({ alerts: 12, events: 12, deliveries: 12 })

    await migrate()

    expect(await one(CHECKSUM)).toEqual(checksumBefore)
    for (const table of ["alerts", "match_events"]) {
      const placed = await db.query(`
        SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM ${table} GROUP BY 1 ORDER BY 1`)
      expect(placed.rows).toEqual([
        { partition: `${table}_p2019_05`, n: 3 },
        { partition: `${table}_p2026_01`, n: 6 },
        { partition: `${table}_p2026_02`, n: 3 }
      ])
      // Every row carries its tender's publication date.
      const mismatched = await one(`
        SELECT count(*)::int AS n FROM ${table} x JOIN tenders t ON t.id = x.tender_id
        WHERE x.tender_publish_date <> t.publish_date`)
      expect(mismatched.n).toBe(0)
    }
    // Still one alert per (watchlist, tender) and one event per (company, tender).
    const alert = await one(`SELECT * FROM alerts LIMIT 1`)
    await expect(
      db.query(
        `INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, tender_publish_date)
         VALUES ($1, $2, $3, $4, 99, 'GO', $5)`,
        [alert.tenant_id, alert.company_id, alert.watchlist_id, alert.tender_id, alert.tender_publish_date]
      )
    ).rejects.toThrow(/duplicate key value violates unique constraint/)

    // A change notice that moves a tender's publication date moves its alerts and events to the new month.
    await db.query(`UPDATE tenders SET publish_date = '2026-02-15T08:00:00Z' WHERE id = $1`, [tenders[0]!.id])
    const moved = await db.query(
      `SELECT tableoid::regclass::text AS partition FROM alerts WHERE tender_id = $1
       UNION ALL SELECT tableoid::regclass::text FROM match_events WHERE tender_id = $1`,
      [tenders[0]!.id]
    )
    expect(new Set(moved.rows.map((r) => r.partition))).toEqual(new Set(["alerts_p2026_02", "match_events_p2026_02"]))
    expect(moved.rows.length).toBe(6)
    expect(await one(CHECKSUM)).toEqual(checksumBefore)
  })
})
