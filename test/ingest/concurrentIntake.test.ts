import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { addDays } from "../../src/domain/ingest/PublicationDays.js"
import { SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { seapContractNotice } from "../support/FakeSeap.js"
import { hospitalMaintenance, IngestTestLive, publishTed, Seap, Ted, today } from "./ingestFixtures.js"

/** The pollers of both sources run at once in a worker: their pages are taken in one at a time. */
describe("TED and SEAP pages taken in at the same time", () => {
  layer(IngestTestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("the SEAP notice joins the TED tender whose page transaction had not committed yet", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const deadline = addDays(today(), 30)
        // The pair of joinedProcedure.test.ts ("TED first, SEAP joins").
        const pair = hospitalMaintenance(deadline)
        const onTed = publishTed(ted, pair.ted)
        const onSeap = seapContractNotice({ ...pair.seap, deadline: `${deadline}T10:00` })
        seap.publishContractNotice(onSeap)
        // TED's page is taken in and its transaction held open while SEAP takes in its page.
        const tedTakenIn = yield* Deferred.make<void>()
        const commit = yield* Deferred.make<void>()
        const tedPoll = yield* sql
          .withTransaction(
            (yield* TedPoller).poll.pipe(
              Effect.zipRight(Deferred.succeed(tedTakenIn, undefined)),
              Effect.zipRight(Deferred.await(commit))
            )
          )
          .pipe(Effect.fork)
        yield* Deferred.await(tedTakenIn)
        const seapPoll = yield* (yield* SeapPoller).poll.pipe(Effect.fork)
        yield* Effect.sleep("2 seconds")
        yield* Deferred.succeed(commit, undefined)
        yield* Fiber.join(tedPoll)
        yield* Fiber.join(seapPoll)
        const rows = yield* sql<{ source: string }>`
          SELECT source FROM tenders WHERE source_notice_id IN (${onTed.noticeId}, ${onSeap.item.noticeNo})`
        expect(rows.map((row) => row.source)).toEqual(["ted-eforms"])
      })
    )
  })
})
