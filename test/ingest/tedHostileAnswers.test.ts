import { randomBytes } from "node:crypto"
import { FetchHttpClient } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Option } from "effect"
import { parsed } from "../../src/domain/tenders/formats/ParsedItem.js"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { NoticeIntake } from "../../src/infra/ingest/NoticeIntake.js"
import { makeSourceClient } from "../../src/infra/ingest/SourceClient.js"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { eformsNoticeXml } from "../support/FakeTed.js"
import { AuditIngestLive, firstPageForEver, rewriteJson, startOtherHost, TedProxy } from "./hostileSources.js"
import { publishTed, Ted, today } from "./ingestFixtures.js"

/**
 * The TED poller against answers a careful client does not take as TED's (a proxy in front of the
 * fake TED mutates them): one bad notice stops neither its page nor its source, a listing that could
 * not be read loses no notice, and nothing from another host is imported as TED's.
 */

/** Why a poll ended badly, with the database's own reason when it was a statement. */
const why = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return ""
  const error = Cause.squash(exit.cause) as { message?: string; cause?: { message?: string } }
  return `${error.message ?? String(error)}${error.cause?.message ? `: ${error.cause.message}` : ""}`
}

/** The proxy without the rules of the tests before (one that failed early left its own). */
const cleanProxy = Effect.map(TedProxy, (proxy) => {
  proxy.clear()
  return proxy
})

const tendersOf = (noticeId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; title: string; publish_date: Date }>`
      SELECT id, title, publish_date FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${noticeId}`.pipe(
      Effect.orDie
    )
  )

const readMark = (publicationNumber: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ skip_reason: string | null }>`
      SELECT skip_reason FROM ingested_notices WHERE source = 'ted' AND notice_ref = ${publicationNumber}`.pipe(
      Effect.orDie
    )
  )

const tedState = Effect.flatMap(IngestState, (state) => state.all).pipe(
  Effect.map((all) => all.find((s) => s.name === "ted"))
)

/** The search results of one notice, changed as `change` says. */
const rewriteResult = (publicationNumber: string, change: (result: Record<string, unknown>) => void) =>
  rewriteJson(/\/v3\/notices\/search/, (json) => {
    for (const result of json.notices) if (result["publication-number"] === publicationNumber) change(result)
    return json
  })

