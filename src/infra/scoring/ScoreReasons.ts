import { Context, Effect, Layer } from "effect"
import type { FactorReasons, ReasonLanguage } from "../../domain/scoring/Reasons.js"
import { makeCorpusStatsCache } from "./CorpusStatsCache.js"
import { makeCpvAffinityTable } from "./CpvAffinityTable.js"
import { makeScoringReads } from "./ScoringReads.js"

/**
 * Why each factor of a stored score is what it is: one sentence per factor (spec 2.3 `reason`),
 * for the key API's score breakdown (English) and the browser app (Romanian). Computed on read from the company's
 * current profile and the tender (ScoringReads.reasonsFor) with the same corpus statistics and CPV
 * affinity as scoring, instead of being stored with every score row (which would slow the scoring writes).
 */
export class ScoreReasons extends Context.Tag("ScoreReasons")<
  ScoreReasons,
  {
    /** Reasons by tender id; a tender that is not a contract notice, or an unknown company, has none. */
    readonly reasonsFor: (
      companyId: string,
      tenderIds: ReadonlyArray<string>,
      language?: ReasonLanguage
    ) => Effect.Effect<ReadonlyMap<string, FactorReasons>>
  }
>() {}

export const ScoreReasonsLive = Layer.effect(
  ScoreReasons,
  Effect.gen(function* () {
    const corpus = yield* makeCorpusStatsCache
    const affinityTable = yield* makeCpvAffinityTable
    const reads = yield* makeScoringReads
    return {
      reasonsFor: (companyId, tenderIds, language = "en") =>
        Effect.gen(function* () {
          const stats = yield* corpus.current
          // As stored: a read never relearns the table (the scorers do, ScoringService).
          const affinity = yield* affinityTable.stored
          return yield* reads.reasonsFor(companyId, tenderIds, stats, language, affinity)
        }).pipe(Effect.orDie, Effect.withSpan("ScoreReasons.reasonsFor"))
    }
  })
)
