import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { PollFence, withPollLease } from "../../src/infra/ingest/PollLease.js"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { eventually } from "../webhooks/fixtures.js"
import { AuditIngestLive, TedProxy } from "./hostileSources.js"
import { publishTed, Ted } from "./ingestFixtures.js"

/**
 * A first poll of TED whose XML downloads are held (a slow TED) until `release`, and the notices it
 * lists; the later polls' downloads pass.
 */
const slowFirstPoll = Effect.gen(function* () {
  const ted = yield* Ted
  const proxy = yield* TedProxy
  const notices = [1, 2, 3].map(() => publishTed(ted))
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  const held = new Set<string>()
  proxy.rule(async (request) => {
    if (!request.path.endsWith("/xml") || held.has(request.path)) return undefined
    held.add(request.path)
    await released
    return undefined
  })
  const first = yield* Effect.fork((yield* TedPoller).poll)
  yield* eventually(Effect.sync(() => (held.size === 3 ? true : undefined)))
  return { first, release, notices }
})

/** Each notice's XML downloads, TED's `ingested` count, and the notices rescored as changes. */
const outcome = (notices: ReadonlyArray<{ publicationNumber: string }>) =>
  Effect.gen(function* () {
    const proxy = yield* TedProxy
    const sql = yield* SqlClient.SqlClient
    const [ted] = (yield* (yield* IngestState).all).filter((s) => s.name === "ted")
    const changed = yield* sql<{ changed: Array<string> }>`
      SELECT payload->'changed' AS changed FROM jobs WHERE kind = 'tenders.score'`
    return {
      downloads: notices.map(
        (n) => proxy.requests.filter((r) => r.path === `/en/notice/${n.publicationNumber}/xml`).length
      ),
      ingested: ted?.ingested,
      rescoredAsChange: changed.flatMap((row) => row.changed).length
    }
  })

describe("the poll lease", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("outlives the poll's dropped connections: another poll meanwhile is skipped, each notice read once", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { first, release, notices } = yield* slowFirstPoll
        // The worker's connections go away while the poll waits for TED (a NAT or load balancer
        // dropping idle connections, idle_session_timeout): an advisory lock would go with them.
        yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                   WHERE datname = current_database() AND pid <> pg_backend_pid()`
        // The next poll of TED (another worker's, or this worker's next) finds the lease held.
        yield* (yield* TedPoller).poll
        release()
        expect(Exit.isSuccess(yield* Fiber.await(first))).toBe(true)
        expect(yield* outcome(notices)).toEqual({ downloads: [1, 1, 1], ingested: 3, rescoredAsChange: 0 })
      })
    )
  })

  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect(
      "fences a poll whose lease ran out and went to another poll: it takes no page in, nothing counts twice",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { first, release, notices } = yield* slowFirstPoll
          // The first poll's worker stalls past its lease (its heartbeat could not renew it).
          yield* sql`UPDATE ingest_poll_leases SET leased_until = now() - interval '1 second' WHERE source = 'ted'`
          // Another poll takes the lease and reads the notices.
          yield* (yield* TedPoller).poll
          release()
          // The first poll gets its downloads, finds its lease gone at its page's intake, and ends.
          expect(Exit.isSuccess(yield* Fiber.await(first))).toBe(true)
          expect(yield* outcome(notices)).toEqual({ downloads: [2, 2, 2], ingested: 3, rescoredAsChange: 0 })
        })
    )
  })

  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect(
      "fences a poll's end too: one whose lease went to another poll leaves that poll's cursor and the watermark",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const state = yield* IngestState
          const before = yield* state.open("ted", "2026-12-01")
          yield* state.saveCursor("ted", { day: "2026-12-01", token: "the-running-poll's-page" })
          // This poll read to its end; its lease ran out meanwhile and another poll took it (epoch + 1).
          const lost = withPollLease(
            "ted",
            Effect.gen(function* () {
              const fence = yield* PollFence
              yield* sql`UPDATE ingest_poll_leases SET epoch = ${fence.epoch + 1} WHERE source = 'ted'`
              yield* state.finishPoll("ted", "2026-12-05")
            })
          )
          yield* lost
          const [ted] = (yield* state.all).filter((s) => s.name === "ted")
          expect(ted).toMatchObject({
            watermark: before.watermark,
            cursor: { day: "2026-12-01", token: "the-running-poll's-page" },
            last_success_at: null
          })
        })
    )
  })
})
