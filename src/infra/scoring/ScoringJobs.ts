import { Effect } from "effect"
import { handle } from "../queue/JobRunner.js"
import { BackfillScores, RescoreCompany, ScoreTenders } from "./ScoringJobKinds.js"
import { ScoringService } from "./ScoringService.js"

// Each handler names ScoringService in its requirements; the worker's layer provides it.

export const scoreTendersJob = handle(ScoreTenders, (payload) =>
  Effect.gen(function* () {
    const scoring = yield* ScoringService
    const result = yield* scoring.scoreTenders(payload.tenderIds, {
      isNew: payload.isNew,
      changed: payload.changed ?? []
    })
    yield* Effect.logInfo(`Scored ${result.scored} pairs, ${result.alerts} alerts, ${result.events} events`)
  })
)

export const rescoreCompanyJob = handle(RescoreCompany, (payload) =>
  Effect.gen(function* () {
    const result = yield* (yield* ScoringService).rescoreCompany(payload.companyId)
    yield* Effect.logInfo(`Rescored company ${payload.companyId}: ${result.scored} pairs`)
  })
)

export const backfillScoresJob = handle(BackfillScores, () =>
  Effect.gen(function* () {
    const rescored = yield* (yield* ScoringService).backfillModelVersion
    yield* Effect.logInfo(`Backfilled ${rescored} pairs to the current scoring model`)
  })
)

/** The scoring kinds a worker process handles. */
export const scoringJobHandlers = [scoreTendersJob, rescoreCompanyJob, backfillScoresJob]
