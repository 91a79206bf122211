import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock, TestContext } from "effect"
import { IngestState, isDegraded, sourceStatus } from "../../src/infra/ingest/IngestState.js"
import { scrapeSource } from "../../src/infra/metrics/MetricsEndpoint.js"
import { IngestionWith } from "../../src/workers/IngestPollers.js"
import { TestInfraLive } from "../support/TestServer.js"
import { FakeSeapLive, FakeTedLive, TestIngestConfig, today } from "./ingestFixtures.js"

/**
 * A source is `enabled` (polled: /ready names it, the ingest gauges carry it) while a worker's poller
 * of it vouches for it (its heartbeat, and each poll's start), whatever the other workers'
 * INGEST_SOURCES: each worker once wrote its own over the others' at start.
 */
/** TED's row as the ingest gauges read it (`ingest_lag_seconds`, `ingest_source_failing` carry enabled sources only). */
const tedGauges = Effect.flatMap(scrapeSource, (scrape) => Effect.promise(() => scrape.ingest())).pipe(
  Effect.map((rows) => rows.find((row) => row.source === "ted"))
)

describe("a source polled by one worker, among workers that do not poll it", () => {
  const Infra = Layer.mergeAll(FakeTedLive, FakeSeapLive).pipe(Layer.provideMerge(TestInfraLive()))
  layer(Infra, { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("stays enabled, and its outage visible (degraded), when a worker that does not poll it starts", () =>
      Effect.gen(function* () {
        const state = yield* IngestState
        // The polling worker's view: TED polled, its last poll failed.
        yield* state.open("ted", today())
        yield* state.recordError("ted", "ted unreachable: fetch failed: ECONNREFUSED")
        const before = (yield* state.all).find((s) => s.name === "ted")!
        expect(isDegraded(sourceStatus(before))).toBe(true)

        // Another worker, with INGEST_SOURCES unset (none), starts.
        yield* Effect.scoped(Layer.build(IngestionWith(TestIngestConfig({ sources: [] }))))

        const after = (yield* state.all).find((s) => s.name === "ted")!
        expect(after.enabled, "a non-polling worker's start marked TED as not polled").toBe(true)
        expect(isDegraded(sourceStatus(after))).toBe(true)
        expect(yield* tedGauges).toMatchObject({ enabled: true, failing: true })
      })
    )

    it.effect("is off once no poller has vouched for it for 3 minutes (the worker that polled it stopped)", () =>
      Effect.gen(function* () {
        const state = yield* IngestState
        const sql = yield* SqlClient.SqlClient
        yield* state.open("ted", today())
        yield* state.recordError("ted", "ted unreachable: fetch failed: ECONNREFUSED")
        yield* sql`UPDATE ingest_sources SET poller_alive_until = now() - interval '1 second' WHERE name = 'ted'`
        const ted = (yield* state.all).find((s) => s.name === "ted")!
        expect(ted.enabled).toBe(false)
        expect(isDegraded(sourceStatus(ted))).toBe(false)
        expect(yield* tedGauges).toMatchObject({ enabled: false })

        // Its poller's heartbeat, at start and every minute, turns it on again.
        yield* state.heartbeat("ted")
        expect((yield* state.all).find((s) => s.name === "ted")!.enabled).toBe(true)
        expect(yield* tedGauges).toMatchObject({ enabled: true, failing: true })
      })
    )

    it.effect("is judged by the service's clock in the ingest gauges, as in /ready, under a moved clock", () =>
      Effect.gen(function* () {
        const state = yield* IngestState
        // Vouched for 3 minutes from the real time, then read an hour later by the service's clock.
        yield* state.open("ted", today())
        yield* state.finishPoll("ted", today())
        const anHourLater = <A, E, R>(read: Effect.Effect<A, E, R>) =>
          Effect.zipRight(TestClock.setTime(Date.now() + Duration.toMillis(Duration.hours(1))), read)
        const ted = yield* state.all.pipe(
          anHourLater,
          Effect.map((all) => all.find((s) => s.name === "ted")!),
          Effect.provide(TestContext.TestContext)
        )
        expect(ted.enabled).toBe(false)
        const gauges = yield* tedGauges.pipe(anHourLater, Effect.provide(TestContext.TestContext))
        expect(gauges, "the gauges read PostgreSQL's now(), not the service's clock").toMatchObject({ enabled: false })
        expect(gauges!.lagSeconds).toBeGreaterThanOrEqual(3600)
      })
    )
  })
})
