import { Duration, Effect, Layer, Schedule } from "effect"
import { ScoredTendersRepo } from "../infra/scoring/ScoredTendersRepo.js"

/** How long replaced score versions are kept: the time a list or export cursor stays exact. */
export const SCORE_VERSIONS_KEPT_HOURS = 24

/**
 * Prunes the score versions that cursors no longer need (migration 0012), at start and hourly.
 * Every worker runs it; the deletes are idempotent, so several at once only repeat work.
 */
export const ScoreHistoryPrunerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const repo = yield* ScoredTendersRepo
    yield* repo.pruneReplacedVersions(SCORE_VERSIONS_KEPT_HOURS).pipe(
      Effect.tap((n) => (n > 0 ? Effect.logInfo(`Pruned ${n} replaced score version(s)`) : Effect.void)),
      Effect.catchAllCause((cause) => Effect.logWarning("Pruning replaced score versions failed", cause)),
      Effect.repeat(Schedule.spaced(Duration.hours(1))),
      Effect.forkScoped
    )
  })
)
