import { describe, expect, it } from "vitest"
import { databaseBeforeMigration } from "../support/MigrationDatabase.js"

/**
 * Migration 0035 adds `failure_notified_at`. The e-mail used to go when the 4th attempt failed, so
 * a delivery that reached 4 attempts before the migration was e-mailed then: it counts as notified
 * (at its last update), and no later failure of it sends a second e-mail. Below 4 attempts nothing
 * was sent, whatever the status.
 */
describe("migration 0035: the failure e-mails already sent", () => {
  const { db, migrate } = databaseBeforeMigration("0035")

  it("marks the deliveries that reached a 4th attempt as e-mailed at their last update, and no other", async () => {
    const one = async (text: string, values: Array<unknown> = []) => (await db.query(text, values)).rows[0]
    const tenant = await one(`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`)
    const webhook = await one(
      `INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events)
       VALUES ($1, 'https://hooks.example.test/h', '\\x00', '{tender.matched}') RETURNING id`,
      [tenant.id]
    )
    const deliveries = [
      { label: "failed at the 4th attempt", status: "failed", attempts: 4, allowed: 4 },
      { label: "retried by hand, failed at the 5th", status: "failed", attempts: 5, allowed: 5 },
      { label: "retried by hand after 4, pending", status: "pending", attempts: 4, allowed: 5 },
      { label: "dead-lettered at 2", status: "failed", attempts: 2, allowed: 4 },
      { label: "delivering its 3rd", status: "delivering", attempts: 3, allowed: 4 },
      { label: "succeeded at the 1st", status: "succeeded", attempts: 1, allowed: 4 }
    ]
    const updatedAt = new Map<string, number>()
    for (const [i, d] of deliveries.entries()) {
      const row = await one(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, attempt_count, attempts_allowed, updated_at)
         VALUES ($1, gen_random_uuid(), $2, '{}', $3, $4, $5, now() - make_interval(hours => $6))
         RETURNING updated_at`,
        [webhook.id, tenant.id, d.status, d.attempts, d.allowed, i + 1]
      )
      updatedAt.set(d.label, row.updated_at.getTime())
    }
    await migrate()
    const { rows } = await db.query<{
      status: string
      attempt_count: number
      failure_notified_at: Date | null
      updated_at: Date
    }>(`SELECT status, attempt_count, failure_notified_at, updated_at FROM webhook_deliveries`)
    expect(rows).toHaveLength(deliveries.length)
    for (const d of deliveries) {
      const row = rows.find((r) => r.status === d.status && r.attempt_count === d.attempts)!
      const expected = d.attempts >= 4 ? updatedAt.get(d.label) : null
      expect(row.failure_notified_at?.getTime() ?? null, d.label).toBe(expected)
    }
  })
})