describe("TED search results that cannot be read", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("a result that once lacks its links is read when a later poll lists it whole", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* cleanProxy
        const notice = publishTed(ted)
        proxy.rule(rewriteResult(notice.publicationNumber, (result) => delete result.links))
        yield* (yield* TedPoller).poll
        expect(yield* tendersOf(notice.noticeId)).toHaveLength(0)
        expect(yield* readMark(notice.publicationNumber)).toEqual([])
        // TED answers whole again: the same day is asked again (the watermark's own day) and lists it.
        proxy.clear()
        yield* (yield* TedPoller).poll
        expect(yield* tendersOf(notice.noticeId)).toHaveLength(1)
      })
    )

    it.effect("a result whose XML link names another host is skipped, that host never asked", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* cleanProxy
        const notice = publishTed(ted)
        let asked = 0
        const other = yield* Effect.acquireRelease(
          Effect.promise(() =>
            startOtherHost((_, res) => {
              asked++
              res.writeHead(200, { "content-type": "application/xml" }).end(eformsNoticeXml(notice))
            })
          ),
          (server) => Effect.promise(() => server.close())
        )
        proxy.rule(
          rewriteResult(notice.publicationNumber, (result) => {
            result.links = { xml: { MUL: `${other.url}/en/notice/${notice.publicationNumber}/xml` } }
          })
        )
        yield* (yield* TedPoller).poll
        expect(asked).toBe(0)
        expect(yield* tendersOf(notice.noticeId)).toHaveLength(0)
        // A listing's fault, not the notice's: not marked read, so a whole listing later reads it.
        expect(yield* readMark(notice.publicationNumber)).toEqual([])
        proxy.clear()
        yield* (yield* TedPoller).poll
        expect(yield* tendersOf(notice.noticeId)).toHaveLength(1)
      }).pipe(Effect.scoped)
    )

    it.effect("a publication number of 4,000 characters is skipped: the other notices come in, the polls end", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* cleanProxy
        const sql = yield* SqlClient.SqlClient
        const hostile = publishTed(ted)
        const fine = publishTed(ted)
        // 4,000 characters that do not compress (a btree entry holds at most ~2.7 kB).
        const absurd = `${randomBytes(3000).toString("base64")}-2026`
        proxy.rule(rewriteResult(hostile.publicationNumber, (result) => (result["publication-number"] = absurd)))
        const first = yield* Effect.exit((yield* TedPoller).poll)
        const second = yield* Effect.exit((yield* TedPoller).poll)
        expect(Exit.isSuccess(first), why(first)).toBe(true)
        expect(Exit.isSuccess(second)).toBe(true)
        expect(yield* tendersOf(fine.noticeId)).toHaveLength(1)
        // Not read, so not marked read (under no reference, long or short); counted as skipped.
        const marks = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM ingested_notices WHERE source = 'ted' AND skip_reason IS NOT NULL`
        expect(marks[0]!.n).toBe(0)
        expect((yield* tedState)?.skipped).toBeGreaterThanOrEqual(1)
      })
    )
  })
})

describe("a TED iteration that never ends (the same token and page again and again)", () => {
  layer(AuditIngestLive({ spacing: { ted: Duration.millis(20), seap: Duration.zero } }), {
    excludeTestServices: true,
    timeout: 60_000
  })((it) => {
    it.effect("fails the poll instead of paging forever; the next poll starts again from the watermark", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* cleanProxy
        const first = publishTed(ted)
        publishTed(ted)
        // Every answer names the token "again", and asking with it answers the first page again.
        proxy.rule(async (request, upstream) => {
          if (!request.path.startsWith("/v3/notices/search")) return undefined
          const asked = JSON.parse(request.body) as { iterationNextToken?: string }
          if (asked.iterationNextToken === "again") {
            const { iterationNextToken: _, ...firstPage } = asked
            const answer = await fetch(`${proxy.upstream}/v3/notices/search`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(firstPage)
            })
            const json = (await answer.json()) as Record<string, unknown>
            return {
              status: 200,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ ...json, iterationNextToken: "again" }).replaceAll(proxy.upstream, proxy.url)
            }
          }
          const answer = await upstream()
          const json = JSON.parse(answer.body)
          return { ...answer, body: JSON.stringify({ ...json, iterationNextToken: "again" }) }
        })
        const ended = yield* (yield* TedPoller).poll.pipe(Effect.exit, Effect.timeout("10 seconds"), Effect.option)
        const searches = proxy.requests.filter((r) => r.path.startsWith("/v3/notices/search")).length
        expect(ended._tag, `the poll was still paging after 10 s and ${searches} searches`).toBe("Some")
        const exit = ended._tag === "Some" ? ended.value : Exit.void
        expect(why(exit)).toMatch(/iteration/i)
        // What the loop gave before it was seen is in; the looping token is not kept for the next poll.
        expect(yield* tendersOf(first.noticeId)).toHaveLength(1)
        expect((yield* tedState)?.cursor).toBeNull()
        proxy.clear()
        yield* (yield* TedPoller).poll
        expect((yield* tedState)?.last_success_at).toBeInstanceOf(Date)
      })
    )
  })
})

describe("a TED iteration that names a new token each time but answers the first page again", () => {
  layer(AuditIngestLive({ spacing: { ted: Duration.millis(20), seap: Duration.zero } }), {
    excludeTestServices: true,
    timeout: 60_000
  })((it) => {
    it.effect("fails the poll once its pages are far past what TED's totalNoticeCount needs", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* cleanProxy
        publishTed(ted)
        const searches = firstPageForEver(proxy, { counted: true })
        const ended = yield* (yield* TedPoller).poll.pipe(Effect.exit, Effect.timeout("10 seconds"), Effect.option)
        expect(ended._tag, `the poll was still paging after 10 s and ${searches()} searches`).toBe("Some")
        expect(why(ended._tag === "Some" ? ended.value : Exit.void)).toMatch(
          /iteration does not end \(12 pages for 1 notices\)/
        )
      })
    )
  })
})

describe("a notice XML redirected", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("to another host: that host is not asked, nothing of it imported as TED's", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* cleanProxy
        const notice = publishTed(ted)
        let asked = 0
        const other = yield* Effect.acquireRelease(
          Effect.promise(() =>
            startOtherHost((_, res) => {
              asked++
              res
                .writeHead(200, { "content-type": "application/xml" })
                .end(eformsNoticeXml({ ...notice, title: "Anunț injectat de alt server" }))
            })
          ),
          (server) => Effect.promise(() => server.close())
        )
        proxy.rule((request) =>
          request.path === `/en/notice/${notice.publicationNumber}/xml`
            ? { status: 302, headers: { location: `${other.url}/elsewhere.xml` }, body: "" }
            : undefined
        )
        yield* (yield* TedPoller).poll
        const [stored] = yield* tendersOf(notice.noticeId)
        expect(stored?.title).not.toBe("Anunț injectat de alt server")
        expect(asked).toBe(0)
      }).pipe(Effect.scoped)
    )

    it.effect("within TED's own host: followed, the notice read", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* cleanProxy
        const notice = publishTed(ted)
        proxy.rule((request) =>
          request.path === `/en/notice/${notice.publicationNumber}/xml`
            ? { status: 301, headers: { location: `/en/notice/${notice.publicationNumber}/xml?moved` }, body: "" }
            : undefined
        )
        yield* (yield* TedPoller).poll
        const [stored] = yield* tendersOf(notice.noticeId)
        expect(stored?.title).toBe(notice.title)
        expect(proxy.requests.some((r) => r.path.endsWith("/xml?moved"))).toBe(true)
      })
    )
  })
})

describe("a source's client whose own hosts are not named (SEAP's)", () => {
  it.effect("follows a redirect on the request's own host, refuses one to another host unasked", () =>
    Effect.gen(function* () {
      let asked = 0
      const other = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startOtherHost((_, res) => {
            asked++
            res.writeHead(200, { "content-type": "application/json" }).end('{"from":"elsewhere"}')
          })
        ),
        (server) => Effect.promise(() => server.close())
      )
      const source = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startOtherHost((req, res) => {
            if (req.url === "/moved") res.writeHead(307, { location: "/here" }).end()
            else if (req.url === "/away") res.writeHead(302, { location: `${other.url}/there` }).end()
            else res.writeHead(200, { "content-type": "application/json" }).end('{"from":"source"}')
          })
        ),
        (server) => Effect.promise(() => server.close())
      )
      const client = yield* makeSourceClient({ source: "seap", spacing: Duration.zero, userAgent: "test" })
      expect(yield* client.getJson(`${source.url}/moved`, 0)).toEqual({ from: "source" })
      const away = yield* Effect.either(client.getJson(`${source.url}/away`, 0))
      expect(away._tag === "Left" && away.left.reason).toBe("refused")
      expect(away._tag === "Left" && away.left.message).toMatch(/302 to another host .*not followed/)
      expect(asked).toBe(0)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
  )
})

describe("a notice dated in year 9999", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("is skipped with its reason, not stored as published in 9999; the watermark stays today", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const notice = publishTed(ted, { publicationDate: "9999-12-31" })
        const fine = publishTed(ted)
        yield* (yield* TedPoller).poll
        expect(yield* tendersOf(notice.noticeId)).toEqual([])
        expect(yield* tendersOf(fine.noticeId)).toHaveLength(1)
        const [mark] = yield* readMark(notice.publicationNumber)
        expect(mark?.skip_reason).toMatch(/publication date 9999-12-3\d.* future/)
        expect((yield* tedState)?.watermark).toBe(today())
      })
    )
  })
})

describe("two polls of TED at once (two workers, or a poll still running when the next starts)", () => {
  layer(AuditIngestLive({ pageSize: 2 }), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("one reads the pages, the other is skipped: each notice read and new once, counted once", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* cleanProxy
        const sql = yield* SqlClient.SqlClient
        const notices = [1, 2, 3, 4, 5, 6].map(() => publishTed(ted))
        const poller = yield* TedPoller
        yield* Effect.all([poller.poll, poller.poll], { concurrency: 2 })
        const rows = yield* sql<{ source_notice_id: string }>`
          SELECT source_notice_id FROM tenders WHERE source = 'ted-eforms'`
        expect(rows.map((r) => r.source_notice_id).sort()).toEqual(notices.map((n) => n.noticeId).sort())
        for (const notice of notices) {
          expect(proxy.requests.filter((r) => r.path === `/en/notice/${notice.publicationNumber}/xml`)).toHaveLength(1)
        }
        const scored = yield* sql<{ payload: { isNew: Array<string>; changed: Array<string> } }>`
          SELECT payload FROM jobs WHERE kind = 'tenders.score'`
        const fresh = scored.flatMap((job) => job.payload.isNew)
        expect(new Set(fresh).size).toBe(fresh.length)
        expect(fresh).toHaveLength(6)
        // Nothing changed: no notice rescored as a change, none counted twice in `sources status`.
        expect(scored.flatMap((job) => job.payload.changed)).toEqual([])
        expect(yield* tedState).toMatchObject({ watermark: today(), cursor: null, ingested: 6 })
        // The lease is given back: the next poll runs.
        const later = publishTed(ted)
        yield* poller.poll
        expect(yield* tendersOf(later.noticeId)).toHaveLength(1)
      })
    )
  })
})

describe("a page whose read marks the database refuses in part", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("loses only the refused mark: the page's tenders, the other marks and the paging state are kept", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* (yield* IngestState).open("ted", today())
        const record = (id: string) => ({
          source: "ted-eforms",
          source_id: id,
          title: `Furnizare echipamente IT ${id}`,
          cpv_codes: ["30200000"],
          contracting_authority: { name: "Primăria Municipiului Cluj-Napoca", fiscal_code: "4305857" },
          publish_date: `${today()}T08:00:00Z`
        })
        // A reference the read-marks index cannot hold, beside a fine one (a source's bug, a forgery).
        const long = randomBytes(3000).toString("base64")
        const notice = (ref: string, id: string) => ({
          ref,
          version: 0,
          tedRef: null,
          pageUrl: "",
          item: parsed(ref, record(id))
        })
        const result = yield* (yield* NoticeIntake).intake(
          "ted",
          [notice(long, "refused-mark"), notice("00812345-2026", "kept-mark")],
          Option.some({ day: today(), token: "next-page" })
        )
        expect(result.inserted).toBe(2)
        const marks = yield* sql<{ notice_ref: string }>`SELECT notice_ref FROM ingested_notices WHERE source = 'ted'`
        expect(marks.map((m) => m.notice_ref)).toEqual(["00812345-2026"])
        expect((yield* tedState)?.cursor).toEqual({ day: today(), token: "next-page" })
      })
    )
  })
})
