import { describe, expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { isCandidate } from "../../src/domain/scoring/Matching.js"
import { JobQueue, JobQueueLive } from "../../src/infra/queue/JobQueue.js"
import { MatchSinkLive, ScoringLive } from "../../src/infra/Repositories.js"
import { makeCorpusStatsCache } from "../../src/infra/scoring/CorpusStatsCache.js"
import { makeCpvAffinityTable } from "../../src/infra/scoring/CpvAffinityTable.js"
import { MatchSink } from "../../src/infra/scoring/MatchSink.js"
import { makeScoreWriter, type ScoringPair } from "../../src/infra/scoring/ScoreWriter.js"
import { RescoreCompany, rescoreOnce } from "../../src/infra/scoring/ScoringJobKinds.js"
import { type LoadedCompany, type LoadedTender, makeScoringReads } from "../../src/infra/scoring/ScoringReads.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = Layer.merge(ScoringLive, JobQueueLive).pipe(Layer.provideMerge(TestDatabaseLive))

/** What a scoring job reads first: the corpus, the affinity table and the readers, as ScoringService does. */
const scoringSteps = Effect.gen(function* () {
  const reads = yield* makeScoringReads
  const stats = yield* (yield* makeCorpusStatsCache).current
  const affinity = yield* (yield* makeCpvAffinityTable).current
  const writer = yield* makeScoreWriter.pipe(
    Effect.provideService(MatchSink, { record: () => Effect.succeed({ alerts: 0, events: 0 }) })
  )
  const pairsOf = (company: LoadedCompany, tenders: ReadonlyArray<LoadedTender>): Array<ScoringPair> =>
    tenders
      .filter((tender) => isCandidate(company.prepared, tender.prepared, stats, affinity))
      .map((tender) => ({ tender, company }))
  return { reads, stats, affinity, writer, pairsOf }
})

/**
 * A write computed from a profile or tender that changed meanwhile, after the change's own rescore
 * committed, would leave a stale row: the write queues the rescore again in its transaction.
 */
describe("a company or tender that changes while a scoring job computes", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    const queuedJobs = (sql: Effect.Effect.Success<typeof scoringFixtures>["sql"], kind: string) =>
      sql<{
        payload: string
      }>`SELECT payload::text AS payload FROM jobs WHERE kind = ${kind} AND status = 'queued'`.pipe(
        Effect.map((rows) => rows.map((row) => row.payload))
      )

    it.effect("a company edited during a tender job is rescored after that job's late write", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const { reads, stats, affinity, writer, pairsOf } = yield* scoringSteps
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        const watchlist = yield* f.watchlist(company, { cpv: ["45233000-9"], minScore: 0 })
        const road = yield* f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6" })
        // The tender job reads the new tender and the company's profile ...
        const tenders = yield* reads.contractTenders([road])
        const profile = (yield* reads.companyProfiles([company])).get(company)!
        const pairs = pairsOf(profile, tenders)
        expect(pairs).toHaveLength(1)
        // ... meanwhile the company turns to software, and its rescore runs and commits first ...
        yield* f.sql`UPDATE watchlists SET cpv_codes = '{72000000-5}' WHERE id = ${watchlist}`
        yield* f.sql`UPDATE companies SET description = 'Dezvoltare software la comandă' WHERE id = ${company}`
        yield* scoring.rescoreCompany(company)
        expect(yield* f.storedScore(company, road)).toBeUndefined()
        // ... then the tender job writes what it computed from the profile of before.
        yield* writer.scoreAndWrite(
          pairs,
          stats,
          affinity,
          new Set([road]),
          { tenderIds: [] },
          { tenders: tenders.map((t) => t.row), revisionAtStart: () => profile.revision },
          new Set(),
          [road]
        )
        expect(yield* f.storedScore(company, road)).toBeDefined()
        expect(yield* queuedJobs(f.sql, "company.rescore")).toContainEqual(expect.stringContaining(company))
        // The queued rescore removes the row written from the old profile.
        yield* scoring.rescoreCompany(company)
        expect(yield* f.storedScore(company, road)).toBeUndefined()
      })
    )

    it.effect("a late write joins the company's rescore still queued instead of queueing another", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const jobs = yield* JobQueue
        const { reads, stats, affinity, writer, pairsOf } = yield* scoringSteps
        const company = yield* f.company("Asfalt SA", "Asfaltare drumuri județene")
        const watchlist = yield* f.watchlist(company, { cpv: ["45233000-9"], minScore: 0 })
        const road = yield* f.tender({ title: "Asfaltare drum județean", cpv: "45233142-6" })
        const tenders = yield* reads.contractTenders([road])
        const profile = (yield* reads.companyProfiles([company])).get(company)!
        const pairs = pairsOf(profile, tenders)
        // The company changes while the tender job computes; its save queues a rescore, not yet claimed.
        yield* f.sql`UPDATE watchlists SET cpv_codes = '{72000000-5}' WHERE id = ${watchlist}`
        yield* f.sql`UPDATE companies SET description = 'Dezvoltare software' WHERE id = ${company}`
        yield* jobs.enqueue(RescoreCompany, { companyId: company }, rescoreOnce(company))
        yield* writer.scoreAndWrite(
          pairs,
          stats,
          affinity,
          new Set([road]),
          { tenderIds: [] },
          { tenders: tenders.map((t) => t.row), revisionAtStart: () => profile.revision },
          new Set(),
          [road]
        )
        const rescores = (yield* queuedJobs(f.sql, "company.rescore")).filter((p) => p.includes(company))
        expect(rescores).toHaveLength(1)
      })
    )

    it.effect("a tender changed during a company rescore is scored again after the rescore's late write", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const { reads, stats, affinity, writer, pairsOf } = yield* scoringSteps
        const company = yield* f.company("Poduri SA", "Reabilitare poduri și podețe")
        yield* f.watchlist(company, { cpv: ["45221000-2"], minScore: 0 })
        const bridge = yield* f.tender({ title: "Reabilitare pod peste râul Olt", cpv: "45221111-3" })
        yield* scoring.scoreTenders([bridge], { isNew: [bridge] })
        expect(yield* f.storedScore(company, bridge)).toBeDefined()
        // The company's rescore reads its profile and the open tenders ...
        const now = new Date(yield* Clock.currentTimeMillis)
        const profile = (yield* reads.companyProfiles([company])).get(company)!
        const read = yield* reads.openContractTendersAfter(now, "0")
        const pairs = pairsOf(profile, read)
        expect(pairs.map((p) => p.tender.row.id)).toContain(bridge)
        // ... meanwhile a change notice makes the tender another trade's, and its own job rescores it ...
        yield* f.sql`UPDATE tenders SET title = 'Servicii de dezvoltare software', main_cpv = '72000000-5'
                     WHERE id = ${bridge}`
        yield* scoring.scoreTenders([bridge], { isNew: [], changed: [bridge] })
        expect(yield* f.storedScore(company, bridge)).toBeUndefined()
        // ... then the rescore writes what it computed from the tender of before.
        yield* writer.scoreAndWrite(
          pairs,
          stats,
          affinity,
          new Set(),
          { companyId: company, now },
          { tenders: read.map((t) => t.row), revisionAtStart: () => profile.revision }
        )
        expect(yield* f.storedScore(company, bridge)).toBeDefined()
        expect(yield* queuedJobs(f.sql, "tenders.score")).toContainEqual(expect.stringContaining(bridge))
        // The queued job scores the tender as it is now: the stale row goes.
        yield* scoring.scoreTenders([bridge], { isNew: [] })
        expect(yield* f.storedScore(company, bridge)).toBeUndefined()
      })
    )

    /** A tender job's write of a new tender's match, computed from the profile as read before `change`. */
    const matchAfter = (change: (ids: { company: string; watchlist: string }) => Effect.Effect<unknown, unknown>) =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const { reads, stats, affinity } = yield* scoringSteps
        const writer = yield* makeScoreWriter.pipe(Effect.provide(MatchSinkLive))
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        const watchlist = yield* f.watchlist(company, { cpv: ["45233000-9"], minScore: 0 })
        const road = yield* f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6" })
        const tenders = yield* reads.contractTenders([road])
        const profile = (yield* reads.companyProfiles([company])).get(company)!
        yield* Effect.orDie(change({ company, watchlist }))
        const written = yield* writer.scoreAndWrite(
          tenders.map((tender) => ({ tender, company: profile })),
          stats,
          affinity,
          new Set([road]),
          { tenderIds: [] },
          { tenders: tenders.map((t) => t.row), revisionAtStart: () => profile.revision },
          new Set(),
          [road]
        )
        const alerts = yield* f.sql`SELECT 1 FROM alerts WHERE watchlist_id = ${watchlist}`
        const events = yield* f.sql`SELECT 1 FROM match_events WHERE company_id = ${company}`
        return { written, alerts: alerts.length, events: events.length }
      })

    it.effect("a watchlist deleted during a tender job raises no alert and no event from that job's write", () =>
      Effect.gen(function* () {
        const sql = (yield* scoringFixtures).sql
        const unchanged = yield* matchAfter(() => Effect.void)
        expect(unchanged).toMatchObject({ written: { scored: 1, alerts: 1, events: 1 }, alerts: 1, events: 1 })
        const deleted = yield* matchAfter(
          ({ watchlist }) => sql`UPDATE watchlists SET deleted_at = now(), active = false WHERE id = ${watchlist}`
        )
        expect(deleted).toMatchObject({ written: { scored: 1, alerts: 0, events: 0 }, alerts: 0, events: 0 })
      })
    )

    it.effect("a watchlist edited during a tender job alerts by what it says now, not by its criteria of before", () =>
      Effect.gen(function* () {
        const sql = (yield* scoringFixtures).sql
        const otherTrade = yield* matchAfter(
          ({ watchlist }) => sql`UPDATE watchlists SET cpv_codes = '{72000000-5}' WHERE id = ${watchlist}`
        )
        expect(otherTrade).toMatchObject({ written: { scored: 1, alerts: 0, events: 0 }, alerts: 0, events: 0 })
        const higherBar = yield* matchAfter(
          ({ watchlist }) => sql`UPDATE watchlists SET min_score = 100 WHERE id = ${watchlist}`
        )
        expect(higherBar).toMatchObject({ written: { alerts: 0, events: 0 }, alerts: 0, events: 0 })
        const valueRange = yield* matchAfter(
          ({ watchlist }) => sql`UPDATE watchlists SET max_value = 1000 WHERE id = ${watchlist}`
        )
        expect(valueRange).toMatchObject({ written: { alerts: 0, events: 0 }, alerts: 0, events: 0 })
        // An edit the tender still passes keeps the alert: the rescore the edit queued never alerts.
        const stillPasses = yield* matchAfter(
          ({ watchlist }) => sql`UPDATE watchlists SET keywords = '{drumuri}', name = 'Drumuri' WHERE id = ${watchlist}`
        )
        expect(stillPasses).toMatchObject({ written: { alerts: 1, events: 1 }, alerts: 1, events: 1 })
      })
    )

    it.effect("a company deactivated during a tender job raises no alert and no event from that job's write", () =>
      Effect.gen(function* () {
        const sql = (yield* scoringFixtures).sql
        const deactivated = yield* matchAfter(
          ({ company }) => sql`UPDATE companies SET active = false WHERE id = ${company}`
        )
        expect(deactivated).toMatchObject({ written: { alerts: 0, events: 0 }, alerts: 0, events: 0 })
      })
    )

    it.effect("queues nothing when nothing changed while the jobs computed", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const company = yield* f.company("Instalații SA", "Instalații sanitare și termice")
        yield* f.watchlist(company, { cpv: ["45330000-9"], minScore: 0 })
        const pipes = yield* f.tender({ title: "Instalații sanitare școala gimnazială", cpv: "45332000-3" })
        yield* scoring.scoreTenders([pipes], { isNew: [pipes] })
        yield* scoring.rescoreCompany(company)
        yield* scoring.scoreTenders([pipes], { isNew: [], changed: [pipes] })
        expect(yield* f.storedScore(company, pipes)).toBeDefined()
        expect(yield* queuedJobs(f.sql, "company.rescore")).not.toContainEqual(expect.stringContaining(company))
        expect(yield* queuedJobs(f.sql, "tenders.score")).not.toContainEqual(expect.stringContaining(pipes))
      })
    )
  })
})
