import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import type { NoticeIntake } from "../../src/infra/ingest/NoticeIntake.js"
import { readSeapNoticeJob, SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { readTedNoticeJob, TedPoller } from "../../src/infra/ingest/TedPoller.js"
import type { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { drainDueJobs } from "../../src/infra/queue/JobRunner.js"
import { seapAwardNotice } from "../support/FakeSeap.js"
import { IngestTestLive, publishTed, Seap, Ted, today } from "./ingestFixtures.js"

/**
 * A notice whose read fails during a poll becomes a retry job (NOTICE_RETRY: due now, then 1, 2, 4 …
 * minutes). The next poll lists the notice again, since it is not marked read, and reads it once the
 * source answers. The job still queued then finds it read (at its version or a later one) and ends
 * without reading it again: no second download, no rescoring as a change, no older version over a newer.
 */
const runNoticeJobs = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The job's next attempt comes due (minutes later in production).
  yield* sql`UPDATE jobs SET run_at = now() WHERE kind IN ('ingest.ted-notice', 'ingest.seap-notice') AND status = 'queued'`
  yield* drainDueJobs<NoticeIntake | TedPoller | SeapPoller | JobQueue>([readTedNoticeJob, readSeapNoticeJob], {
    name: "ingest",
    concurrency: 1,
    lease: Duration.minutes(1),
    pollEvery: Duration.seconds(1)
  })
})

const stateOf = (name: "ted" | "seap") =>
  Effect.flatMap(IngestState, (state) => Effect.map(state.all, (all) => all.find((s) => s.name === name)!))

describe("a notice's retry job that runs after a later poll read the notice", () => {
  layer(IngestTestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("TED: ends without reading it again (no second download, no rescoring as a change, counted once)", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const sql = yield* SqlClient.SqlClient
        const poller = yield* TedPoller
        const notice = publishTed(ted)
        // The XML fails twice: the poll's read and its one immediate retry. The notice becomes a job.
        ted.failXml(notice.publicationNumber, 2, 503)
        yield* poller.poll
        const queued = yield* sql`SELECT id FROM jobs WHERE kind = 'ingest.ted-notice' AND status = 'queued'`
        expect(queued).toHaveLength(1)
        // TED answers again; the next poll lists the notice (not marked read) and reads it.
        yield* poller.poll
        const [tender] = yield* sql<{ id: string }>`
          SELECT id FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${notice.noticeId}`
        expect(tender).toBeDefined()
        expect((yield* stateOf("ted")).ingested).toBe(1)

        yield* runNoticeJobs
        const downloads = ted.requests.filter(
          (r) => r.path === `/en/notice/${notice.publicationNumber}/xml` && r.method === "GET"
        ).length
        const changed = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM jobs WHERE kind = 'tenders.score' AND payload->'changed' ? ${tender!.id}`
        expect({
          downloads,
          ingested: (yield* stateOf("ted")).ingested,
          rescoredAsChange: changed[0]!.n
        }).toEqual({ downloads: 3, ingested: 1, rescoredAsChange: 0 })
      })
    )

    it.effect("SEAP: the job of an older version ends without undoing the newer erratum's read mark", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const poller = yield* SeapPoller
        const award = seapAwardNotice({ publicationDate: today() })
        seap.publishAwardNotice(award)
        // Its detail fails twice during the poll (read and one retry): a job for version 0.
        seap.failDetail(award.item.noticeNo, 2, 503)
        yield* poller.poll
        expect(yield* sql`SELECT id FROM jobs WHERE kind = 'ingest.seap-notice' AND status = 'queued'`).toHaveLength(1)
        // An erratum is published (errataNo 1 = version 2) and the next poll reads it.
        seap.publishAwardNotice(
          seapAwardNotice({
            publicationDate: today(),
            id: award.item.caNoticeId,
            noticeNo: award.item.noticeNo,
            errataNo: 1
          })
        )
        yield* poller.poll
        const mark = sql<{ version: number }>`
          SELECT version FROM ingested_notices WHERE source = 'seap' AND notice_ref = ${award.item.noticeNo}`
        expect((yield* mark)[0]?.version).toBe(2)

        yield* runNoticeJobs
        expect((yield* mark)[0]?.version, "the stale job wrote version 0 over the erratum's 2").toBe(2)
      })
    )

    it.effect("a read mark keeps the greatest version read: a late read of an older version does not lower it", () =>
      Effect.gen(function* () {
        const state = yield* IngestState
        const mark = (version: number) => ({
          source: "seap" as const,
          ref: "CN1099999",
          version,
          tenderId: null,
          skipReason: "read for the test",
          tedRef: null,
          sourceNoticeId: null
        })
        yield* state.markSeen([mark(2)])
        yield* state.markSeen([mark(0)])
        expect((yield* state.seenVersions("seap", ["CN1099999"])).get("CN1099999")).toBe(2)
        yield* state.markSeen([mark(3)])
        expect((yield* state.seenVersions("seap", ["CN1099999"])).get("CN1099999")).toBe(3)
      })
    )
  })
})
