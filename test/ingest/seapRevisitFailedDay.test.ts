import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { seapContractNotice } from "../support/FakeSeap.js"
import { AuditIngestLive, SeapProxy } from "./hostileSources.js"
import { daysAgo, Seap, today } from "./ingestFixtures.js"

/**
 * The daily revisit of past days' contract-notice lists runs after the poll's own days are read. A
 * past day's list that SEAP fails (a 500 on that one query) is logged and left to the next day's
 * revisit: it neither fails the poll (the source degraded, its polls backed off) nor makes every
 * poll ask all the revisit's days again.
 */
describe("SEAP: a past day's contract-notice list that fails during the daily revisit", () => {
  layer(AuditIngestLive({ seapRevisitDays: 5 }), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("is left to the next day's revisit; the poll whose own days were read succeeds", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const proxy = yield* SeapProxy
        const cn = seapContractNotice({ publicationDate: today(), title: "Lucrări de reparații la școala gimnazială" })
        seap.publishContractNotice(cn)
        const broken = daysAgo(3)
        const cnListsOf = (day: string) =>
          proxy.requests.filter(
            (r) =>
              /GetCNoticeList/i.test(r.path) &&
              (JSON.parse(r.body) as { startPublicationDate?: string }).startPublicationDate === day
          ).length
        proxy.rule((request) => {
          if (!/GetCNoticeList/i.test(request.path)) return undefined
          const body = JSON.parse(request.body) as { startPublicationDate?: string }
          return body.startPublicationDate === broken
            ? { status: 500, headers: { "content-type": "application/json" }, body: '{"message":"Internal error"}' }
            : undefined
        })
        const exit = yield* Effect.exit((yield* SeapPoller).poll)
        expect(Exit.isSuccess(exit) ? "success" : Cause.squash(exit.cause)).toBe("success")
        const state = (yield* (yield* IngestState).all).find((s) => s.name === "seap")!
        expect(state).toMatchObject({ watermark: today(), ingested: 1, last_error: null, revisited_on: today() })
        expect(state.last_success_at).toBeInstanceOf(Date)
        // The days after the failed one were revisited too, and the next poll revisits none.
        expect(cnListsOf(daysAgo(2))).toBe(1)
        const asked = cnListsOf(broken)
        yield* (yield* SeapPoller).poll
        expect(cnListsOf(broken)).toBe(asked)
        expect(cnListsOf(daysAgo(2))).toBe(1)
      })
    )
  })
})
