import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { AuditIngestLive, rewriteJson, TedProxy } from "./hostileSources.js"
import { daysAgo, publishTed, Ted, today } from "./ingestFixtures.js"

/**
 * A TED search result whose listing cannot be read (no links) is skipped but not marked read, so
 * that a later poll that lists it whole reads it: the watermark must not pass its day meanwhile,
 * though the poll read later days (for 7 days at most: one that stays unreadable is given up).
 */
const tendersOf = (noticeId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string }>`SELECT id FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${noticeId}`.pipe(
      Effect.orDie
    )
  )

const tedState = Effect.flatMap(IngestState, (state) =>
  Effect.map(state.all, (all) => all.find((s) => s.name === "ted")!)
)

/** The proxy answers without the links of this notice's search result. */
const withoutLinks = (publicationNumber: string) =>
  rewriteJson(/\/v3\/notices\/search/, (json) => {
    for (const result of json.notices) if (result["publication-number"] === publicationNumber) delete result.links
    return json
  })

describe("a TED search result unreadable in its listing, on a day before the poll's latest", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("keeps the watermark on its day: a later poll that lists it whole reads it", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* TedProxy
        // Yesterday's notice (the first poll asks from yesterday) whose listing lacks its links once,
        // and one of today, read fine.
        const yesterdays = publishTed(ted, { publicationDate: daysAgo(1) })
        const todays = publishTed(ted)
        proxy.rule(withoutLinks(yesterdays.publicationNumber))
        yield* (yield* TedPoller).poll
        expect(yield* tendersOf(todays.noticeId)).toHaveLength(1)
        expect(yield* tendersOf(yesterdays.noticeId)).toHaveLength(0)
        const held = yield* tedState
        expect(held).toMatchObject({ watermark: daysAgo(1), cursor: null })
        // TED answers whole again: the next poll lists yesterday's notice and reads it.
        proxy.clear()
        yield* (yield* TedPoller).poll
        expect(yield* tendersOf(yesterdays.noticeId)).toHaveLength(1)
        expect((yield* tedState).watermark).toBe(today())
      })
    )

    it.effect("holds the watermark 7 days at most: one that stays unreadable is given up", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* TedProxy
        const sql = yield* SqlClient.SqlClient
        proxy.clear()
        // A poll catching up from 10 days ago meets a notice of 9 days ago that never has its links.
        yield* sql`UPDATE ingest_sources SET watermark = ${daysAgo(10)}::date WHERE name = 'ted'`
        const unreadable = publishTed(ted, { publicationDate: daysAgo(9) })
        const todays = publishTed(ted)
        proxy.rule(withoutLinks(unreadable.publicationNumber))
        yield* (yield* TedPoller).poll
        expect(yield* tendersOf(todays.noticeId)).toHaveLength(1)
        expect((yield* tedState).watermark).toBe(daysAgo(7))
        // The next poll asks from 7 days ago: it no longer lists the notice, and moves on.
        yield* (yield* TedPoller).poll
        expect((yield* tedState).watermark).toBe(today())
        expect(yield* tendersOf(unreadable.noticeId)).toHaveLength(0)
      })
    )

    it.effect("a poll resumed after a restart still holds the watermark for its earlier pages' unread result", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const sql = yield* SqlClient.SqlClient
        ;(yield* TedProxy).clear()
        // Stopped after its last page (an unread result on an earlier one), before the poll finished.
        const cursor = { day: daysAgo(1), token: null, held: true }
        yield* sql`UPDATE ingest_sources SET watermark = ${daysAgo(1)}::date, cursor = ${JSON.stringify(cursor)}::jsonb
                   WHERE name = 'ted'`
        const todays = publishTed(ted)
        yield* (yield* TedPoller).poll
        expect(yield* tendersOf(todays.noticeId)).toHaveLength(1)
        expect(yield* tedState).toMatchObject({ watermark: daysAgo(1), cursor: null })
      })
    )
  })
})
