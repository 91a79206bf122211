import type pg from "pg"
import { describe, expect, it } from "vitest"
import { databaseBeforeMigration, seedTenantAndTenders } from "../support/MigrationDatabase.js"

/**
 * Migration 0051 checks the tenant of a watchlist, an alert, a match event, a feedback mark, a report
 * job and a webhook delivery against the company, watchlist or webhook the row names (composite keys
 * instead of a key of the tenant alone): existing rows stay, a row naming another tenant's company,
 * watchlist or webhook is refused, a watchlist still moves to another company of its tenant, and the
 * cascades remove what they removed.
 */
const CHECKSUM = `
  SELECT (SELECT count(*)::int FROM alerts) AS alerts,
         (SELECT md5(string_agg(concat_ws('|', id, tenant_id, company_id, watchlist_id, tender_id, score), ','
                   ORDER BY id)) FROM alerts) AS alerts_md5,
         (SELECT count(*)::int FROM match_events) AS events,
         (SELECT md5(string_agg(concat_ws('|', id, tenant_id, company_id, tender_id), ',' ORDER BY id))
            FROM match_events) AS events_md5,
         (SELECT count(*)::int FROM watchlists) AS watchlists,
         (SELECT count(*)::int FROM tender_feedback) AS marks,
         (SELECT count(*)::int FROM report_jobs) AS reports,
         (SELECT count(*)::int FROM webhook_deliveries) AS deliveries`

const FOREIGN_KEY_VIOLATION = "23503"

const sqlStateOf = (db: pg.Client, text: string, values: Array<unknown>) =>
  db.query(text, values).then(
    () => "accepted",
    (error: { code?: string }) => error.code
  )

