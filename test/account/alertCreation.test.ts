import { describe, expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { AlertsRepo } from "../../src/infra/alerts/AlertsRepo.js"
import { DeliveryInfraLive, newMatchingTenders, tenantWithWebhooks } from "../webhooks/fixtures.js"

/** Alerts raised by scoring itself (not rows written by a fixture), on the TestClock. */
describe("alerts raised by scoring", () => {
  layer(DeliveryInfraLive, { timeout: 60_000 })((it) => {
    it.effect(
      "carry the instant they were raised (the service's Clock, not a database default) and their company, newest first",
      () =>
        Effect.gen(function* () {
          const alerts = yield* AlertsRepo
          const consultant = yield* tenantWithWebhooks({ companies: 2, webhooks: [] })
          const first = Date.parse("2026-05-04T08:00:00Z")
          // Mid-second: alerts keep the whole second they were raised in (one pass's batches tie).
          yield* TestClock.setTime(first + 250)
          const earlier = yield* newMatchingTenders(2)
          yield* TestClock.adjust("90 minutes")
          const later = yield* newMatchingTenders(1)

          const { alerts: listed, total } = yield* alerts.list({
            tenantId: consultant.tenantId,
            filters: {},
            offset: 0,
            limit: 100
          })
          // One alert per company (each has one watchlist) and new tender.
          expect(total).toBe(6)
          const laterTime = new Date(first + 90 * 60_000).toISOString()
          expect(listed.map((a) => a.createdAt.toISOString())).toEqual([
            ...Array(2).fill(laterTime),
            ...Array(4).fill(new Date(first).toISOString())
          ])
          expect(new Set(listed.slice(0, 2).map((a) => a.tenderId))).toEqual(new Set(later.ids))
          expect(new Set(listed.slice(2).map((a) => a.tenderId))).toEqual(new Set(earlier.ids))
          // Each alert names its company; within one instant: score desc, then id desc.
          expect(new Set(listed.map((a) => `${a.companyId}:${a.companyName}`))).toEqual(
            new Set([`${consultant.companies[0]}:C0`, `${consultant.companies[1]}:C1`])
          )
          const pass = listed.slice(2)
          const sorted = [...pass].sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          expect(pass.map((a) => a.id)).toEqual(sorted.map((a) => a.id))
        })
    )
  })
})
