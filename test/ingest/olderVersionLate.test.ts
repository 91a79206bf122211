import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addDays } from "../../src/domain/ingest/PublicationDays.js"
import { NoticeIntake } from "../../src/infra/ingest/NoticeIntake.js"
import { SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { seapContractNotice } from "../support/FakeSeap.js"
import { IngestTestLive, Seap, today } from "./ingestFixtures.js"

/**
 * Two reads of one notice at different versions under way at once (a retry job of the original beside
 * the poll that reads its erratum): the older one's read began first, the newer one is taken in and
 * committed first. SEAP's versions carry no issue time, so the upsert alone let the one taken in last win.
 */
describe("an older version of a notice taken in after a newer one", () => {
  layer(IngestTestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("SEAP: the erratum's deadline and title stay, and its read mark; the late original changes nothing", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const poller = yield* SeapPoller
        const original = seapContractNotice({
          publicationDate: today(),
          title: "Furnizare medicamente oncologice",
          deadline: `${addDays(today(), 20)}T15:00`
        })
        // The original's read (a retry job's): read, not yet taken in.
        const older = yield* poller.readNotice("cn", original.item)
        // Meanwhile the erratum moves the deadline and the poll takes it in, committed first.
        seap.publishContractNotice(
          seapContractNotice({
            publicationDate: today(),
            id: original.item.cNoticeId,
            noticeNo: original.item.noticeNo,
            errataNo: 1,
            title: "Furnizare medicamente oncologice (rectificat)",
            deadline: `${addDays(today(), 35)}T15:00`
          })
        )
        yield* poller.poll
        const tender = sql<{ title: string; deadline: Date; version: number }>`
          SELECT t.title, t.deadline, n.version FROM tenders t
          JOIN ingested_notices n ON n.source = 'seap' AND n.notice_ref = ${original.item.noticeNo}
          WHERE t.source = 'sicap' AND t.source_notice_id = ${original.item.noticeNo}`
        const erratum = (yield* tender)[0]!
        expect(erratum.title).toBe("Furnizare medicamente oncologice (rectificat)")
        // The original's read is taken in last.
        const result = yield* (yield* NoticeIntake).intake("seap", [older])
        expect(yield* tender).toEqual([erratum])
        expect(result).toEqual({ inserted: 0, updated: 0, joined: 0, skipped: 0 })
        const rescored = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE kind = 'tenders.score'`
        expect(rescored[0]!.n, "only the erratum's page is scored").toBe(1)
      })
    )
  })
})
