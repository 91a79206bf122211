import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { delayAfterFailedAttempt, outcomeOf } from "../../src/domain/webhooks/DeliverySchedule.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { DeliveryInfraLive, deliveriesOf, newMatchingTenders, tenantWithWebhooks } from "./fixtures.js"

describe("delivery schedule (spec 6.3)", () => {
  it("waits 30 s, 5 min, 30 min between the four attempts, then stops", () => {
    expect([1, 2, 3, 4].map((n) => Option.map(delayAfterFailedAttempt(n), Duration.toMillis))).toEqual([
      Option.some(30_000),
      Option.some(300_000),
      Option.some(1_800_000),
      Option.none()
    ])
    expect(outcomeOf(true, 4, 4)).toEqual({ _tag: "succeeded" })
    expect(outcomeOf(false, 1, 4)).toEqual({ _tag: "retry", after: Duration.seconds(30) })
    expect(outcomeOf(false, 4, 4)).toEqual({ _tag: "failed" })
    // A failed manual retry (allowed one attempt more than were made) is failed again at once.
    expect(outcomeOf(false, 5, 5)).toEqual({ _tag: "failed" })
    expect(outcomeOf(false, 2, 3)._tag).toBe("retry")
  })
})

describe("fan-out from scoring", () => {
  layer(DeliveryInfraLive, { timeout: 60_000 })((it) => {
    it.effect(
      "one pending delivery per (new event, active webhook subscribed to tender.matched), none for rescoring",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const scoring = yield* ScoringService
          const a = yield* tenantWithWebhooks({
            companies: 2,
            webhooks: [
              { url: "https://a.example.test/1" },
              { url: "https://a.example.test/2" },
              { url: "https://a.example.test/off", active: false }
            ]
          })
          const b = yield* tenantWithWebhooks({ companies: 1, webhooks: [{ url: "https://b.example.test/1" }] })
          const quiet = yield* tenantWithWebhooks({ companies: 0, webhooks: [{ url: "https://c.example.test/1" }] })

          const { ids, result } = yield* newMatchingTenders(1)
          expect(result.events).toBe(3)
          const events = yield* sql<{ id: string; tenant_id: string; payload: unknown }>`
            SELECT id, tenant_id, payload FROM match_events WHERE tender_id = ${ids[0]!}`
          expect(events).toHaveLength(3)

          for (const [webhook, expected] of [
            [a.webhooks[0]!, 2],
            [a.webhooks[1]!, 2],
            [a.webhooks[2]!, 0],
            [b.webhooks[0]!, 1],
            [quiet.webhooks[0]!, 0]
          ] as const) {
            const rows = yield* deliveriesOf(webhook.id)
            expect(rows, webhook.url).toHaveLength(expected)
            for (const row of rows) {
              const event = events.find((e) => e.id === row.event_id)!
              expect(row.status).toBe("pending")
              expect(row.attempt_count).toBe(0)
              expect(row.next_attempt_at!.getTime()).toBe(0)
              // The body is the event's payload, as JSON text with spec 6.1's field order.
              expect(JSON.parse(row.body)).toEqual(event.payload)
              expect(row.body.startsWith('{"event":"tender.matched","company_id":')).toBe(true)
              // Each company's event names that company (the extensions of TenderMatchedBody).
              const body = JSON.parse(row.body)
              const owner = [...a.companies, ...b.companies].indexOf(body.company_id)
              expect(body.company_name).toBe(owner < a.companies.length ? `C${owner}` : "C0")
              expect(body.tender.contracting_authority).toBe("Școala 1")
            }
          }
          const [tenantOfDeliveries] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.tenant_id <> w.tenant_id`
          expect(tenantOfDeliveries!.n).toBe(0)

          // Rescoring the same tender (not new), or scoring it again as new, adds nothing.
          const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries`
          const before = (yield* count)[0]!.n
          expect(before).toBe(5)
          yield* scoring.scoreTenders(ids, { isNew: [] })
          yield* scoring.scoreTenders(ids, { isNew: ids })
          yield* scoring.rescoreCompany(a.companies[0]!)
          expect((yield* count)[0]!.n).toBe(before)
        })
    )
  })
})