describe("migration 0051: a row's tenant is its company's, its watchlist's and its webhook's", () => {
  const { db, migrate } = databaseBeforeMigration("0051")

  it("keeps every row, refuses rows of another tenant's company or watchlist, and cascades as before", async () => {
    const { tenant, companies, tenders, one } = await seedTenantAndTenders(db, [
      "2026-01-10T08:00:00Z",
      "2026-02-01T00:00:00Z"
    ])
    const other = await one(`INSERT INTO tenants (name, plan) VALUES ('Other', 'consultant') RETURNING id`)
    const otherCompany = await one(`INSERT INTO companies (tenant_id, name) VALUES ($1, 'O') RETURNING id`, [other.id])
    const watchlists: Array<{ id: string; company: string }> = []
    for (const company of [...companies, otherCompany]) {
      const owner = company === otherCompany ? other.id : tenant.id
      const watchlist = await one(
        `INSERT INTO watchlists (tenant_id, company_id, name) VALUES ($1, $2, 'W') RETURNING id`,
        [owner, company.id]
      )
      watchlists.push({ id: watchlist.id, company: company.id })
      for (const tender of tenders) {
        await db.query(
          `INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, tender_publish_date)
           VALUES ($1, $2, $3, $4, 70, 'GO', $5)`,
          [owner, company.id, watchlist.id, tender.id, tender.publish_date]
        )
        await db.query(
          `INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date)
           VALUES ($1, $2, $3, '{}', $4)`,
          [owner, company.id, tender.id, tender.publish_date]
        )
      }
    }
    const webhooks = new Map<string, string>()
    for (const owner of [tenant.id, other.id]) {
      const webhook = await one(
        `INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events)
         VALUES ($1, 'https://x.ro', '\\x00', '{tender.matched}') RETURNING id`,
        [owner]
      )
      webhooks.set(owner, webhook.id)
    }
    for (const [company, owner] of [
      [companies[0]!.id, tenant.id],
      [otherCompany.id, other.id]
    ] as const) {
      await db.query(
        `INSERT INTO tender_feedback (company_id, tender_id, tenant_id, relevant, marked_at) VALUES ($1, $2, $3, true, now())`,
        [company, tenders[1]!.id, owner]
      )
      await db.query(`INSERT INTO report_jobs (tenant_id, company_id, params) VALUES ($1, $2, '{}')`, [owner, company])
      await db.query(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body) VALUES ($1, gen_random_uuid(), $2, '{}')`,
        [webhooks.get(owner), owner]
      )
    }
    const before = await one(CHECKSUM)
    expect(before).toMatchObject({ alerts: 8, events: 8, watchlists: 4, marks: 2, reports: 2, deliveries: 2 })

    await migrate()
    expect(await one(CHECKSUM)).toEqual(before)

    // Rows that name another tenant's company or watchlist: each accepted before by the single keys.
    const [tender] = tenders
    const insertAlert = `INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, tender_publish_date)
                         VALUES ($1, $2, $3, $4, 70, 'GO', $5)`
    await db.query(`DELETE FROM alerts WHERE tender_id = $1`, [tender!.id])
    await db.query(`DELETE FROM match_events WHERE tender_id = $1 AND tenant_id = $2`, [tender!.id, tenant.id])
    const mine = watchlists[0]!
    expect(await sqlStateOf(db, insertAlert, [other.id, mine.company, mine.id, tender!.id, tender!.publish_date])).toBe(
      FOREIGN_KEY_VIOLATION
    )
    const theirs = watchlists[3]!
    expect(
      await sqlStateOf(db, insertAlert, [tenant.id, mine.company, theirs.id, tender!.id, tender!.publish_date])
    ).toBe(FOREIGN_KEY_VIOLATION)
    expect(
      await sqlStateOf(
        db,
        `INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date) VALUES ($1, $2, $3, '{}', $4)`,
        [other.id, mine.company, tender!.id, tender!.publish_date]
      )
    ).toBe(FOREIGN_KEY_VIOLATION)
    expect(
      await sqlStateOf(db, `INSERT INTO watchlists (tenant_id, company_id, name) VALUES ($1, $2, 'X')`, [
        other.id,
        mine.company
      ])
    ).toBe(FOREIGN_KEY_VIOLATION)
    expect(await sqlStateOf(db, `UPDATE watchlists SET company_id = $2 WHERE id = $1`, [mine.id, theirs.company])).toBe(
      FOREIGN_KEY_VIOLATION
    )
    for (const [text, values] of [
      [
        `INSERT INTO tender_feedback (company_id, tender_id, tenant_id, relevant, marked_at) VALUES ($1, $2, $3, true, now())`,
        [mine.company, tender!.id, other.id]
      ],
      [`INSERT INTO report_jobs (tenant_id, company_id, params) VALUES ($1, $2, '{}')`, [other.id, mine.company]],
      [
        `INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body) VALUES ($1, gen_random_uuid(), $2, '{}')`,
        [webhooks.get(tenant.id), other.id]
      ]
    ] as const)
      expect(await sqlStateOf(db, text, [...values]), text).toBe(FOREIGN_KEY_VIOLATION)
    // The same rows with their own tenant are accepted, and a watchlist moves to another company of its
    // tenant, its alerts staying the company's they were for.
    expect(
      await sqlStateOf(db, insertAlert, [tenant.id, mine.company, mine.id, tender!.id, tender!.publish_date])
    ).toBe("accepted")
    expect(
      await sqlStateOf(db, `UPDATE watchlists SET company_id = $2 WHERE id = $1`, [mine.id, companies[2]!.id])
    ).toBe("accepted")
    expect(
      (
        await one(`SELECT count(*)::int AS n FROM alerts WHERE watchlist_id = $1 AND company_id = $2`, [
          mine.id,
          mine.company
        ])
      ).n
    ).toBe(2)

    const countOf = async (table: string, column: string, id: string) =>
      (await one(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [id])).n as number
    // A watchlist's deletion removes its alerts; a company's its watchlists, alerts and events.
    await db.query(`DELETE FROM watchlists WHERE id = $1`, [mine.id])
    expect(await countOf("alerts", "watchlist_id", mine.id)).toBe(0)
    expect(await countOf("match_events", "company_id", mine.company)).toBe(1)
    const second = watchlists[1]!
    await db.query(`DELETE FROM companies WHERE id = $1`, [second.company])
    for (const [table, column, id] of [
      ["watchlists", "company_id", second.company],
      ["alerts", "company_id", second.company],
      ["match_events", "company_id", second.company]
    ] as const)
      expect(await countOf(table, column, id), table).toBe(0)
    // A tenant's deletion removes the rest of its rows, and no row of the other tenant.
    await db.query(`DELETE FROM tenants WHERE id = $1`, [tenant.id])
    const kept = {
      watchlists: 1,
      alerts: 1,
      match_events: 2,
      tender_feedback: 1,
      report_jobs: 1,
      webhook_deliveries: 1
    }
    for (const [table, left] of Object.entries(kept)) {
      expect(await countOf(table, "tenant_id", tenant.id), table).toBe(0)
      expect(await countOf(table, "tenant_id", other.id), table).toBe(left)
    }
  })
})
