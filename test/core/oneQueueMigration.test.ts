import { describe, expect, it } from "vitest"
import { databaseBeforeMigration } from "../support/MigrationDatabase.js"

/**
 * Migration 0014 moves the work in hand of the three old queues (email_outbox, webhook_deliveries,
 * report_jobs) into `jobs`: a database migrated up to 0013 with pending rows of each gets one job per
 * row, with the attempts, run times and errors the rows had, and the old lease columns go.
 */
describe("migration 0014: one queue", () => {
  const { db, migrate } = databaseBeforeMigration("0014")

  it("gives each pending e-mail, due delivery and waiting report its job, and drops the old lease columns", async () => {
    const {
      rows: [tenant]
    } = await db.query(`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`)
    const {
      rows: [company]
    } = await db.query(`INSERT INTO companies (tenant_id, name) VALUES ($1, 'C') RETURNING id`, [tenant.id])
    const retryAt = new Date("2026-11-24T10:00:00Z")
    const {
      rows: [email]
    } = await db.query(
      `INSERT INTO email_outbox (tenant_id, to_address, subject, body_text, attempts, last_error, next_attempt_at)
       VALUES ($1, 'a@b.ro', 's', 'b', 2, '451 later', $2) RETURNING id`,
      [tenant.id, retryAt]
    )
    await db.query(
      `INSERT INTO email_outbox (tenant_id, to_address, subject, body_text, status) VALUES ($1, 'c@d.ro', 's', 'b', 'sent')`,
      [tenant.id]
    )
    const {
      rows: [authority]
    } = await db.query(`INSERT INTO contracting_authorities (name, normalized_name) VALUES ('A', 'a') RETURNING id`)
    const {
      rows: [tender]
    } = await db.query(
      `INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, publish_date)
       VALUES ('demo', '1', 'T', '39160000-1', $1, now()) RETURNING id`,
      [authority.id]
    )
    const {
      rows: [event]
    } = await db.query(
      `INSERT INTO match_events (tenant_id, company_id, tender_id, payload) VALUES ($1, $2, $3, '{}') RETURNING id`,
      [tenant.id, company.id, tender.id]
    )
    const {
      rows: [webhook]
    } = await db.query(
      `INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events) VALUES ($1, 'https://x.ro', '\\x00', '{tender.matched}')
       RETURNING id`,
      [tenant.id]
    )
    const {
      rows: [delivery]
    } = await db.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, attempt_count, next_attempt_at)
       VALUES ($1, $2, $3, '{}', 'pending', 1, $4) RETURNING id`,
      [webhook.id, event.id, tenant.id, retryAt]
    )
    const {
      rows: [report]
    } = await db.query(
      `INSERT INTO report_jobs (tenant_id, company_id, params, status, attempts, run_at, error)
       VALUES ($1, $2, '{}', 'pending', 1, $3, 'Chromium crashed') RETURNING id`,
      [tenant.id, company.id, retryAt]
    )

    await migrate()

    const { rows: jobs } = await db.query(
      `SELECT kind, payload, group_key, status, attempts, run_at, last_error FROM jobs ORDER BY kind`
    )
    expect(jobs).toEqual([
      {
        kind: "mail.send",
        payload: { emailId: email.id },
        group_key: null,
        status: "queued",
        attempts: 2,
        run_at: retryAt,
        last_error: "451 later"
      },
      {
        kind: "report.render",
        payload: { reportId: report.id },
        group_key: null,
        status: "queued",
        attempts: 1,
        run_at: retryAt,
        last_error: "Chromium crashed"
      },
      {
        kind: "webhook.deliver",
        payload: { deliveryId: delivery.id },
        group_key: webhook.id,
        status: "queued",
        attempts: 0,
        run_at: retryAt,
        last_error: null
      }
    ])
    const { rows: columns } = await db.query(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_name IN ('email_outbox', 'webhook_deliveries', 'report_jobs')
         AND column_name IN ('locked_by', 'lease_until', 'run_at', 'attempts', 'max_attempts')`
    )
    expect(columns).toEqual([])
  })
})
