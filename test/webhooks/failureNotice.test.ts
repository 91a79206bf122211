import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Deliveries } from "../../src/infra/webhooks/Deliveries.js"
import { DeliveryInfraLive, deliveriesOf, newMatchingTenders, tenantWithWebhooks } from "./fixtures.js"

/**
 * The failure e-mail (spec 6.3.4) goes once per delivery (`failure_notified_at`, migration 0035):
 * also for a delivery the queue dead-lettered (its job ran out of claims before an answer was
 * recorded), and never again when a manual retry of it fails.
 */
describe("the webhook failure e-mail, once per delivery", () => {
  layer(DeliveryInfraLive, { timeout: 60_000 })((it) => {
    it.effect("a dead-lettered delivery is failed and e-mailed once; failing again after a retry sends nothing", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const deliveries = yield* Deliveries
        const t = yield* tenantWithWebhooks({ users: 2, webhooks: [{ url: "https://hooks.example.test/dead" }] })
        yield* newMatchingTenders(1)
        const [delivery] = yield* deliveriesOf(t.webhooks[0]!.id)
        const mails = () =>
          sql<{ to_address: string; subject: string; body_text: string }>`
            SELECT to_address, subject, body_text FROM email_outbox WHERE tenant_id = ${t.tenantId} ORDER BY to_address`
        // Its job ran out of claims during its third attempt (the worker kept dying).
        yield* sql`UPDATE webhook_deliveries SET status = 'delivering', attempt_count = 2 WHERE id = ${delivery!.id}`
        yield* deliveries.recordDead(delivery!.id)
        const [dead] = yield* deliveriesOf(t.webhooks[0]!.id)
        expect(dead!.status).toBe("failed")
        const sent = yield* mails()
        expect(sent.map((m) => m.to_address)).toEqual(t.emails)
        for (const mail of sent) {
          expect(mail.subject).toBe("Livrare eșuată către webhook-ul https://hooks.example.test/dead")
          expect(mail.body_text).toContain(delivery!.id)
          expect(mail.body_text).toContain("a eșuat după 2 încercări")
          expect(mail.body_text).toContain("înainte să se înregistreze un răspuns")
        }
        // Dead-lettered again (no longer pending or delivering): nothing changes, nothing is sent.
        yield* deliveries.recordDead(delivery!.id)
        expect(yield* mails()).toHaveLength(2)
        // A manual retry (pending again, one attempt more allowed) whose job dies too: failed, no second e-mail.
        yield* sql`UPDATE webhook_deliveries SET status = 'pending', attempts_allowed = 3 WHERE id = ${delivery!.id}`
        yield* deliveries.recordDead(delivery!.id)
        expect((yield* deliveriesOf(t.webhooks[0]!.id))[0]!.status).toBe("failed")
        expect(yield* mails()).toHaveLength(2)
      })
    )
  })
})
