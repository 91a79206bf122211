import type { SqlError } from "@effect/sql"
import { Clock, Context, Effect, Layer, Stream } from "effect"
import type { CpvAffinity } from "../../domain/scoring/CpvAffinity.js"
import { isCandidate } from "../../domain/scoring/Matching.js"
import type { CorpusStats } from "../../domain/scoring/Semantic.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { makeBackfillProgress } from "./BackfillProgress.js"
import { type CandidateIndex, makeCandidatePrefilter } from "./CandidatePrefilter.js"
import { makeCompanyProfileCache, type ProfileView } from "./CompanyProfileCache.js"
import { makeCorpusStatsCache } from "./CorpusStatsCache.js"
import { makeCpvAffinityTable } from "./CpvAffinityTable.js"
import { makeScoreWriter, type ScoringPair, type TenderVersion } from "./ScoreWriter.js"
import { queueRescores } from "./ScoringJobKinds.js"
import { type LoadedTender, makeScoringReads } from "./ScoringReads.js"

export interface ScoreTendersResult {
  readonly scored: number
  readonly alerts: number
  readonly events: number
}

export interface ScoringServiceShape {
  /**
   * Scores tenders for every company they may concern and raises alerts and tender.matched events
   * for newly inserted tenders. Only ids listed in `isNew` may raise alerts or events, and those in
   * `changed` (updated by a change notice) for the pairs whose verdict rose. Award notices among the
   * ids queue `company.rescore` for the companies they name as winners.
   */
  readonly scoreTenders: (
    tenderIds: ReadonlyArray<string>,
    options: { readonly isNew: ReadonlyArray<string>; readonly changed?: ReadonlyArray<string> }
  ) => Effect.Effect<ScoreTendersResult>
  /**
   * Rescores one company against every open contract tender (deadline in the future or none);
   * tenders that are no longer candidates lose their score. Never alerts.
   */
  readonly rescoreCompany: (companyId: string) => Effect.Effect<{ readonly scored: number }>
  /**
   * Backfill after a model change: rescores every tender that has scores from another model
   * version, in batches, without alerts or events. Returns the number of pairs rescored.
   */
  readonly backfillModelVersion: Effect.Effect<number, SqlError.SqlError>
}

/** Scoring of tenders against company profiles, and the alerts and events it raises. */
export class ScoringService extends Context.Tag("ScoringService")<ScoringService, ScoringServiceShape>() {
  /** For unit tests of callers: the given operations, the others scoring nothing. */
  static readonly Test = (operations: Partial<ScoringServiceShape> = {}): Layer.Layer<ScoringService> =>
    Layer.succeed(ScoringService, {
      scoreTenders: () => Effect.succeed({ scored: 0, alerts: 0, events: 0 }),
      rescoreCompany: () => Effect.succeed({ scored: 0 }),
      backfillModelVersion: Effect.succeed(0),
      ...operations
    })
}

/** Tenders scored per transaction. */
export const SCORING_BATCH_SIZE = 250

/**
 * Tenders whose candidates are looked up together (CandidatePrefilter.candidateIndex), then scored
 * and written batch by batch: the prefilter's rows are nearly the same for every batch of a large
 * import, and a group bounds the memory of the rows and maps read at once.
 */
export const SCORING_GROUP_SIZE = 10 * SCORING_BATCH_SIZE

/**
 * The batch and group sizes scoring uses: SCORING_BATCH_SIZE and SCORING_GROUP_SIZE unless a test
 * provides smaller ones (to cross group boundaries on a small data set).
 */
export class ScoringChunks extends Context.Reference<ScoringChunks>()("ScoringChunks", {
  defaultValue: () => ({ batch: SCORING_BATCH_SIZE, group: SCORING_GROUP_SIZE })
}) {}

const byTenderId = (a: LoadedTender, b: LoadedTender) => (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0)

const chunksOf = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const chunks: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size))
  return chunks
}

/**
 * The steps, in order: read a group's tenders (ScoringReads), find their candidate companies
 * through indexes (CandidatePrefilter), then per batch read the candidates' profiles, keep the pairs
 * the domain rule accepts, and score and write (ScoreWriter).
 */
