import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, Layer, Option, Ref, TestClock } from "effect"
import {
  NOTICE_RETRY,
  parseRetryAfter,
  SourceFailure,
  sourceRetrySchedule
} from "../../src/domain/ingest/SourceFailure.js"
import { delayAfterFailure } from "../../src/domain/Retries.js"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { ReadSeapNotice } from "../../src/infra/ingest/SeapPoller.js"
import { ReadTedNotice } from "../../src/infra/ingest/TedPoller.js"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { IngestionWith, runPoller } from "../../src/workers/IngestPollers.js"
import { seedAccount, signIn } from "../account/fixtures.js"
import { expectJson, runCli } from "../foundation/processes.js"
import { seapContractNotice } from "../support/FakeSeap.js"
import { request } from "../support/http.js"
import { startTestServer, TestInfraLive } from "../support/TestServer.js"
import { eventually } from "../webhooks/fixtures.js"
import { FakeSeapLive, FakeTedLive, IngestTestLive, Seap, TestIngestConfig, today } from "./ingestFixtures.js"

const failure = (reason: SourceFailure["reason"], retryAfter?: Duration.Duration) =>
  new SourceFailure({ source: "ted", reason, status: null, retryAfter, message: reason })

/** Lets forked fibers and real I/O (the database) run between two moves of the TestClock. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 30)))

/**
 * settle, then on until some fiber sleeps on the TestClock (the poller waiting for its next poll)
 * or 2 s have passed: under load a failed poll's write of its error can outlast 30 ms, and moving
 * the clock before the poller sleeps would shift its next poll by a second.
 */
const settleUntilSleeping = Effect.gen(function* () {
  yield* settle
  for (let waited = 0; waited < 2_000 && (yield* TestClock.sleeps()).length === 0; waited += 30) yield* settle
})

describe("the retries of one request to a source (TestClock)", () => {
  it.effect("waits what Retry-After asks, backs off otherwise, and never retries a refusal", () =>
    Effect.gen(function* () {
      const attempts = yield* Ref.make<Array<number>>([])
      const answers = [failure("rate-limited", Duration.seconds(30)), failure("server"), failure("timeout")]
      const request = Effect.gen(function* () {
        const done = yield* Ref.getAndUpdate(attempts, (list) => [...list, 0])
        const now = yield* Clock.currentTimeMillis
        yield* Ref.update(attempts, (list) => [...list.slice(0, -1), now])
        const answer = answers[done.length]
        return answer === undefined ? "ok" : yield* Effect.fail(answer)
      })
      const fiber = yield* Effect.fork(Effect.retry(request, sourceRetrySchedule(4)))
      yield* TestClock.adjust(Duration.seconds(29))
      expect(yield* Ref.get(attempts)).toHaveLength(1)
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* Ref.get(attempts)).toEqual([0, 30_000])
      // Then 1 s and 2 s (jittered), at most a few seconds in all.
      yield* TestClock.adjust(Duration.seconds(10))
      expect(yield* Fiber.join(fiber)).toBe("ok")
      const times = yield* Ref.get(attempts)
      expect(times).toHaveLength(4)
      expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(800)
      expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(1_600)

      const refused = yield* Ref.make(0)
      const outcome = yield* Effect.retry(
        Ref.update(refused, (n) => n + 1).pipe(Effect.zipRight(Effect.fail(failure("refused")))),
        sourceRetrySchedule(4)
      ).pipe(Effect.flip)
      expect(outcome.reason).toBe("refused")
      expect(yield* Ref.get(refused)).toBe(1)
    })
  )
})

describe("a Retry-After longer than a request waits (TestClock)", () => {
  it.effect("is not cut to 10 minutes: the request is not retried, its failure keeps the whole wait", () =>
    Effect.gen(function* () {
      const wait = parseRetryAfter("3600", 0)
      expect(wait === undefined ? undefined : Duration.toMillis(wait)).toBe(3_600_000)
      const calls = yield* Ref.make(0)
      const request = Ref.updateAndGet(calls, (n) => n + 1).pipe(
        Effect.flatMap((n) => (n === 1 ? Effect.fail(failure("rate-limited", wait)) : Effect.succeed("ok")))
      )
      const fiber = yield* Effect.fork(Effect.either(Effect.retry(request, sourceRetrySchedule(4))))
      yield* TestClock.adjust(Duration.minutes(11))
      expect(yield* Ref.get(calls)).toBe(1)
      const outcome = yield* Fiber.join(fiber)
      expect(outcome._tag === "Left" ? outcome.left.retryAfter : undefined).toEqual(wait)
    })
  )
})

