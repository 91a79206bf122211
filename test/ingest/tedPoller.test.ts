import * as fs from "node:fs"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { bucharestDate } from "../../src/domain/BucharestTime.js"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { readTedNoticeJob, TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { drainDueJobs } from "../../src/infra/queue/JobRunner.js"
import { eformsNoticeXml, type FakeTed } from "../support/FakeTed.js"
import { eventually, pause } from "../webhooks/fixtures.js"
import { daysAgo, IngestTestLive, publishTed, Ted, today } from "./ingestFixtures.js"

const tenderOf = (sourceNoticeId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      id: string
      title: string
      source_url: string
      deadline: Date | null
      estimated_value_ron: string | null
    }>`
      SELECT id, title, source_url, deadline, estimated_value_ron FROM tenders
      WHERE source = 'ted-eforms' AND source_notice_id = ${sourceNoticeId}`
  )

const searches = (ted: FakeTed) => ted.requests.filter((r) => r.path === "/v3/notices/search")
const xmlGets = (ted: FakeTed, publicationNumber: string) =>
  ted.requests.filter((r) => r.path === `/en/notice/${publicationNumber}/xml`).length

describe("TED poller", () => {
  layer(IngestTestLive({ pageSize: 2 }), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect(
      "reads every notice from the watermark on, paging to the end, once; source_url names the publication",
      () =>
        Effect.gen(function* () {
          const ted = yield* Ted
          const poller = yield* TedPoller
          const sql = yield* SqlClient.SqlClient
          const old = publishTed(ted, { publicationDate: daysAgo(5) })
          const notices = [1, 2, 3, 4, 5].map(() => publishTed(ted))
          yield* poller.poll
          for (const notice of notices) {
            const [tender] = yield* tenderOf(notice.noticeId)
            expect(tender?.title).toBe(notice.title)
            expect(tender?.source_url).toContain(notice.publicationNumber)
            expect(Number(tender?.estimated_value_ron)).toBe(250000)
          }
          // Before the watermark (yesterday on a first poll): not asked for.
          expect(yield* tenderOf(old.noticeId)).toHaveLength(0)
          // Five notices at two per page: three pages, each asked in ITERATION mode with the token of the one before.
          const asked = searches(ted).map(
            (r) => r.body as { paginationMode: string; iterationNextToken?: string; query: string }
          )
          expect(asked).toHaveLength(3)
          expect(asked.every((body) => body.paginationMode === "ITERATION")).toBe(true)
          expect(asked[0]!.iterationNextToken).toBeUndefined()
          expect(asked[1]!.iterationNextToken).toEqual(expect.any(String))
          expect(asked[0]!.query).toMatch(/buyer-country=ROU AND publication-date>=\d{8}/)
          expect(ted.requests.every((r) => String(r.headers["user-agent"]).startsWith("TenderScoringService/"))).toBe(
            true
          )
          // Each request asks for what it reads: the search JSON, a notice XML.
          const accepts = (xml: boolean) =>
            ted.requests.filter((r) => r.path.endsWith("/xml") === xml).map((r) => r.headers.accept)
          expect(accepts(true).length).toBeGreaterThan(0)
          expect(new Set(accepts(true))).toEqual(new Set(["application/xml"]))
          expect(new Set(accepts(false))).toEqual(new Set(["application/json"]))

          // One scoring job for the new tenders, marked new (they may alert).
          const jobs = yield* sql<{ payload: { tenderIds: Array<string>; isNew: Array<string> } }>`
          SELECT payload FROM jobs WHERE kind = 'tenders.score'`
          const isNew = jobs.flatMap((job) => job.payload.isNew)
          expect(isNew).toHaveLength(5)

          const [state] = (yield* (yield* IngestState).all).filter((s) => s.name === "ted")
          expect(state).toMatchObject({ enabled: true, watermark: today(), cursor: null, ingested: 5, skipped: 0 })
          expect(state?.last_success_at).toBeInstanceOf(Date)

          // A second poll the same day: the day is asked again (its own day included), a notice TED
          // published since is read, the ones already read are not downloaded again nor re-queued as new.
          const later = publishTed(ted)
          yield* poller.poll
          expect(yield* tenderOf(later.noticeId)).toHaveLength(1)
          for (const notice of notices) expect(xmlGets(ted, notice.publicationNumber)).toBe(1)
          const after = yield* sql<{
            payload: { isNew: Array<string> }
          }>`SELECT payload FROM jobs WHERE kind = 'tenders.score'`
          expect(after.flatMap((job) => job.payload.isNew)).toHaveLength(6)
        })
    )

    it.effect("a change notice updates the tender it changes; no second tender, not new", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const poller = yield* TedPoller
        const sql = yield* SqlClient.SqlClient
        const original = publishTed(ted, { estimatedValue: 100000 })
        yield* poller.poll
        const [before] = yield* tenderOf(original.noticeId)
        const change = publishTed(ted, {
          changes: { changedNoticeId: original.noticeId },
          title: original.title,
          estimatedValue: 120000,
          deadline: daysAgo(-45)
        })
        yield* poller.poll
        const after = yield* tenderOf(original.noticeId)
        expect(after).toHaveLength(1)
        expect(after[0]!.id).toBe(before!.id)
        expect(Number(after[0]!.estimated_value_ron)).toBe(120000)
        expect(after[0]!.deadline?.toISOString().slice(0, 10)).toBe(daysAgo(-45))
        const [job] = yield* sql<{ payload: { tenderIds: Array<string>; isNew: Array<string> } }>`
          SELECT payload FROM jobs WHERE kind = 'tenders.score' AND payload->'tenderIds' ? ${before!.id}
          ORDER BY created_at DESC LIMIT 1`
        expect(job?.payload.isNew).toEqual([])
        const seen = yield* sql`SELECT tender_id FROM ingested_notices WHERE notice_ref = ${change.publicationNumber}`
        expect(seen).toEqual([{ tender_id: before!.id }])
      })
    )

    // eForms: a change of a notice already changed names the latest version, the first change notice.
    it.effect(
      "a second change notice, naming the first change, updates the one tender; not new, no second tender",
      () =>
        Effect.gen(function* () {
          const ted = yield* Ted
          const poller = yield* TedPoller
          const sql = yield* SqlClient.SqlClient
          const original = publishTed(ted, { estimatedValue: 100000 })
          yield* poller.poll
          const [before] = yield* tenderOf(original.noticeId)
          const change1 = publishTed(ted, {
            changes: { changedNoticeId: original.noticeId },
            title: original.title,
            estimatedValue: 120000
          })
          yield* poller.poll
          const change2 = publishTed(ted, {
            changes: { changedNoticeId: change1.noticeId },
            title: original.title,
            estimatedValue: 140000
          })
          yield* poller.poll
          expect(yield* tenderOf(change1.noticeId)).toEqual([])
          const after = yield* tenderOf(original.noticeId)
          expect(after.map((t) => t.id)).toEqual([before!.id])
          expect(Number(after[0]!.estimated_value_ron)).toBe(140000)
          const [job] = yield* sql<{ payload: { isNew: Array<string> } }>`
          SELECT payload FROM jobs WHERE kind = 'tenders.score' AND payload->'tenderIds' ? ${before!.id}
          ORDER BY created_at DESC LIMIT 1`
          expect(job?.payload.isNew).toEqual([])
          const seen =
            yield* sql`SELECT tender_id FROM ingested_notices WHERE notice_ref = ${change2.publicationNumber}`
          expect(seen).toEqual([{ tender_id: before!.id }])
        })
    )

    it.effect("a notice whose own link is no http(s) URL gets its TED page as source_url instead", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const poller = yield* TedPoller
        const sql = yield* SqlClient.SqlClient
        // A TED R2.0.9 notice (its link is its URI_DOC), carrying a script instead of a link.
        const xml = fs
          .readFileSync(new URL("../fixtures/ted-xml/ro-f03-award.synthetic.xml", import.meta.url), "utf8")
          .replace(/<URI_DOC LG="RO">[^<]*<\/URI_DOC>/, '<URI_DOC LG="RO">javascript:alert(1)</URI_DOC>')
          .replaceAll("612345-2021", "698765-2026")
        ted.publish({ publicationNumber: "00698765-2026", publicationDate: today(), xml })
        yield* poller.poll
        const stored = yield* sql<{ source_url: string }>`
          SELECT source_url FROM tenders WHERE source = 'ted' AND source_notice_id = '698765-2026'`
        expect(stored).toEqual([{ source_url: "https://ted.europa.eu/en/notice/-/detail/00698765-2026" }])
      })
    )

    it.effect("a notice whose XML fails is retried on its own; a malformed one is skipped with its reason", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const poller = yield* TedPoller
        const sql = yield* SqlClient.SqlClient
        const failing = publishTed(ted)
        const fine = publishTed(ted)
        ted.publish({ publicationNumber: "00799999-2026", publicationDate: today(), xml: "<ContractNotice><broken" })
        ted.failXml(failing.publicationNumber, 2, 500)
        yield* poller.poll
        // The rest of the page is in; the failed notice waits in its own job.
        expect(yield* tenderOf(fine.noticeId)).toHaveLength(1)
        expect(yield* tenderOf(failing.noticeId)).toHaveLength(0)
        const [skippedRow] = yield* sql<{ skip_reason: string }>`
          SELECT skip_reason FROM ingested_notices WHERE notice_ref = '00799999-2026'`
        expect(skippedRow?.skip_reason).toMatch(/XML|root element|notice/i)
        const [retry] = yield* sql<{ payload: { publicationNumber: string } }>`
          SELECT payload FROM jobs WHERE kind = 'ingest.ted-notice' AND status = 'queued'`
        expect(retry?.payload.publicationNumber).toBe(failing.publicationNumber)

        // The retry job reads it (the XML answers now).
        yield* sql`UPDATE jobs SET run_at = now() WHERE kind = 'ingest.ted-notice'`
        yield* drainDueJobs([readTedNoticeJob], {
          name: "ingest",
          concurrency: 1,
          lease: Duration.minutes(1),
          pollEvery: Duration.seconds(1)
        })
        expect(yield* tenderOf(failing.noticeId)).toHaveLength(1)
        const [state] = (yield* (yield* IngestState).all).filter((s) => s.name === "ted")
        expect(state!.skipped).toBeGreaterThanOrEqual(1)
      })
    )

    it.effect("a notice whose XML keeps failing is one retry job, however many polls meet it again", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const poller = yield* TedPoller
        const sql = yield* SqlClient.SqlClient
        const failing = publishTed(ted)
        ted.failXml(failing.publicationNumber, 1000, 500)
        // Polls of the same day, INGEST_POLL_SECONDS apart: each lists the notice again.
        yield* poller.poll
        yield* poller.poll
        yield* poller.poll
        const jobs = yield* sql<{ id: string }>`
          SELECT id FROM jobs WHERE kind = 'ingest.ted-notice' AND status = 'queued'
            AND payload->>'publicationNumber' = ${failing.publicationNumber}`
        expect(jobs).toHaveLength(1)
      })
    )

    it.effect("a notice listed twice in one page (pages shifting under the query) is one tender, read once", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const sql = yield* SqlClient.SqlClient
        const notice = publishTed(ted, { title: "Servicii de curățenie listate de două ori" })
        ted.publish({
          publicationNumber: notice.publicationNumber,
          publicationDate: notice.publicationDate,
          xml: eformsNoticeXml(notice)
        })
        yield* (yield* TedPoller).poll
        const tenders = yield* sql`SELECT id FROM tenders WHERE source_notice_id = ${notice.noticeId}`
        expect(tenders).toHaveLength(1)
        const seen = yield* sql<{ tender_id: string }>`
          SELECT tender_id FROM ingested_notices WHERE source = 'ted' AND notice_ref = ${notice.publicationNumber}`
        expect(seen).toEqual([{ tender_id: (tenders[0] as { id: string }).id }])
      })
    )

    it.effect("429 with Retry-After: waits as asked, then goes on", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const poller = yield* TedPoller
        const notice = publishTed(ted)
        ted.rateLimitSearch(1, 1)
        const before = searches(ted).length
        const started = Date.now()
        yield* poller.poll
        expect(Date.now() - started).toBeGreaterThanOrEqual(900)
        expect(searches(ted).length - before).toBeGreaterThanOrEqual(2)
        expect(yield* tenderOf(notice.noticeId)).toHaveLength(1)
      })
    )

    it.effect("a saved iteration token TED no longer accepts: the query starts again from the watermark", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const poller = yield* TedPoller
        const state = yield* IngestState
        const notice = publishTed(ted)
        yield* state.saveCursor("ted", { day: today(), token: "expired-token" })
        yield* poller.poll
        expect(yield* tenderOf(notice.noticeId)).toHaveLength(1)
        const [after] = (yield* state.all).filter((s) => s.name === "ted")
        expect(after?.cursor).toBeNull()
      })
    )
  })

  layer(IngestTestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect(
      "an original and its change met in one search page: the change's value, the original's publication date",
      () =>
        Effect.gen(function* () {
          const ted = yield* Ted
          const poller = yield* TedPoller
          // Published yesterday, changed today; the first poll asks from yesterday (both on one page).
          const original = publishTed(ted, { publicationDate: daysAgo(1), estimatedValue: 100000 })
          publishTed(ted, {
            changes: { changedNoticeId: original.noticeId },
            title: original.title,
            estimatedValue: 120000
          })
          yield* poller.poll
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ estimated_value_ron: string; publish_date: Date }>`
          SELECT estimated_value_ron, publish_date FROM tenders WHERE source = 'ted-eforms'`
          expect(rows).toHaveLength(1)
          expect(Number(rows[0]!.estimated_value_ron)).toBe(120000)
          expect(bucharestDate(rows[0]!.publish_date.getTime())).toBe(daysAgo(1))
        })
    )
  })

  layer(IngestTestLive({ pageSize: 2, spacing: { ted: Duration.millis(400), seap: Duration.zero } }), {
    excludeTestServices: true,
    timeout: 60_000
  })((it) => {
    it.effect("stopped in the middle of paging, the next poll resumes at the saved page: no gap, nothing twice", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const poller = yield* TedPoller
        const sql = yield* SqlClient.SqlClient
        const notices = [1, 2, 3, 4, 5, 6].map(() => publishTed(ted))
        const fiber = yield* Effect.fork(poller.poll)
        // The first page is in (its two notices read and the paging state saved with them): stop.
        yield* eventually(
          sql<{ n: number }>`SELECT count(*)::int AS n FROM ingested_notices WHERE source = 'ted'`.pipe(
            Effect.map(([row]) => (row!.n >= 2 ? true : undefined)),
            Effect.orDie
          )
        )
        yield* Fiber.interrupt(fiber)
        const [stopped] = (yield* (yield* IngestState).all).filter((s) => s.name === "ted")
        const cursor = stopped?.cursor as { token: string | null } | null
        expect(cursor?.token).toEqual(expect.any(String))
        const searchesBefore = searches(ted).length
        yield* pause(50)
        yield* poller.poll
        // Resumed with the saved token, not from the start.
        const resumed = searches(ted)[searchesBefore]?.body as { iterationNextToken?: string }
        expect(resumed.iterationNextToken).toBe(cursor?.token)
        for (const notice of notices) {
          expect(yield* tenderOf(notice.noticeId)).toHaveLength(1)
          expect(xmlGets(ted, notice.publicationNumber)).toBe(1)
        }
        const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tenders`
        expect(rows[0]!.n).toBe(6)
      })
    )
  })
})