export const makeScoringService = Effect.gen(function* () {
  const corpus = yield* makeCorpusStatsCache
  const affinityTable = yield* makeCpvAffinityTable
  const reads = yield* makeScoringReads
  const prefilter = yield* makeCandidatePrefilter
  const writer = yield* makeScoreWriter
  const backfillProgress = yield* makeBackfillProgress
  const jobs = yield* JobQueue
  // Kept between calls (one job per polled page); each call reuses only unchanged profiles.
  const profileCache = yield* makeCompanyProfileCache(reads)

  const scoreBatch = (
    tenders: ReadonlyArray<LoadedTender>,
    candidatesOf: CandidateIndex,
    isNew: ReadonlySet<string>,
    changed: ReadonlySet<string>,
    stats: CorpusStats,
    affinity: CpvAffinity,
    profiles: ProfileView
  ) =>
    Effect.gen(function* () {
      const startedAt = yield* Clock.currentTimeMillis
      // Pairs in the order the score INSERT sorts its rows (company, then tender id; uuids compare as
      // their lower-case text does), so PostgreSQL's sort finds them in order.
      const candidates = candidatesOf.tendersByCompany([...tenders].sort(byTenderId))
      const companyIds = [...candidates.keys()].sort()
      const companies = yield* profiles.profilesOf(companyIds)
      const profilesAt = yield* Clock.currentTimeMillis
      // Company by company (see CandidateIndex): the rule here, then the scorer and the writer, in this order.
      const pairs: Array<ScoringPair> = []
      let checked = 0
      for (const companyId of companyIds) {
        const company = companies.get(companyId)
        if (company === undefined) continue
        const candidateTenders = candidates.get(companyId)!
        checked += candidateTenders.length
        for (const tender of candidateTenders) {
          if (isCandidate(company.prepared, tender.prepared, stats, affinity)) pairs.push({ tender, company })
        }
      }
      yield* Effect.logDebug(
        `scoring: ${tenders.length} tenders, ${checked} prefilter pairs, the rule kept ${pairs.length} of ${companies.size} companies, in ${(yield* Clock.currentTimeMillis) - startedAt} ms (${profilesAt - startedAt} ms to the profiles)`
      )
      const ids = tenders.map((t) => t.row.id)
      const rescored = ids.filter((id) => !isNew.has(id))
      const changedHere = new Set(ids.filter((id) => changed.has(id)))
      const arrived = ids.filter((id) => isNew.has(id))
      return yield* writer.scoreAndWrite(
        pairs,
        stats,
        affinity,
        isNew,
        { tenderIds: rescored },
        { tenders: tenders.map((tender) => tender.row), revisionAtStart: profiles.revisionAtStart },
        changedHere,
        arrived
      )
    })

  /** A group's tenders and their candidate index, read and built once for the group's batches. */
  const loadGroup = (tenderIds: ReadonlyArray<string>, stats: CorpusStats, affinity: CpvAffinity) =>
    Effect.gen(function* () {
      const startedAt = yield* Clock.currentTimeMillis
      const tenders = yield* reads.contractTenders(tenderIds)
      const index = yield* prefilter.candidateIndex(tenders, stats, affinity)
      yield* Effect.logDebug(
        `scoring: group of ${tenders.length} tenders read and their candidates indexed in ${(yield* Clock.currentTimeMillis) - startedAt} ms`
      )
      return { tenders, index }
    })

  const scoreTenders = (
    tenderIds: ReadonlyArray<string>,
    options: { readonly isNew: ReadonlyArray<string>; readonly changed?: ReadonlyArray<string> }
  ) =>
    Effect.gen(function* () {
      // Award notices among them change what suppliers win together: relearned before scoring.
      yield* affinityTable.recomputeAfter(tenderIds)
      const affinity = yield* affinityTable.current
      const stats = yield* corpus.current
      const isNew = new Set(options.isNew)
      const changed = new Set(options.changed ?? [])
      const profiles = yield* profileCache.begin
      const total = { scored: 0, alerts: 0, events: 0 }
      const chunks = yield* ScoringChunks
      // Two batches in flight: one is scored in this process while PostgreSQL writes the other. One
      // stream of batches across the groups: the next group is read while the last batches of the
      // one before are written, instead of the pipeline emptying and filling again at each group.
      yield* Stream.fromIterable(chunksOf([...new Set(tenderIds)], chunks.group)).pipe(
        Stream.mapEffect((groupIds) => loadGroup(groupIds, stats, affinity)),
        Stream.flatMap((group) =>
          Stream.fromIterable(chunksOf(group.tenders, chunks.batch).map((batch) => ({ batch, group })))
        ),
        Stream.mapEffect(
          ({ batch, group }) => scoreBatch(batch, group.index, isNew, changed, stats, affinity, profiles),
          { concurrency: 2, unordered: true }
        ),
        Stream.runForEach((result) =>
          Effect.sync(() => {
            total.scored += result.scored
            total.alerts += result.alerts
            total.events += result.events
          })
        )
      )
      // Award notices among them change their winners' history: rescore those companies' open
      // tenders in the worker (no alerts).
      yield* queueRescores(jobs, yield* reads.winnersOfAwards(tenderIds))
      return total
    }).pipe(Effect.orDie, Effect.withSpan("ScoringService.scoreTenders"))

  // Page by page over the open tenders: its cost grows with them, which is what one company's
  // profile change can affect.
  const rescoreCompany = (companyId: string) =>
    Effect.gen(function* () {
      const stats = yield* corpus.current
      const affinity = yield* affinityTable.current
      const now = new Date(yield* Clock.currentTimeMillis)
      const company = (yield* reads.companyProfiles([companyId])).get(companyId)
      // A deactivated company is not scored, and its scores stay as they were (README, companies):
      // a rescore queued for it (a watchlist edit, one queued before it was deactivated) does nothing.
      if (company === undefined) return { scored: 0 }
      const pairs: Array<ScoringPair> = []
      const read: Array<TenderVersion> = []
      let afterSeq = "0"
      while (true) {
        const tenders = yield* reads.openContractTendersAfter(now, afterSeq)
        if (tenders.length === 0) break
        afterSeq = tenders[tenders.length - 1]!.row.ingest_seq
        for (const tender of tenders) {
          read.push({ id: tender.row.id, version: tender.row.version })
          if (isCandidate(company.prepared, tender.prepared, stats, affinity)) pairs.push({ tender, company })
        }
      }
      // Only the tenders read are in scope (`read`): one that arrived or reopened since is scored by
      // its own job, and its score must not be taken for a stale one of this company.
      const result = yield* writer.scoreAndWrite(
        pairs,
        stats,
        affinity,
        new Set(),
        { companyId, now },
        { tenders: read, revisionAtStart: () => company.revision }
      )
      return { scored: result.scored }
    }).pipe(Effect.orDie, Effect.withSpan("ScoringService.rescoreCompany"))

  // A new model version may also store pairs the old one never did (issue 11: text candidates), so
  // the open tenders are scored afresh first; then whatever still carries another version (closed
  // tenders) is rescored, so every stored row has weights in MODEL_WEIGHTS. The first pass records
  // each page it wrote (BackfillProgress): resumed after a crash, it goes on from there even when no
  // row of another version is left on the tenders it has not reached.
  const backfillModelVersion = Effect.gen(function* () {
    let total = 0
    const progress = yield* backfillProgress.current
    if (progress === undefined) {
      if ((yield* reads.tendersScoredByOtherModels).length === 0) return total
      yield* backfillProgress.start
    }
    if (progress?.done !== true) {
      const now = new Date(yield* Clock.currentTimeMillis)
      let afterSeq = progress?.afterSeq ?? "0"
      while (true) {
        const open = yield* reads.openContractTendersAfter(now, afterSeq)
        if (open.length === 0) break
        afterSeq = open[open.length - 1]!.row.ingest_seq
        total += (yield* scoreTenders(
          open.map((t) => t.row.id),
          { isNew: [] }
        )).scored
        yield* backfillProgress.advance(afterSeq)
      }
      yield* backfillProgress.finishOpenPass
    }
    while (true) {
      const tenderIds = yield* reads.tendersScoredByOtherModels
      if (tenderIds.length === 0) return total
      const result = yield* scoreTenders(tenderIds, { isNew: [] })
      total += result.scored
      // Whatever scoring did not rewrite (e.g. a tender now an award notice) is no longer valid.
      yield* writer.removeOutdatedScores(tenderIds)
    }
  })

  return ScoringService.of({ scoreTenders, rescoreCompany, backfillModelVersion })
})

export const ScoringServiceLive = Layer.effect(ScoringService, makeScoringService).pipe(Layer.provide(JobQueueLive))
