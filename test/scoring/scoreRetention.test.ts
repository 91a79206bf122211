import { describe, expect, layer } from "@effect/vitest"
import { Cause, Chunk, Effect, Exit, Fiber, Layer, Option, TestClock } from "effect"
import pg from "pg"
import { AppConfig } from "../../src/infra/config/AppConfig.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { MAINTENANCE_LOCK_RETRIES, MAINTENANCE_LOCK_SPACING } from "../../src/infra/scoring/MaintenanceLocks.js"
import { makeScoreRetention } from "../../src/infra/scoring/ScoreRetention.js"
import { StoredScoreFloor } from "../../src/infra/scoring/ScoreWriter.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { SCORE_LIFECYCLE_EVERY, ScoreLifecycleLive, scoreLifecycleRound } from "../../src/workers/ScoreLifecycle.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { testConfig } from "../support/TestServer.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = ScoringLive.pipe(
  Layer.provideMerge(TestDatabaseLive),
  Layer.provideMerge(Layer.succeed(AppConfig, testConfig({ scoreRetentionDays: 180 }))),
  // Every candidate pair stored: these tests are about which rows retention removes.
  Layer.provideMerge(Layer.succeed(StoredScoreFloor, 0))
)

const DAY = 86_400_000

/** Waits (real time) until `check` holds: the lifecycle fiber works on the database at its own pace. */
const eventually = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100; i++) {
      if (yield* check) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
    }
    throw new Error("condition not reached in 10 s")
  })

