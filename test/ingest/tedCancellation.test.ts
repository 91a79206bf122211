import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addDays } from "../../src/domain/ingest/PublicationDays.js"
import { SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { seapContractNotice } from "../support/FakeSeap.js"
import { hospitalMaintenance, IngestTestLive, publishTed, Seap, Ted, today } from "./ingestFixtures.js"

/**
 * TED's own word that a procedure is cancelled: an eForms change notice whose reason (BT-140) is
 * `cancel`, "Notice cancelled". Its tender is closed (`cancelled_at`), as a SEAP cancellation closes
 * one, and is no longer listed open nor alerted; any other change leaves it open.
 */
describe("TED: a change notice that cancels the notice", () => {
  layer(IngestTestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("closes the tender it changes; a change for another reason does not", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ted = yield* Ted
        const poller = yield* TedPoller
        const tenderOf = (noticeId: string) =>
          sql<{ cancelled_at: Date | null; deadline: Date | null }>`
            SELECT cancelled_at, deadline FROM tenders
            WHERE source = 'ted-eforms' AND source_notice_id = ${noticeId}`.pipe(Effect.map((rows) => rows[0]))

        const cancelled = publishTed(ted, { title: "Furnizare mobilier școlar", cpv: "39160000" })
        const updated = publishTed(ted, { title: "Furnizare echipamente IT", cpv: "30200000" })
        yield* poller.poll
        expect((yield* tenderOf(cancelled.noticeId))?.cancelled_at).toBeNull()

        publishTed(ted, {
          changes: { changedNoticeId: cancelled.noticeId, reason: "cancel" },
          title: "Furnizare mobilier școlar",
          cpv: "39160000",
          deadline: cancelled.deadline
        })
        publishTed(ted, {
          changes: { changedNoticeId: updated.noticeId, reason: "update-add" },
          title: "Furnizare echipamente IT",
          cpv: "30200000"
        })
        yield* poller.poll
        const closed = yield* tenderOf(cancelled.noticeId)
        expect(closed?.cancelled_at).toBeInstanceOf(Date)
        expect(closed?.deadline?.toISOString().slice(0, 10)).toBe(cancelled.deadline)
        expect((yield* tenderOf(updated.noticeId))?.cancelled_at).toBeNull()
        // One tender per procedure: the changes updated their originals.
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tenders WHERE source = 'ted-eforms'`
        expect(count?.n).toBe(2)
      })
    )
  })
})

describe("TED: a change notice that cancels a notice joined to SEAP's tender", () => {
  layer(IngestTestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("closes the SEAP tender the notice joined, as a SEAP cancellation would", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ted = yield* Ted
        const seap = yield* Seap
        const deadline = addDays(today(), 30)
        const pair = hospitalMaintenance(deadline)
        seap.publishContractNotice(seapContractNotice({ ...pair.seap, deadline: `${deadline}T10:00` }))
        yield* (yield* SeapPoller).poll
        const onTed = publishTed(ted, pair.ted)
        yield* (yield* TedPoller).poll
        const tenders = sql<{ source: string; cancelled_at: Date | null; other_source_urls: Array<string> }>`
          SELECT source, cancelled_at, other_source_urls FROM tenders`
        const [joined, ...others] = yield* tenders
        expect(others).toHaveLength(0)
        expect(joined).toMatchObject({ source: "sicap", cancelled_at: null })
        expect(joined!.other_source_urls).toHaveLength(1)

        publishTed(ted, { ...pair.ted, changes: { changedNoticeId: onTed.noticeId, reason: "cancel" } })
        yield* (yield* TedPoller).poll
        const [closed, ...more] = yield* tenders
        expect(more).toHaveLength(0)
        expect(closed!.source).toBe("sicap")
        expect(closed!.cancelled_at).toBeInstanceOf(Date)
      })
    )
  })
})