describe("a notice's retry job", () => {
  it.effect("reads the notice again 1, 2, 4 … 64 minutes later, then every 2 hours, for about a week", () =>
    Effect.gen(function* () {
      // The job runs at most maxAttempts times: a delay follows each of the first maxAttempts - 1 failures.
      const delays: Array<number> = []
      for (let failure = 1; failure < NOTICE_RETRY.maxAttempts; failure++) {
        const delay = yield* delayAfterFailure(NOTICE_RETRY.retry, failure)
        delays.push(Duration.toMinutes(Option.getOrThrow(delay)))
      }
      expect(delays.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 120])
      expect(new Set(delays.slice(7))).toEqual(new Set([120]))
      // A TED maintenance or a SEAP outage of days: the notice is read again within the week.
      const days = delays.reduce((sum, minutes) => sum + minutes, 0) / (24 * 60)
      expect(days).toBeGreaterThan(6.5)
      expect(days).toBeLessThan(8)
    })
  )
})

describe("a poller's schedule (TestClock)", () => {
  layer(IngestTestLive({ pollEvery: Duration.seconds(10) }), { timeout: 60_000 })((it) => {
    it.effect("polls every INGEST_POLL_SECONDS, doubles the wait while the source fails, records each failure", () =>
      Effect.gen(function* () {
        const polls = yield* Ref.make<Array<number>>([])
        const outcomes = [false, false, false, true, true]
        const poll = Effect.gen(function* () {
          const done = yield* Ref.get(polls)
          yield* Ref.set(polls, [...done, yield* Clock.currentTimeMillis])
          if (outcomes[done.length] === false) return yield* Effect.fail(failure("unreachable"))
        })
        const start = yield* Clock.currentTimeMillis
        const fiber = yield* Effect.fork(runPoller("ted", poll))
        for (let second = 0; second < 90; second++) {
          yield* settleUntilSleeping
          yield* TestClock.adjust(Duration.seconds(1))
        }
        yield* settle
        yield* Fiber.interrupt(fiber)
        const offsets = (yield* Ref.get(polls)).map((at) => (at - start) / 1000)
        // 10 s × 2, × 4, × 8 after one, two, three failures in a row; 10 s again once it answers.
        expect(offsets.slice(0, 6)).toEqual([0, 20, 60, 140, 150, 160].filter((s) => s <= 90))
        const [ted] = (yield* (yield* IngestState).all).filter((s) => s.name === "ted")
        expect(ted?.last_error).toBe("unreachable")
      })
    )
  })
})

describe("a poller asked to wait an hour (TestClock)", () => {
  layer(IngestTestLive({ pollEvery: Duration.seconds(10) }), { timeout: 60_000 })((it) => {
    it.effect("polls the source again only once its Retry-After has run out", () =>
      Effect.gen(function* () {
        const polls = yield* Ref.make<Array<number>>([])
        const poll = Effect.gen(function* () {
          const done = yield* Ref.get(polls)
          yield* Ref.set(polls, [...done, yield* Clock.currentTimeMillis])
          if (done.length === 0) return yield* Effect.fail(failure("rate-limited", Duration.hours(1)))
        })
        const start = yield* Clock.currentTimeMillis
        const fiber = yield* Effect.fork(runPoller("ted", poll))
        for (let minute = 0; minute < 62; minute++) {
          yield* settleUntilSleeping
          yield* TestClock.adjust(Duration.minutes(1))
        }
        yield* settle
        yield* Fiber.interrupt(fiber)
        const offsets = (yield* Ref.get(polls)).map((at) => (at - start) / 60_000)
        expect(offsets.slice(0, 2)).toEqual([0, 60])
      })
    )
  })
})

