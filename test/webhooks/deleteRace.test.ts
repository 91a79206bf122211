import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { WebhooksRepo } from "../../src/infra/webhooks/WebhooksRepo.js"
import { makeSelfSignedCertificate, startHttpsReceiver } from "../support/HttpsReceiver.js"
import {
  DispatcherTestLayer,
  deliveriesOf,
  eventually,
  newMatchingTenders,
  pause,
  tenantWithWebhooks
} from "./fixtures.js"

const certificate = makeSelfSignedCertificate()

/**
 * DELETE /webhooks/:id ends the webhook's pending and in-flight deliveries as webhook_deleted (spec 3,
 * 6.3.6). A delivery a scoring transaction writes, and commits after the DELETE, is one the DELETE
 * could not see: its job ends it so, sending nothing.
 */
describe("DELETE /webhooks/:id racing the scoring transaction", () => {
  layer(DispatcherTestLayer([certificate.cert], { pollEvery: "200 millis" }), { timeout: 60_000 })((it) => {
    it.scoped("a delivery written by a scoring transaction that commits after the DELETE ends webhook_deleted", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const r = yield* Effect.acquireRelease(
          Effect.promise(() => startHttpsReceiver(() => ({ status: 200 }), certificate)),
          (rr) => Effect.promise(() => rr.close())
        )
        const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/hook` }] })
        const webhook = t.webhooks[0]!
        const scored = yield* Deferred.make<void>()
        const deleted = yield* Deferred.make<void>()
        // The DELETE, forked outside the transaction (its own connection).
        const remover = yield* Effect.fork(
          Effect.gen(function* () {
            yield* Deferred.await(scored)
            yield* Effect.flatMap(WebhooksRepo, (repo) => repo.remove({ tenantId: t.tenantId, id: webhook.id })).pipe(
              Effect.orDie
            )
            yield* Deferred.succeed(deleted, undefined)
          })
        )
        // The scoring transaction: writes the event and its delivery, then commits after the DELETE did.
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* newMatchingTenders(1)
            yield* Deferred.succeed(scored, undefined)
            yield* Deferred.await(deleted)
          })
        )
        yield* Fiber.join(remover)
        const [w] = yield* sql<{ active: boolean }>`SELECT active FROM webhooks WHERE id = ${webhook.id}`
        expect(w!.active).toBe(false)
        // Let the dispatcher claim and finish the job.
        yield* eventually(
          Effect.map(
            sql<{
              n: number
            }>`SELECT count(*)::int AS n FROM jobs WHERE kind = 'webhook.deliver' AND status IN ('queued','running')`,
            (rows) => (rows[0]!.n === 0 ? true : undefined)
          ).pipe(Effect.orDie)
        )
        yield* pause(500)
        const rows = yield* deliveriesOf(webhook.id)
        expect(rows).toHaveLength(1)
        expect(r.requests).toHaveLength(0)
        expect(rows[0]!.status).toBe("webhook_deleted")
      })
    )
  })
})
