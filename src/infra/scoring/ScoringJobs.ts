import { Effect, Schema } from "effect"
import type { Job } from "../queue/JobQueue.js"
import { ScoringService } from "./ScoringService.js"

/** Payload of "tenders.score": tenders to score; those in isNew may raise alerts and events. */
export const ScoreTendersPayload = Schema.Struct({
  tenderIds: Schema.Array(Schema.String),
  isNew: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})

/** Payload of "company.rescore", enqueued when a company's description or watchlists change. */
export const RescoreCompanyPayload = Schema.Struct({ companyId: Schema.String })

// Each handler names ScoringService in its requirements; the worker's layer provides it.

export const scoreTendersJob = (job: Job) =>
  Effect.gen(function* () {
    const payload = yield* Schema.decodeUnknown(ScoreTendersPayload)(job.payload)
    const scoring = yield* ScoringService
    const result = yield* scoring.scoreTenders(payload.tenderIds, { isNew: payload.isNew })
    yield* Effect.logInfo(`Scored ${result.scored} pairs, ${result.alerts} alerts, ${result.events} events`)
  })

export const rescoreCompanyJob = (job: Job) =>
  Effect.gen(function* () {
    const payload = yield* Schema.decodeUnknown(RescoreCompanyPayload)(job.payload)
    const scoring = yield* ScoringService
    const result = yield* scoring.rescoreCompany(payload.companyId)
    yield* Effect.logInfo(`Rescored company ${payload.companyId}: ${result.scored} pairs`)
  })

/** "scores.backfill": rescores every pair from an older model version (no payload). */
export const backfillScoresJob = (_job: Job) =>
  Effect.gen(function* () {
    const rescored = yield* (yield* ScoringService).backfillModelVersion
    yield* Effect.logInfo(`Backfilled ${rescored} pairs to the current scoring model`)
  })