describe("pollers side by side: one source down, the other ingests; status and /ready tell the truth", () => {
  const Pollers = IngestionWith(
    TestIngestConfig({ tedApiUrl: "http://127.0.0.1:65534", pollEvery: Duration.seconds(1) })
  ).pipe(Layer.provideMerge(Layer.mergeAll(FakeTedLive, FakeSeapLive)), Layer.provideMerge(TestInfraLive()))

  layer(Pollers, { excludeTestServices: true, timeout: 90_000 })((it) => {
    it.effect("TED unreachable: its error is recorded and SEAP's notices still come in", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const notice = seapContractNotice({ publicationDate: today(), title: "Lucrări de reabilitare școală" })
        seap.publishContractNotice(notice)
        yield* eventually(
          sql<{
            id: string
          }>`SELECT id FROM tenders WHERE source = 'sicap' AND source_notice_id = ${notice.item.noticeNo}`.pipe(
            Effect.map((rows) => rows[0]),
            Effect.orDie
          )
        )
        // A poll fails only once its request's retries (1, 2, 4, 8 s with jitter) are spent: ~15 s.
        const ted = yield* eventually(
          Effect.map(IngestState, (state) => state).pipe(
            Effect.flatMap((state) => state.all),
            Effect.map((all) => all.find((s) => s.name === "ted" && s.last_error !== null))
          ),
          45
        )
        expect(ted.enabled).toBe(true)
        expect(ted.last_error).toMatch(/unreachable: fetch failed: ECONNREFUSED/)
      })
    )
  })

  it("sources status (CLI) and /ready (200, the degraded source named) during an outage", async () => {
    const server = await startTestServer()
    try {
      await server.run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`
            INSERT INTO ingest_sources (name, poller_alive_until, watermark, last_success_at, last_error_at, last_error, ingested, skipped)
            VALUES ('ted', now() + interval '3 minutes', '2026-11-20', '2026-11-20T08:00:00Z', '2026-11-20T09:00:00Z', 'ted unreachable: ECONNREFUSED', 42, 1),
                   ('seap', now() + interval '3 minutes', '2026-11-20', '2026-11-20T09:30:00Z', '2026-11-20T07:00:00Z', 'seap answered 429', 7, 0)`
        )
      )
      const ready = await fetch(`${server.baseUrl}/ready`)
      expect(ready.status).toBe(200)
      const body = (await ready.json()) as any
      expect(body.checks.sources).toEqual({ ted: "degraded", seap: "ok" })
      expect(body.degraded).toEqual([{ source: "ted", lastError: "ted unreachable: ECONNREFUSED" }])

      const status = expectJson(await runCli(server.databaseUrl, "sources", "status"))
      expect(status).toEqual({
        sources: [
          {
            name: "ted",
            enabled: true,
            watermark: "2026-11-20",
            lastSuccessAt: "2026-11-20T08:00:00.000Z",
            lastErrorAt: "2026-11-20T09:00:00.000Z",
            lastError: "ted unreachable: ECONNREFUSED",
            ingested: 42,
            skipped: 1,
            retryingNotices: 0,
            lostNotices: 0
          },
          {
            name: "seap",
            enabled: true,
            watermark: "2026-11-20",
            lastSuccessAt: "2026-11-20T09:30:00.000Z",
            lastErrorAt: "2026-11-20T07:00:00.000Z",
            lastError: "seap answered 429",
            ingested: 7,
            skipped: 0,
            retryingNotices: 0,
            lostNotices: 0
          }
        ]
      })
    } finally {
      await server.close()
    }
  }, 120_000)

  it("sources status (CLI) and GET /api/v1/sources count each source's notices retrying and lost (dead-lettered)", async () => {
    const server = await startTestServer()
    try {
      await server.run(
        Effect.gen(function* () {
          const queue = yield* JobQueue
          const sql = yield* SqlClient.SqlClient
          const ted = (n: number) => ({
            payload: { publicationNumber: `0070000${n}-2026`, publicationDay: "2026-11-20", xmlUrl: "x", pageUrl: "p" },
            groupKey: `ted:${n}`
          })
          yield* queue.enqueueAll(ReadTedNotice, [ted(1), ted(2), ted(3)])
          yield* queue.enqueueAll(ReadSeapNotice, [{ payload: { list: "cn", item: {} }, groupKey: "seap:1" }])
          // TED notice 1 is at its last attempt: the queue dead-letters it; 2 fails and waits for
          // its next attempt; 3 is read on retry (done, not counted).
          yield* sql`UPDATE jobs SET attempts = max_attempts - 1 WHERE group_key = 'ted:1'`
          const { jobs } = yield* queue.claim({
            kinds: [ReadTedNotice.name],
            workerId: "test",
            limit: 10,
            lease: Duration.minutes(1)
          })
          expect(jobs).toHaveLength(3)
          for (const job of jobs) {
            const ref = (job.payload as { publicationNumber: string }).publicationNumber
            const settlement = ref.startsWith("00700003")
              ? ({ _tag: "done" } as const)
              : yield* queue.failureOf(ReadTedNotice, job, "ted unreachable")
            expect(yield* queue.settle(job, settlement)).toBe(true)
          }
          const [dead] = yield* sql<{ group_key: string }>`SELECT group_key FROM jobs WHERE status = 'dead'`
          expect(dead?.group_key).toBe("ted:1")
        })
      )
      const counts = (sources: ReadonlyArray<any>) =>
        sources.map(({ name, retryingNotices, lostNotices }) => ({ name, retryingNotices, lostNotices }))
      const expected = [
        { name: "ted", retryingNotices: 1, lostNotices: 1 },
        { name: "seap", retryingNotices: 1, lostNotices: 0 }
      ]
      const status = expectJson(await runCli(server.databaseUrl, "sources", "status")) as any
      expect(counts(status.sources)).toEqual(expected)

      const account = await seedAccount(server, "free")
      const { accessToken } = await signIn(server, account)
      const api = await request(`${server.baseUrl}/api/v1/sources`, { token: accessToken })
      expect(api.status).toBe(200)
      expect(counts(api.body.data)).toEqual(expected)
    } finally {
      await server.close()
    }
  }, 120_000)
})
