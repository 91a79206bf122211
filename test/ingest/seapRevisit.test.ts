import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { seapContractNotice } from "../support/FakeSeap.js"
import { daysAgo, IngestTestLive, Seap, today } from "./ingestFixtures.js"

/**
 * A day's SEAP list is asked on that day; an erratum or a cancellation of its notices comes days
 * later, under the notice's own publication day (the fake lists by it). Once a day the poller asks
 * the contract-notice lists of the days before again (INGEST_SEAP_REVISIT_DAYS, 5 here).
 */
describe("SEAP: the daily revisit of past days' contract notices", () => {
  layer(IngestTestLive({ seapRevisitDays: 5 }), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("reads an erratum and a cancellation published three days after their notice, once a day", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const state = yield* IngestState
        const poller = yield* SeapPoller
        const cnLists = (from: number) =>
          seap.requests
            .slice(from)
            .filter((r) => r.path.includes("GetCNoticeList"))
            .map((r) => (r.body as { startPublicationDate: string }).startPublicationDate)
        const day = daysAgo(3)
        yield* state.open("seap", day)
        const fields = { publicationDate: day, title: "Reabilitare școală gimnazială", value: 500000 }
        const notice = seapContractNotice(fields)
        seap.publishContractNotice(notice)
        yield* poller.poll
        const [before] = yield* sql<{ id: string; estimated_value_ron: string }>`
          SELECT id, estimated_value_ron FROM tenders WHERE source = 'sicap' AND source_notice_id = ${notice.item.noticeNo}`
        expect(Number(before!.estimated_value_ron)).toBe(500000)

        // Days later: an erratum (value 650 000), then the procedure cancelled.
        const erratum = seapContractNotice({
          ...fields,
          id: notice.item.cNoticeId,
          noticeNo: notice.item.noticeNo,
          value: 650000,
          errataNo: 1
        })
        seap.publishContractNotice({
          ...erratum,
          item: { ...erratum.item, sysProcedureState: { id: 4, text: "Anulata", localeKey: null } }
        })
        // Later the same day: today's lists only (the revisit was done with the first poll).
        let asked = seap.requests.length
        yield* poller.poll
        expect(cnLists(asked)).toEqual([today()])
        const [same] = yield* sql<{ estimated_value_ron: string }>`
          SELECT estimated_value_ron FROM tenders WHERE id = ${before!.id}`
        expect(Number(same!.estimated_value_ron)).toBe(500000)

        // The next day's first poll (the revisit's day set back one): the five days before are asked again.
        yield* sql`UPDATE ingest_sources SET revisited_on = revisited_on - 1 WHERE name = 'seap'`
        asked = seap.requests.length
        yield* poller.poll
        expect(cnLists(asked)).toEqual([today(), daysAgo(5), daysAgo(4), daysAgo(3), daysAgo(2), daysAgo(1)])
        const [after] = yield* sql<{ estimated_value_ron: string; cancelled_at: Date | null }>`
          SELECT estimated_value_ron, cancelled_at FROM tenders WHERE id = ${before!.id}`
        expect(Number(after!.estimated_value_ron)).toBe(650000)
        expect(after!.cancelled_at).toBeInstanceOf(Date)
        const [{ revisited_on }] = (yield* sql<{ revisited_on: string }>`
          SELECT revisited_on::text FROM ingest_sources WHERE name = 'seap'`) as [{ revisited_on: string }]
        expect(revisited_on).toBe(today())
      })
    )
  })
})
