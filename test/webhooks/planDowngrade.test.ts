import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, TestClock } from "effect"
import { WebhooksRepo } from "../../src/infra/webhooks/WebhooksRepo.js"
import { makeSelfSignedCertificate, type Responder, startHttpsReceiver } from "../support/HttpsReceiver.js"
import {
  DispatcherTestLayer,
  deliveriesOf,
  eventually,
  newMatchingTenders,
  pause,
  tenantWithWebhooks
} from "./fixtures.js"

/**
 * Webhooks are part of the key API, which spec 1.1 and 8.2 limit to the Consultant plan: a tenant
 * below it gets no deliveries queued, and one queued before its downgrade is not sent after it.
 */

const certificate = makeSelfSignedCertificate()

/** A receiver for one test; its webhooks are deactivated at the end so later tests' events skip them. */
const receiver = (responder: Responder) =>
  Effect.acquireRelease(
    Effect.promise(() => startHttpsReceiver(responder, certificate)),
    (r) =>
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE webhooks SET active = false WHERE url LIKE ${`${r.origin}/%`}`
      ).pipe(Effect.orDie, Effect.zipRight(Effect.promise(() => r.close())))
  )

const setPlan = (tenantId: string, plan: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE tenants SET plan = ${plan} WHERE id = ${tenantId}`).pipe(
    Effect.orDie
  )

describe("webhooks after a downgrade below Consultant", () => {
  layer(DispatcherTestLayer([certificate.cert], { pollEvery: "2 hours" }), { timeout: 60_000 })((it) => {
    it.effect("a tenant below Consultant gets no tender.matched deliveries (its matches are still recorded)", () =>
      Effect.gen(function* () {
        const t = yield* tenantWithWebhooks({ companies: 1, webhooks: [{ url: "https://hooks.example.test/" }] })
        yield* setPlan(t.tenantId, "starter")
        const { result } = yield* newMatchingTenders(1)
        // The match itself is the app's (alerts); only the push is the key API's.
        expect(result.events).toBeGreaterThan(0)
        expect(yield* deliveriesOf(t.webhooks[0]!.id)).toEqual([])
      })
    )

    it.scoped(
      "a delivery queued before the downgrade is not sent after it: failed, no attempt, no e-mail; retryable after an upgrade",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const r = yield* receiver(() => ({ status: 500 }))
          const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/hook` }] })
          const webhook = t.webhooks[0]!
          yield* newMatchingTenders(1)
          yield* Effect.promise(() => r.waitFor(1))
          const [queued] = yield* eventually(
            Effect.map(deliveriesOf(webhook.id), (rows) => (rows[0]?.attempt_count === 1 ? rows : undefined))
          )
          expect(queued!.status).toBe("pending")
          yield* setPlan(t.tenantId, "activ")
          // The retry falls due (+30 s): claimed, not sent.
          const due = queued!.next_attempt_at!.getTime()
          yield* eventually(
            Effect.map(TestClock.sleeps(), (sleeps) => (Chunk.some(sleeps, (at) => at === due) ? true : undefined))
          )
          yield* TestClock.adjust("30 seconds")
          const [ended] = yield* eventually(
            Effect.map(deliveriesOf(webhook.id), (rows) => (rows[0]?.status === "failed" ? rows : undefined))
          )
          yield* pause(400)
          expect(r.requests).toHaveLength(1)
          expect(ended!.attempt_count).toBe(1)
          const attempts =
            yield* sql`SELECT attempt_no FROM webhook_delivery_attempts WHERE delivery_id = ${queued!.id}`
          expect(attempts).toEqual([{ attempt_no: 1 }])
          const [mails] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM email_outbox WHERE tenant_id = ${t.tenantId}`
          expect(mails!.n).toBe(0)

          // Back on Consultant, the dashboard's manual retry sends it.
          yield* setPlan(t.tenantId, "consultant")
          r.setResponder(() => ({ status: 200 }))
          yield* Effect.flatMap(WebhooksRepo, (repo) =>
            repo.retryDelivery({ tenantId: t.tenantId, deliveryId: queued!.id })
          ).pipe(Effect.orDie)
          yield* Effect.promise(() => r.waitFor(2))
          yield* eventually(
            Effect.map(deliveriesOf(webhook.id), (rows) => (rows[0]?.status === "succeeded" ? rows : undefined))
          )
        }).pipe(Effect.orDie)
    )
  })
})
