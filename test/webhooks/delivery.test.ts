import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Duration, Effect, Schema, TestClock } from "effect"
import { TenderMatchedBody } from "../../src/domain/webhooks/TenderMatchedBody.js"
import { DeliverWebhook } from "../../src/infra/webhooks/Deliveries.js"
import { makeSecretBox } from "../../src/infra/webhooks/SecretBox.js"
import { WebhooksRepo } from "../../src/infra/webhooks/WebhooksRepo.js"
import {
  type HttpsReceiver,
  makeSelfSignedCertificate,
  type Responder,
  startHttpsReceiver
} from "../support/HttpsReceiver.js"
import {
  type ClaimCounter,
  DispatcherTestLayer,
  deleteWebhookAsTheApiDoes,
  deliveriesOf,
  eventually,
  expectedSignature,
  newMatchingTenders,
  pause,
  tenantWithWebhooks
} from "./fixtures.js"

/** One certificate for every receiver of this file: the transport is built once, trusting it. */
const certificate = makeSelfSignedCertificate()
const cas = [certificate.cert]

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

/** Waits (real time) until some fiber sleeps until exactly `at` on the TestClock. */
const timerSetFor = (at: number) =>
  eventually(Effect.map(TestClock.sleeps(), (sleeps) => (Chunk.some(sleeps, (t) => t === at) ? true : undefined)))

/** Waits (real time) until the receiver got `n` requests. */
const received = (r: HttpsReceiver, n: number) => Effect.promise(() => r.waitFor(n))

/** Moves the TestClock, then lets real time pass so a wrongly early attempt would have arrived. */
const advance = (duration: Duration.DurationInput) => Effect.zipRight(TestClock.adjust(duration), pause(400))

const attemptsOf = (deliveryId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      attempt_no: number
      started_at: Date
      finished_at: Date | null
      response_code: number | null
      error: string | null
    }>`
      SELECT attempt_no, started_at, finished_at, response_code, error FROM webhook_delivery_attempts
      WHERE delivery_id = ${deliveryId} ORDER BY attempt_no`
  ).pipe(Effect.orDie)

