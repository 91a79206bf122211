import { describe, expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { isCandidate } from "../../src/domain/scoring/Matching.js"
import { JobQueueLive } from "../../src/infra/queue/JobQueue.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { makeCorpusStatsCache } from "../../src/infra/scoring/CorpusStatsCache.js"
import { makeCpvAffinityTable } from "../../src/infra/scoring/CpvAffinityTable.js"
import { MatchSink } from "../../src/infra/scoring/MatchSink.js"
import { makeScoreWriter, type ScoringPair } from "../../src/infra/scoring/ScoreWriter.js"
import { makeScoringReads } from "../../src/infra/scoring/ScoringReads.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = Layer.merge(ScoringLive, JobQueueLive).pipe(Layer.provideMerge(TestDatabaseLive))

/** What a company rescore replaces: its scores on the open tenders it read, and nothing else. */
describe("the scope of a company rescore", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("keeps the score of a tender that arrived (and was scored) after the rescore read the open tenders", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        yield* f.watchlist(company, { cpv: ["45233000-9"], minScore: 0 })
        const old = yield* f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6" })
        yield* scoring.scoreTenders([old], { isNew: [old] })
        // The rescore, step by step (ScoringService.rescoreCompany): it reads the open tenders ...
        const reads = yield* makeScoringReads
        const stats = yield* (yield* makeCorpusStatsCache).current
        const affinity = yield* (yield* makeCpvAffinityTable).current
        const now = new Date(yield* Clock.currentTimeMillis)
        const profile = (yield* reads.companyProfiles([company])).get(company)!
        const read = yield* reads.openContractTendersAfter(now, "0")
        const pairs: Array<ScoringPair> = read
          .filter((tender) => isCandidate(profile.prepared, tender.prepared, stats, affinity))
          .map((tender) => ({ tender, company: profile }))
        expect(pairs.map((p) => p.tender.row.id)).toContain(old)
        // ... meanwhile a new tender arrives and its own job scores it ...
        const fresh = yield* f.tender({ title: "Asfaltare drumuri locale", cpv: "45233142-6" })
        yield* scoring.scoreTenders([fresh], { isNew: [fresh] })
        expect(yield* f.storedScore(company, fresh)).toBeDefined()
        // ... then the rescore writes: the new tender's score is not one of its stale ones.
        const writer = yield* makeScoreWriter.pipe(
          Effect.provideService(MatchSink, { record: () => Effect.succeed({ alerts: 0, events: 0 }) })
        )
        yield* writer.scoreAndWrite(
          pairs,
          stats,
          affinity,
          new Set(),
          { companyId: company, now },
          { tenders: read.map((t) => t.row), revisionAtStart: () => profile.revision }
        )
        expect(yield* f.storedScore(company, old)).toBeDefined()
        expect(yield* f.storedScore(company, fresh)).toBeDefined()
      })
    )

    it.effect(
      "keeps the score of a tender reopened by an erratum (and rescored) after the rescore read the open tenders",
      () =>
        Effect.gen(function* () {
          const f = yield* scoringFixtures
          const scoring = yield* ScoringService
          const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
          yield* f.watchlist(company, { cpv: ["45233000-9"], minScore: 0 })
          const closed = yield* f.tender({
            title: "Reabilitare drumuri comunale",
            cpv: "45233142-6",
            deadline: "2020-01-01T00:00:00Z"
          })
          const open = yield* f.tender({ title: "Asfaltare drumuri locale", cpv: "45233142-6" })
          yield* scoring.scoreTenders([closed, open], { isNew: [closed, open] })
          // The rescore, step by step: it reads the open tenders, the closed one not among them ...
          const reads = yield* makeScoringReads
          const stats = yield* (yield* makeCorpusStatsCache).current
          const affinity = yield* (yield* makeCpvAffinityTable).current
          const now = new Date(yield* Clock.currentTimeMillis)
          const profile = (yield* reads.companyProfiles([company])).get(company)!
          const read = yield* reads.openContractTendersAfter(now, "0")
          expect(read.map((tender) => tender.row.id)).not.toContain(closed)
          const pairs: Array<ScoringPair> = read
            .filter((tender) => isCandidate(profile.prepared, tender.prepared, stats, affinity))
            .map((tender) => ({ tender, company: profile }))
          // ... meanwhile an erratum moves its deadline ahead, and its own job scores it ...
          yield* f.sql`UPDATE tenders SET deadline = '2099-01-01T00:00:00Z' WHERE id = ${closed}`
          yield* scoring.scoreTenders([closed], { isNew: [], changed: [closed] })
          const reopened = yield* f.storedScore(company, closed)
          expect(reopened).toBeDefined()
          // ... then the rescore writes: the reopened tender's score is not one of its stale ones.
          const writer = yield* makeScoreWriter.pipe(
            Effect.provideService(MatchSink, { record: () => Effect.succeed({ alerts: 0, events: 0 }) })
          )
          yield* writer.scoreAndWrite(
            pairs,
            stats,
            affinity,
            new Set(),
            { companyId: company, now },
            {
              tenders: read.map((t) => t.row),
              revisionAtStart: () => profile.revision
            }
          )
          expect(yield* f.storedScore(company, closed)).toEqual(reopened)
        })
    )

    it.effect("does nothing for a deactivated company: its scores stay as they were", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const company = yield* f.company("Poduri SA", "Reabilitare poduri și podețe")
        yield* f.watchlist(company, { cpv: ["45221000-2"], minScore: 0 })
        const bridge = yield* f.tender({ title: "Reabilitare pod peste râul Olt", cpv: "45221111-3" })
        yield* scoring.scoreTenders([bridge], { isNew: [bridge] })
        const before = yield* f.storedScore(company, bridge)
        expect(before).toBeDefined()
        // Deactivated, then a watchlist edit (or a rescore queued earlier) runs its rescore.
        yield* f.sql`UPDATE companies SET active = false WHERE id = ${company}`
        expect(yield* scoring.rescoreCompany(company)).toEqual({ scored: 0 })
        expect(yield* f.storedScore(company, bridge)).toEqual(before)
        // Nor does a change notice's rescore of the tender remove it.
        yield* f.sql`UPDATE tenders SET deadline = '2099-02-01T00:00:00Z' WHERE id = ${bridge}`
        yield* scoring.scoreTenders([bridge], { isNew: [], changed: [bridge] })
        expect(yield* f.storedScore(company, bridge)).toEqual(before)
      })
    )
  })
})