describe("score retention", () => {
  layer(TestLayer)((it) => {
    it.effect(
      "drops months whose tenders all closed long ago, deletes the other closed rows, keeps open tenders'",
      () =>
        Effect.gen(function* () {
          const f = yield* scoringFixtures
          const scoring = yield* ScoringService
          const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
          yield* f.watchlist(company, { cpv: ["45233000-9"] })
          const tender = (publishDate: string, deadline: string | null) =>
            f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6", publishDate, deadline })
          // January 2025: one tender closed long ago, one open (no deadline): the month stays, row by row.
          const closedJan = yield* tender("2025-01-10T08:00:00Z", "2025-02-10T12:00:00Z")
          const openJan = yield* tender("2025-01-12T08:00:00Z", null)
          // March 2025: closed long ago only: the whole partition goes.
          const closedMar = yield* tender("2025-03-05T08:00:00Z", "2025-04-01T12:00:00Z")
          // May 2025, closed within the retention period (cutoff 2026-02-02): kept.
          const recentlyClosed = yield* tender("2025-05-02T08:00:00Z", "2026-07-01T12:00:00Z")
          // Cancelled long ago, in its own month with no deadline: cancellation closes it.
          const cancelled = yield* tender("2025-06-03T08:00:00Z", null)
          yield* f.sql`UPDATE tenders SET cancelled_at = '2025-06-20T00:00:00Z' WHERE id = ${cancelled}`
          const all = [closedJan, openJan, closedMar, recentlyClosed, cancelled]
          yield* scoring.scoreTenders(all, { isNew: [] })
          for (const id of all) expect(yield* f.storedScore(company, id)).toBeDefined()

          yield* TestClock.setTime(Date.parse("2026-08-01T00:00:00Z"))
          const round = yield* scoreLifecycleRound
          // The rows of 2025 sat in the default partition: the round gave them their months first.
          expect(round.created).toBeGreaterThanOrEqual(8)
          expect(round.partitionsDropped).toEqual(
            expect.arrayContaining([
              "tender_scores_p2025_03",
              "tender_scores_p2025_06",
              "tender_score_history_p2025_03"
            ])
          )
          expect(round.partitionsDropped).not.toContain("tender_scores_p2025_01")
          expect(round.partitionsDropped).not.toContain("tender_scores_p2025_05")
          expect(round.rowsDeleted).toBe(1)
          expect(yield* f.storedScore(company, closedJan)).toBeUndefined()
          expect(yield* f.storedScore(company, closedMar)).toBeUndefined()
          expect(yield* f.storedScore(company, cancelled)).toBeUndefined()
          expect(yield* f.storedScore(company, openJan)).toBeDefined()
          expect(yield* f.storedScore(company, recentlyClosed)).toBeDefined()
          // Retention keeps no replaced versions of what it removed.
          const [versions] = yield* f.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM tender_score_history WHERE tender_id IN (${closedJan}, ${closedMar})`
          expect(versions!.n).toBe(0)
          // Nothing left in the default partitions; the months ahead exist.
          const [defaults] = yield* f.sql<{ n: number }>`
          SELECT (SELECT count(*) FROM tender_scores_default) + (SELECT count(*) FROM tender_score_history_default) AS n`
          expect(Number(defaults!.n)).toBe(0)
          const [ahead] = yield* f.sql<{ exists: boolean }>`
          SELECT to_regclass('tender_scores_p2026_11') IS NOT NULL AS exists`
          expect(ahead!.exists).toBe(true)

          // A second round finds nothing more to do.
          const again = yield* scoreLifecycleRound
          expect(again).toEqual({ created: 0, partitionsDropped: [], rowsDeleted: 0, deliveriesDeleted: 0 })
        })
    )

    it.effect(
      "alerts and match events live in their tender's month: moved with a change notice, dropped or deleted with it",
      () =>
        Effect.gen(function* () {
          const f = yield* scoringFixtures
          const scoring = yield* ScoringService
          const company = yield* f.company("Poduri SA", "Reabilitare drumuri și poduri, asfaltare")
          yield* f.watchlist(company, { cpv: ["45233000-9"], minScore: 0 })
          const tender = (publishDate: string, deadline: string | null) =>
            f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6", publishDate, deadline })
          // September 2024: closed long ago, alone in its month (the partitions go whole). October 2024: one
          // closed long ago and two open (row by row: the closed one's go, the open ones' stay).
          const closedSep = yield* tender("2024-09-10T08:00:00Z", "2024-10-10T12:00:00Z")
          const closedOct = yield* tender("2024-10-10T08:00:00Z", "2024-11-10T12:00:00Z")
          const openOct = yield* tender("2024-10-12T08:00:00Z", null)
          const movedOct = yield* tender("2024-10-20T08:00:00Z", null)
          const all = [closedSep, closedOct, openOct, movedOct]
          // Scored while all four are open (a tender closed when it arrives raises no alert).
          yield* TestClock.setTime(Date.parse("2024-09-20T00:00:00Z"))
          yield* scoring.scoreTenders(all, { isNew: all })
          const placement = (tenderId: string) =>
            f.sql<{ partition: string }>`
              SELECT tableoid::regclass::text AS partition FROM alerts WHERE tender_id = ${tenderId}
              UNION ALL SELECT tableoid::regclass::text FROM match_events WHERE tender_id = ${tenderId}
              ORDER BY 1`.pipe(Effect.map((rows) => rows.map((r) => r.partition)))
          // No partition for 2024 yet: the default ones hold them until the round creates their months.
          expect(yield* placement(closedSep)).toEqual(["alerts_default", "match_events_default"])

          yield* TestClock.setTime(Date.parse("2025-03-01T00:00:00Z"))
          const first = yield* scoreLifecycleRound
          expect(first.partitionsDropped).toEqual([])
          expect(yield* placement(closedSep)).toEqual(["alerts_p2024_09", "match_events_p2024_09"])
          expect(yield* placement(openOct)).toEqual(["alerts_p2024_10", "match_events_p2024_10"])

          // A change notice moves the other open tender into November, a month without partitions: its alert
          // and event follow (into the default partitions), and its rescore as a new tender raises no
          // second alert or event.
          yield* f.sql`UPDATE tenders SET publish_date = '2024-11-02T08:00:00Z' WHERE id = ${movedOct}`
          expect(yield* placement(movedOct)).toEqual(["alerts_default", "match_events_default"])
          yield* scoring.scoreTenders([movedOct], { isNew: [movedOct], changed: [movedOct] })
          expect(yield* placement(movedOct)).toEqual(["alerts_default", "match_events_default"])

          // 180 days after the October deadlines: September's partitions go whole, the closed October
          // tender's rows one by one, the open tender's stay.
          yield* TestClock.setTime(Date.parse("2025-06-01T00:00:00Z"))
          const second = yield* scoreLifecycleRound
          expect(second.partitionsDropped).toEqual(
            expect.arrayContaining(["alerts_p2024_09", "match_events_p2024_09", "tender_scores_p2024_09"])
          )
          expect(second.partitionsDropped).not.toContain("alerts_p2024_10")
          expect(second.partitionsDropped).not.toContain("alerts_p2024_11")
          expect(yield* placement(closedSep)).toEqual([])
          expect(yield* placement(closedOct)).toEqual([])
          expect(yield* placement(openOct)).toEqual(["alerts_p2024_10", "match_events_p2024_10"])
          // November got its partitions in this round.
          expect(yield* placement(movedOct)).toEqual(["alerts_p2024_11", "match_events_p2024_11"])
          // The closed October tender's score, alert and event: three rows deleted.
          expect(second.rowsDeleted).toBe(3)
        })
    )

    it.effect("a partition found expired is kept when a transaction in flight writes an open tender's row to it", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        yield* f.watchlist(company, { cpv: ["45233000-9"] })
        const tender = (publishDate: string, deadline: string | null) =>
          f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6", publishDate, deadline })
        // March 2025 holds one tender closed long ago: the month qualifies for a whole drop ...
        const closed = yield* tender("2025-03-05T08:00:00Z", "2025-04-01T12:00:00Z")
        yield* scoring.scoreTenders([closed], { isNew: [] })
        yield* f.sql`SELECT score_partitions_ensure('2025-03-01', '2025-03-01')`
        yield* f.sql`SELECT score_partitions_ensure('2026-06-01', '2026-12-01')`
        // ... while a transaction scoring an open tender of that month (a long procedure imported late)
        // has written its row and not committed yet.
        const open = yield* tender("2025-03-20T08:00:00Z", null)
        const writer = new pg.Client({ connectionString: yield* TestDatabaseUrl })
        yield* Effect.promise(() => writer.connect())
        yield* Effect.promise(() => writer.query("BEGIN"))
        yield* Effect.promise(() =>
          writer.query(
            `INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, model_version,
               scored_at, tender_publish_date, tender_ingest_seq, score_semantic, score_keyword, score_cpv,
               score_value_fit, score_historical, cpv_type)
             SELECT $1, t.id, 80, 0.8, 'GO', 'x', now(), t.publish_date, t.ingest_seq, 0.5, 0.5, 0.5, 0.5, 0.5, 'primary'
             FROM tenders t WHERE t.id = $2`,
            [company, open]
          )
        )
        yield* TestClock.setTime(Date.parse("2026-08-01T00:00:00Z"))
        const round = yield* Effect.fork(scoreLifecycleRound)
        // The round found the month expired, waited briefly for the writer's lock and gave way until
        // its next attempt (it sleeps on the Clock); the writer commits, then that attempt comes.
        yield* eventually(Effect.map(TestClock.sleeps(), (sleeps) => Chunk.size(sleeps) > 0))
        yield* Effect.promise(() => writer.query("COMMIT"))
        yield* Effect.promise(() => writer.end())
        yield* TestClock.adjust(MAINTENANCE_LOCK_SPACING)
        const result = yield* Fiber.join(round)
        expect(result.partitionsDropped).not.toContain("tender_scores_p2025_03")
        expect(yield* f.storedScore(company, open)).toBe(80)
        expect(yield* f.storedScore(company, closed)).toBeUndefined()
      })
    )

    it.effect("a tender reopened by an erratum and rescored while retention deletes keeps its fresh scores", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        yield* f.watchlist(company, { cpv: ["45233000-9"] })
        const tender = (publishDate: string, deadline: string) =>
          f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6", publishDate, deadline })
        // Both closed more than 180 days before the run's now (cutoff 2026-02-02).
        const reopened = yield* tender("2025-01-10T08:00:00Z", "2025-02-10T12:00:00Z")
        const closed = yield* tender("2025-01-12T08:00:00Z", "2025-02-12T12:00:00Z")
        yield* (yield* ScoringService).scoreTenders([reopened, closed], { isNew: [] })
        // An erratum moves the first one's deadline ahead of now, and its rescore rewrites its score in
        // place (as ScoreWriter's upsert does): both in flight as retention's statement begins.
        const writer = new pg.Client({ connectionString: yield* TestDatabaseUrl })
        yield* Effect.promise(() => writer.connect())
        yield* Effect.promise(() => writer.query("BEGIN"))
        yield* Effect.promise(() =>
          writer.query("UPDATE tenders SET deadline = '2026-10-01T12:00:00Z' WHERE id = $1", [reopened])
        )
        yield* Effect.promise(() =>
          writer.query("UPDATE tender_scores SET overall_score = 99, scored_at = now() WHERE tender_id = $1", [
            reopened
          ])
        )
        const retention = yield* makeScoreRetention
        const run = yield* Effect.fork(retention.run(new Date("2026-08-01T00:00:00Z"), 180))
        // The run either waits for the writer's rows or has already gone past the tender it holds.
        const lockWaits = f.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`
        yield* eventually(
          Effect.gen(function* () {
            if (Option.isSome(yield* Fiber.poll(run))) return true
            return (yield* lockWaits)[0]!.n > 0
          })
        )
        yield* Effect.promise(() => writer.query("COMMIT"))
        yield* Effect.promise(() => writer.end())
        yield* Fiber.join(run)
        expect(yield* f.storedScore(company, reopened)).toBe(99)
        expect(yield* f.storedScore(company, closed)).toBeUndefined()
        // Open now: the next run keeps them as well.
        yield* retention.run(new Date("2026-08-01T06:00:00Z"), 180)
        expect(yield* f.storedScore(company, reopened)).toBe(99)
      })
    )

    it.effect("a month whose table stays busy is left to the next round, which drops it", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        yield* f.watchlist(company, { cpv: ["45233000-9"] })
        const closed = yield* f.tender({
          title: "Reabilitare drumuri comunale",
          cpv: "45233142-6",
          publishDate: "2024-01-05T08:00:00Z",
          deadline: "2024-02-01T12:00:00Z"
        })
        yield* (yield* ScoringService).scoreTenders([closed], { isNew: [] })
        yield* f.sql`SELECT score_partitions_ensure('2024-01-01', '2024-01-01')`
        // A transaction reading the scores (an export page, say) stays open through the whole round.
        const reader = new pg.Client({ connectionString: yield* TestDatabaseUrl })
        yield* Effect.promise(() => reader.connect())
        yield* Effect.promise(() => reader.query("BEGIN"))
        yield* Effect.promise(() => reader.query("SELECT count(*) FROM tender_scores"))
        yield* TestClock.setTime(Date.parse("2026-08-01T00:00:00Z"))
        const round = yield* Effect.fork(scoreLifecycleRound)
        // Each attempt waits briefly for the lock, then the round sleeps until the next one.
        for (let i = 0; i < MAINTENANCE_LOCK_RETRIES; i++) {
          yield* eventually(Effect.map(TestClock.sleeps(), (sleeps) => Chunk.size(sleeps) > 0))
          yield* TestClock.adjust(MAINTENANCE_LOCK_SPACING)
        }
        const busy = yield* Fiber.join(round)
        yield* Effect.promise(() => reader.query("COMMIT"))
        yield* Effect.promise(() => reader.end())
        // The other tables' month went; the scores' month stays (its row went by DELETE, which reads do not block).
        expect(busy.partitionsDropped).toContain("alerts_p2024_01")
        expect(busy.partitionsDropped).not.toContain("tender_scores_p2024_01")
        expect(yield* f.storedScore(company, closed)).toBeUndefined()
        const next = yield* scoreLifecycleRound
        expect(next.partitionsDropped).toEqual(["tender_scores_p2024_01"])
      })
    )

    it.effect("two workers' rounds at once: both succeed, the expired month is dropped once", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        yield* f.watchlist(company, { cpv: ["45233000-9"] })
        const tender = (publishDate: string, deadline: string) =>
          f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6", publishDate, deadline })
        const closed = [
          yield* tender("2024-03-05T08:00:00Z", "2024-04-01T12:00:00Z"),
          yield* tender("2024-04-05T08:00:00Z", "2024-05-01T12:00:00Z")
        ]
        yield* (yield* ScoringService).scoreTenders(closed, { isNew: [] })
        yield* f.sql`SELECT score_partitions_ensure('2024-03-01', '2024-04-01')`
        yield* f.sql`SELECT score_partitions_ensure('2026-06-01', '2026-12-01')`
        yield* TestClock.setTime(Date.parse("2026-08-01T00:00:00Z"))
        // Every worker runs a round at start, and a deployment starts them together.
        const rounds = yield* Effect.all([Effect.exit(scoreLifecycleRound), Effect.exit(scoreLifecycleRound)], {
          concurrency: 2
        })
        // PostgreSQL's own reason, if any (e.g. `relation "alerts_p2024_03" does not exist`, 42P01).
        const failures = rounds.filter(Exit.isFailure).map((exit) => {
          const error = Cause.squash(exit.cause) as { cause?: { message?: string; code?: string } }
          return `${error.cause?.code}: ${error.cause?.message}`
        })
        expect(failures, failures.join("\n")).toEqual([])
        const dropped = rounds.flatMap((exit) => (Exit.isSuccess(exit) ? exit.value.partitionsDropped : []))
        expect(dropped.filter((name) => name === "tender_scores_p2024_03")).toHaveLength(1)
        for (const id of closed) expect(yield* f.storedScore(company, id)).toBeUndefined()
      })
    )

    it.effect("ended webhook deliveries go DELIVERY_RETENTION_DAYS after they last changed, pending ones never", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const company = yield* f.company("Hook SRL", "Servicii")
        const [webhook] = yield* f.sql<{ id: string }>`
          INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events)
          VALUES (${f.tenant}, 'https://x.ro', '\\x00', '{tender.matched}') RETURNING id`
        const now = Date.parse("2026-06-01T00:00:00Z")
        // One event per delivery (a delivery is one per webhook and event).
        const delivery = (status: string, daysAgo: number) =>
          Effect.gen(function* () {
            const tender = yield* f.tender({ title: "T", cpv: "45233142-6", publishDate: "2026-02-01T08:00:00Z" })
            const [event] = yield* f.sql<{ id: string }>`
              INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date)
              VALUES (${f.tenant}, ${company}, ${tender}, '{}', '2026-02-01T08:00:00Z') RETURNING id`
            const [row] = yield* f.sql<{ id: string }>`
              INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, attempt_count, updated_at)
              VALUES (${webhook!.id}, ${event!.id}, ${f.tenant}, '{}', ${status}, 1, ${new Date(now - daysAgo * DAY)})
              RETURNING id`
            return row!.id
          })
        const deliveries = {
          oldSucceeded: yield* delivery("succeeded", 31),
          oldFailed: yield* delivery("failed", 45),
          oldWebhookDeleted: yield* delivery("webhook_deleted", 60),
          recentFailed: yield* delivery("failed", 29),
          oldPending: yield* delivery("pending", 90)
        }
        yield* f.sql`
          INSERT INTO webhook_delivery_attempts (delivery_id, attempt_no, started_at)
          VALUES (${deliveries.oldSucceeded}, 1, ${new Date(now - 31 * DAY)})`
        yield* TestClock.setTime(now)
        const round = yield* scoreLifecycleRound
        expect(round.deliveriesDeleted).toBe(3)
        const left = yield* f.sql<{ id: string }>`
          SELECT id FROM webhook_deliveries WHERE id IN ${f.sql.in(Object.values(deliveries))}`
        expect(new Set(left.map((r) => r.id))).toEqual(new Set([deliveries.recentFailed, deliveries.oldPending]))
        const [attempts] = yield* f.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = ${deliveries.oldSucceeded}`
        expect(attempts!.n).toBe(0)
      })
    )

    it.scoped("the worker's schedule applies it at start and every SCORE_LIFECYCLE_EVERY (TestClock)", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const company = yield* f.company("Med SRL", "Furnizăm echipamente medicale, ecografe")
        yield* f.watchlist(company, { cpv: ["33100000-1"] })
        const deadline = Date.parse("2027-03-01T00:00:00Z")
        const tender = yield* f.tender({
          title: "Furnizare ecograf",
          cpv: "33112200-0",
          publishDate: "2027-02-01T08:00:00Z",
          deadline: new Date(deadline).toISOString()
        })
        yield* scoring.scoreTenders([tender], { isNew: [] })
        // Start: 180 days after the deadline less 1 hour: not yet past retention.
        yield* TestClock.setTime(deadline + 180 * DAY - 3_600_000)
        yield* Layer.build(ScoreLifecycleLive)
        // The first round is over once the schedule sleeps towards the next one (on a busy machine a
        // round can take seconds; adjusting the clock before it ends would move nothing).
        yield* eventually(Effect.map(TestClock.sleeps(), (sleeps) => Chunk.size(sleeps) > 0))
        expect(yield* f.storedScore(company, tender)).toBeDefined()
        // The next round, SCORE_LIFECYCLE_EVERY later, finds it past retention.
        yield* TestClock.adjust(SCORE_LIFECYCLE_EVERY)
        yield* eventually(Effect.map(f.storedScore(company, tender), (score) => score === undefined))
      })
    )
  })
})
