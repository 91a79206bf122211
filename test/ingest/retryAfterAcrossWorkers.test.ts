import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { readSeapNoticeJob, SeapPoller, SeapPollerLive } from "../../src/infra/ingest/SeapPoller.js"
import { drainDueJobs } from "../../src/infra/queue/JobRunner.js"
import { seapAwardNotice } from "../support/FakeSeap.js"
import { AuditIngestLive, SeapProxy } from "./hostileSources.js"
import { Seap, today } from "./ingestFixtures.js"

/** Another worker process (INGEST_SOURCES unset): its own SEAP poller and client run the due notice jobs. */
const otherWorkerRunsNoticeJobs = drainDueJobs([readSeapNoticeJob], {
  name: "ingest",
  concurrency: 2,
  lease: Duration.minutes(1),
  pollEvery: Duration.seconds(1)
}).pipe(Effect.provide(SeapPollerLive))

/**
 * Notice retry jobs run on every worker, each with a SEAP client of its own: the Retry-After SEAP
 * gave the polling worker is kept in `ingest_sources.blocked_until`, which every client reads before
 * it asks, so another worker's job neither asks SEAP within the hour nor comes due before it.
 */
describe("SEAP asked the polling worker to wait an hour; the notice's retry job runs on another worker", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("does not ask SEAP before the hour has passed, is due again after it, and reads the notice then", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const proxy = yield* SeapProxy
        const sql = yield* SqlClient.SqlClient
        const award = seapAwardNotice({ publicationDate: today() })
        seap.publishAwardNotice(award)
        let limitedAt: number | undefined
        proxy.rule((request) => {
          if (limitedAt !== undefined || !/C_PUBLIC_CANotice\/get\//i.test(request.path)) return undefined
          limitedAt = proxy.requests.length // the request answered 429 is at limitedAt - 1
          return { status: 429, headers: { "content-type": "application/json", "retry-after": "3600" }, body: "{}" }
        })
        // The polling worker: its award's detail meets the 429; the notice becomes a job, the poll stops.
        const limitedSince = Date.now()
        yield* Effect.exit((yield* SeapPoller).poll)
        expect(limitedAt).toBeDefined()
        expect(yield* sql`SELECT id FROM jobs WHERE kind = 'ingest.seap-notice' AND status = 'queued'`).toHaveLength(1)

        yield* otherWorkerRunsNoticeJobs
        const asked = proxy.requests.slice(limitedAt!).map((r) => r.path)
        expect(asked.join(", "), "requests sent to SEAP within its Retry-After").toBe("")
        // The hour SEAP asked for, kept for every worker.
        const [blocked] = yield* sql<{
          until: Date
        }>`SELECT blocked_until AS until FROM ingest_sources WHERE name = 'seap'`
        expect(blocked!.until.getTime() - limitedSince).toBeGreaterThan(3_590_000)
        // Due again once the hour is over, not 1 minute later (the kind's next retry).
        const [job] = yield* sql<{ status: string; run_at: Date }>`
          SELECT status, run_at FROM jobs WHERE kind = 'ingest.seap-notice'`
        expect(job!.status).toBe("queued")
        expect(job!.run_at.getTime()).toBeGreaterThanOrEqual(blocked!.until.getTime())

        // The hour has passed (moved here by hand): the other worker reads the notice.
        yield* sql`UPDATE ingest_sources SET blocked_until = now() - interval '1 second' WHERE name = 'seap'`
        yield* sql`UPDATE jobs SET run_at = now() WHERE kind = 'ingest.seap-notice'`
        yield* otherWorkerRunsNoticeJobs
        expect(
          proxy.requests
            .slice(limitedAt!)
            .map((r) => r.path)
            .join(", ")
        ).toMatch(/C_PUBLIC_CANotice\/get\//)
        expect(
          yield* sql`SELECT 1 FROM ingested_notices WHERE source = 'seap' AND notice_ref = ${award.item.noticeNo}`
        ).toHaveLength(1)
      })
    )
  })
})