// A polling interval beyond the longest delay: under the TestClock only NOTIFY, finishing attempts
// and the next-due timer wake the dispatcher.
describe("webhook delivery on the TestClock", () => {
  layer(DispatcherTestLayer(cas, { pollEvery: "2 hours" }), { timeout: 60_000 })((it) => {
    it.scoped(
      "a delivery failing with 500 is tried at 0, +30 s, +5 min, +30 min with the headers of 6.1, then failed with one e-mail per user",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const r = yield* receiver(() => ({ status: 500 }))
          const t = yield* tenantWithWebhooks({ users: 2, webhooks: [{ url: `${r.origin}/hook` }] })
          const other = yield* tenantWithWebhooks({ users: 1, webhooks: [] })
          const webhook = t.webhooks[0]!
          const start = yield* TestClock.currentTimeMillis

          yield* newMatchingTenders(1)
          yield* received(r, 1)
          const [delivery] = yield* eventually(
            Effect.map(deliveriesOf(webhook.id), (rows) => (rows[0]?.attempt_count === 1 ? rows : undefined))
          )
          expect(delivery!.status).toBe("pending")
          expect(delivery!.next_attempt_at!.getTime()).toBe(start + 30_000)

          const steps: Array<[Duration.DurationInput, number]> = [
            ["30 seconds", 2],
            ["5 minutes", 3],
            ["30 minutes", 4]
          ]
          for (const [delay, n] of steps) {
            // The dispatcher has set its timer for the due time before the clock moves.
            const due = (yield* deliveriesOf(webhook.id))[0]!.next_attempt_at!.getTime()
            yield* timerSetFor(due)
            yield* advance(Duration.subtract(Duration.decode(delay), Duration.seconds(1)))
            expect(r.requests.length, `no attempt ${n} before its delay`).toBe(n - 1)
            yield* TestClock.adjust("1 second")
            yield* received(r, n)
            yield* eventually(
              Effect.map(deliveriesOf(webhook.id), (rows) => (rows[0]!.attempt_count === n ? rows : undefined))
            )
          }
          yield* advance("2 hours")
          expect(r.requests).toHaveLength(4)

          const [final] = yield* deliveriesOf(webhook.id)
          expect(final!.status).toBe("failed")
          expect(final!.last_status_code).toBe(500)

          // Exactly the headers and body of 6.1; one delivery id and one body; a timestamp per attempt.
          const offsets = [0, 30, 330, 2130]
          r.requests.forEach((request, i) => {
            expect(request.method).toBe("POST")
            expect(request.path).toBe("/hook")
            expect(request.headers["content-type"]).toBe("application/json")
            expect(request.headers["x-svc-event"]).toBe("tender.matched")
            expect(request.headers["x-svc-delivery"]).toBe(final!.id)
            const timestamp = String(Math.floor(start / 1000) + offsets[i]!)
            expect(request.headers["x-svc-timestamp"]).toBe(timestamp)
            expect(request.headers["x-svc-signature"]).toBe(expectedSignature(webhook.secret, timestamp, request.body))
            expect(request.body).toBe(final!.body)
          })
          expect(new Set(r.requests.map((q) => q.headers["x-svc-signature"])).size).toBe(4)
          const body = JSON.parse(r.requests[0]!.body)
          // Spec 6.1's fields plus our two extensions, company_name and tender.contracting_authority.
          expect(Object.keys(body).sort()).toEqual(["company_id", "company_name", "event", "tender", "timestamp"])
          expect(body.event).toBe("tender.matched")
          expect(body.company_id).toBe(t.companies[0])
          expect(body.company_name).toBe("C0")
          expect(Object.keys(body.tender).sort()).toEqual(
            [
              "contracting_authority",
              "cpv_codes",
              "deadline",
              "estimated_value_ron",
              "id",
              "score",
              "source_url",
              "title",
              "verdict"
            ].sort()
          )
          expect(body.tender.contracting_authority).toBe("Școala 1")
          expect(Schema.decodeUnknownSync(TenderMatchedBody)(body)).toEqual(body)
          expect(body.tender.cpv_codes).toEqual(["39160000-1"])
          expect(body.tender.deadline).toBe("2099-03-01T10:00:00.000Z")
          expect(body.tender.estimated_value_ron).toBe(250000)
          expect(Number.isInteger(body.tender.score)).toBe(true)
          expect(["GO", "RESEARCH", "SKIP"]).toContain(body.tender.verdict)

          const attempts = yield* attemptsOf(final!.id)
          expect(attempts.map((a) => a.attempt_no)).toEqual([1, 2, 3, 4])
          expect(attempts.map((a) => a.response_code)).toEqual([500, 500, 500, 500])
          expect(attempts.map((a) => a.started_at.getTime() - start)).toEqual(offsets.map((s) => s * 1000))
          expect(attempts.every((a) => a.finished_at !== null)).toBe(true)

          // One e-mail per user of the tenant, naming the webhook, the delivery, the event, the error.
          const mails = yield* sql<{ tenant_id: string; to_address: string; subject: string; body_text: string }>`
            SELECT tenant_id, to_address, subject, body_text FROM email_outbox
            WHERE tenant_id IN (${t.tenantId}, ${other.tenantId}) ORDER BY to_address`
          expect(mails.map((m) => m.to_address)).toEqual(t.emails)
          for (const mail of mails) {
            expect(mail.subject).toBe(`Livrare eșuată către webhook-ul ${webhook.url}`)
            expect(mail.body_text).toContain(`Id livrare:    ${final!.id}`)
            expect(mail.body_text).toContain(`Id webhook:    ${webhook.id}`)
            expect(mail.body_text).toContain("Eveniment:     tender.matched")
            expect(mail.body_text).toContain("a eșuat după 4 încercări")
            expect(mail.body_text).toContain("Ultima eroare: răspuns HTTP 500")
          }

          // A manual retry as the dashboard makes it (WebhooksRepo.retryDelivery: one attempt more allowed,
          // due now, its job queued): one attempt,
          // failed again at once with no second e-mail; a second retry that succeeds ends succeeded.
          const retryNow = Effect.flatMap(WebhooksRepo, (repo) =>
            repo.retryDelivery({ tenantId: t.tenantId, deliveryId: final!.id })
          ).pipe(Effect.orDie)
          yield* retryNow
          yield* received(r, 5)
          const [retried] = yield* eventually(
            Effect.map(deliveriesOf(webhook.id), (rows) => (rows[0]!.attempt_count === 5 ? rows : undefined))
          )
          expect(retried!.status).toBe("failed")
          yield* advance("2 hours")
          expect(r.requests).toHaveLength(5)
          const [mailCount] = yield* sql<{
            n: number
          }>`SELECT count(*)::int AS n FROM email_outbox WHERE tenant_id = ${t.tenantId}`
          expect(mailCount!.n).toBe(2)
          r.setResponder(() => ({ status: 200 }))
          yield* retryNow
          yield* received(r, 6)
          const [succeeded] = yield* eventually(
            Effect.map(deliveriesOf(webhook.id), (rows) => (rows[0]!.attempt_count === 6 ? rows : undefined))
          )
          expect(succeeded!.status).toBe("succeeded")
          expect(r.requests[5]!.headers["x-svc-delivery"]).toBe(final!.id)
          expect(r.requests[5]!.body).toBe(final!.body)
        })
    )

    it.scoped("a 3xx (not followed) and a 4xx are failures, a 2xx a success", () =>
      Effect.gen(function* () {
        const r = yield* receiver((_, i) => (i === 0 ? { status: 302 } : i === 1 ? { status: 410 } : { status: 204 }))
        const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/h` }] })
        yield* newMatchingTenders(1)
        yield* received(r, 1)
        const [afterRedirect] = yield* eventually(
          Effect.map(deliveriesOf(t.webhooks[0]!.id), (rows) => (rows[0]?.attempt_count === 1 ? rows : undefined))
        )
        expect(afterRedirect!.status).toBe("pending")
        expect(afterRedirect!.last_status_code).toBe(302)
        yield* timerSetFor(afterRedirect!.next_attempt_at!.getTime())
        yield* advance("30 seconds")
        yield* received(r, 2)
        const [afterGone] = yield* eventually(
          Effect.map(deliveriesOf(t.webhooks[0]!.id), (rows) => (rows[0]?.attempt_count === 2 ? rows : undefined))
        )
        expect(afterGone!.status).toBe("pending")
        expect(afterGone!.last_status_code).toBe(410)
        yield* timerSetFor(afterGone!.next_attempt_at!.getTime())
        yield* advance("5 minutes")
        yield* received(r, 3)
        const [done] = yield* eventually(
          Effect.map(deliveriesOf(t.webhooks[0]!.id), (rows) => (rows[0]?.status === "succeeded" ? rows : undefined))
        )
        expect(done!.attempt_count).toBe(3)
        expect(done!.last_status_code).toBe(204)
        yield* advance("3 hours")
        expect(r.requests).toHaveLength(3)
      })
    )

    it.scoped("a refused connection is a failed attempt with its error recorded and no response code", () =>
      Effect.gen(function* () {
        const gone = yield* Effect.promise(() => startHttpsReceiver())
        yield* Effect.promise(() => gone.close())
        const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${gone.origin}/closed` }] })
        yield* newMatchingTenders(1)
        const [row] = yield* eventually(
          Effect.map(deliveriesOf(t.webhooks[0]!.id), (rows) => (rows[0]?.attempt_count === 1 ? rows : undefined))
        )
        expect(row!.status).toBe("pending")
        expect(row!.last_status_code).toBeNull()
        const [attempt] = yield* attemptsOf(row!.id)
        expect(attempt!.response_code).toBeNull()
        expect(attempt!.error).toMatch(/^refused: /)
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE webhooks SET active = false WHERE id = ${t.webhooks[0]!.id}`
        )
      })
    )

    it.scoped("a secret sealed under another MASTER_KEY is a failed attempt (recorded, retried), nothing sent", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const r = yield* receiver(() => ({ status: 200 }))
        const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/foreign` }] })
        const foreign = makeSecretBox(randomBytes(32)).seal("a-secret-sealed-under-another-master-key")
        yield* sql`UPDATE webhooks SET secret_ciphertext = ${foreign} WHERE id = ${t.webhooks[0]!.id}`
        yield* newMatchingTenders(1)
        const [row] = yield* eventually(
          Effect.map(deliveriesOf(t.webhooks[0]!.id), (rows) => (rows[0]?.attempt_count === 1 ? rows : undefined))
        )
        expect(row!.status).toBe("pending")
        const [attempt] = yield* attemptsOf(row!.id)
        expect(attempt!.response_code).toBeNull()
        expect(attempt!.error).toMatch(/^secret: /)
        expect(r.requests).toHaveLength(0)
      })
    )

    it.scoped("a delivery job naming no delivery (not even a uuid) ends without failing the claim beside it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const r = yield* receiver(() => ({ status: 200 }))
        const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/beside` }] })
        // Due since the epoch (the TestClock starts there): the claim takes it first, with the good job.
        const [bad] = yield* sql<{ id: string }>`
          INSERT INTO jobs (kind, payload, group_key, run_at, max_attempts)
          VALUES (${DeliverWebhook.name}, '{"deliveryId": "not-a-uuid"}'::jsonb, ${t.webhooks[0]!.id},
                  to_timestamp(0), ${DeliverWebhook.maxAttempts})
          RETURNING id::text`
        yield* newMatchingTenders(1)
        yield* received(r, 1)
        const [row] = yield* eventually(
          Effect.map(deliveriesOf(t.webhooks[0]!.id), (rows) => (rows[0]?.status === "succeeded" ? rows : undefined))
        )
        expect(r.requests[0]!.headers["x-svc-delivery"]).toBe(row!.id)
        const [job] = yield* eventually(
          sql<{ status: string }>`SELECT status FROM jobs WHERE id = ${bad!.id}`.pipe(
            Effect.orDie,
            Effect.map((rows) => (rows[0]?.status === "done" ? rows : undefined))
          )
        )
        expect(job!.status).toBe("done")
        expect(r.requests).toHaveLength(1)
      })
    )

    it.scoped("an inactive webhook's pending deliveries are not sent; a deleted webhook's end as webhook_deleted", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const r = yield* receiver(() => ({ status: 503 }))
        const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/a` }] })
        const webhookId = t.webhooks[0]!.id
        yield* newMatchingTenders(1)
        yield* received(r, 1)
        yield* eventually(
          Effect.map(deliveriesOf(webhookId), (rows) => (rows[0]?.attempt_count === 1 ? rows : undefined))
        )
        yield* sql`UPDATE webhooks SET active = false WHERE id = ${webhookId}`
        yield* advance("3 hours")
        expect(r.requests).toHaveLength(1)

        yield* sql`UPDATE webhooks SET active = true WHERE id = ${webhookId}`
        yield* deleteWebhookAsTheApiDoes(webhookId)
        yield* advance("3 hours")
        expect(r.requests).toHaveLength(1)
        const [row] = yield* deliveriesOf(webhookId)
        expect(row!.status).toBe("webhook_deleted")
        expect(row!.attempt_count).toBe(1)
      })
    )

    it.scoped(
      "a webhook deleted while an attempt is in flight: the attempt's outcome does not overwrite webhook_deleted",
      () =>
        Effect.gen(function* () {
          const r = yield* receiver(() => ({ status: 200, delayMs: 1500 }))
          const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/slow` }] })
          const webhookId = t.webhooks[0]!.id
          yield* newMatchingTenders(1)
          yield* received(r, 1)
          const [inFlight] = yield* deliveriesOf(webhookId)
          expect(inFlight!.status).toBe("delivering")
          yield* deleteWebhookAsTheApiDoes(webhookId)
          // The response (200) arrives after the deletion; the attempt is logged, the status kept.
          const attempts = yield* eventually(
            Effect.map(attemptsOf(inFlight!.id), (rows) => (rows.length === 1 ? rows : undefined))
          )
          expect(attempts[0]!.response_code).toBe(200)
          const [row] = yield* deliveriesOf(webhookId)
          expect(row!.status).toBe("webhook_deleted")
          yield* advance("3 hours")
          expect(r.requests).toHaveLength(1)
        })
    )
  })
})

const counter: ClaimCounter = { claims: 0 }

describe("webhook delivery isolation (real time)", () => {
  layer(DispatcherTestLayer(cas, { pollEvery: "1 second", maxInFlight: 10 }, counter), {
    excludeTestServices: true,
    timeout: 60_000
  })((it) => {
    // 10 slots in the worker: without the per-webhook bound the slow receiver would hold them all.
    it.scoped("a slow receiver holds at most 8 attempts and does not delay another tenant's delivery", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const slow = yield* receiver(() => ({ status: 200, delayMs: 60_000 }))
        const fast = yield* receiver(() => ({ status: 200 }))
        const a = yield* tenantWithWebhooks({ webhooks: [{ url: `${slow.origin}/slow` }], companies: 1 })
        const b = yield* tenantWithWebhooks({ webhooks: [{ url: `${fast.origin}/fast` }] })
        // 12 events: tenant A's company and tenant B's company watch the same code, so each tender
        // gives one delivery to each tenant; A's receiver never answers during the test.
        yield* newMatchingTenders(12)
        yield* received(slow, 8)
        const fastStarted = Date.now()
        yield* received(fast, 12)
        expect(Date.now() - fastStarted).toBeLessThan(10_000)
        const done = yield* eventually(
          Effect.map(deliveriesOf(b.webhooks[0]!.id), (rows) =>
            rows.length === 12 && rows.every((d) => d.status === "succeeded") ? rows : undefined
          )
        )
        expect(done).toHaveLength(12)
        // The per-webhook bound: 8 of A's attempts in flight, the other 4 still pending.
        yield* pause(500)
        expect(slow.requests).toHaveLength(8)
        const statuses = yield* sql<{ status: string; n: number }>`
          SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${a.webhooks[0]!.id}
          GROUP BY status ORDER BY status`
        expect(statuses).toEqual([
          { status: "delivering", n: 8 },
          { status: "pending", n: 4 }
        ])
        // Due but bounded deliveries do not make the dispatcher spin: it waits for a finishing
        // attempt or the next poll (1 s here), so a few claims in 2 s, not thousands.
        const before = counter.claims
        yield* pause(2_000)
        expect(counter.claims - before).toBeLessThanOrEqual(4)
      })
    )
  })
})
