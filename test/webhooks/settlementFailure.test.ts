import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { failUpdates } from "../support/FailingUpdates.js"
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

/** Makes the record of a delivery's success fail its first `failures` times. */
const failSuccessRecords = (failures: number) =>
  failUpdates({
    name: "fail_success_record",
    table: "webhook_deliveries",
    when: "NEW.status = 'succeeded'",
    failures,
    message: "connection reset while recording the attempt"
  })

// On the live clock: the record is tried again after 0.1, 0.2 s … of the Effect clock.
describe("an attempt its receiver answered 2xx but whose record failed (a connection cut, a statement timeout)", () => {
  layer(DispatcherTestLayer([certificate.cert], { pollEvery: "1 second" }), {
    excludeTestServices: true,
    timeout: 60_000
  })((it) => {
    it.scoped("the record is tried again: `succeeded` after its one attempt, logged once, not sent again", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const r = yield* Effect.acquireRelease(
          Effect.promise(() => startHttpsReceiver(() => ({ status: 200 }), certificate)),
          (r) => Effect.promise(() => r.close())
        )
        yield* failSuccessRecords(2)
        const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/hook` }] })
        yield* newMatchingTenders(1)
        const [row] = yield* eventually(
          Effect.map(deliveriesOf(t.webhooks[0]!.id), (rows) => (rows[0]?.status === "succeeded" ? rows : undefined)),
          5
        )
        expect([row!.attempt_count, row!.last_status_code]).toEqual([1, 200])
        const attempts = yield* sql<{ attempt_no: number; response_code: number | null }>`
          SELECT attempt_no, response_code FROM webhook_delivery_attempts WHERE delivery_id = ${row!.id}`
        expect(attempts).toEqual([{ attempt_no: 1, response_code: 200 }])
        // Its job settled (deleted with the delivery as the record), nothing queued to send it again.
        const jobs =
          yield* sql`SELECT 1 FROM jobs WHERE kind = 'webhook.deliver' AND payload ->> 'deliveryId' = ${row!.id}`
        expect(jobs).toHaveLength(0)
        yield* pause(1_500)
        expect(r.requests).toHaveLength(1)
      })
    )
  })
})
