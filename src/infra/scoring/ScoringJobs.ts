import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Job } from "../jobs/JobQueue.js"
import { backfillModelVersion, ScoringService } from "./ScoringService.js"

/** Payload of "tenders.score": tenders to score; those in isNew may raise alerts and events. */
export const ScoreTendersPayload = Schema.Struct({
  tenderIds: Schema.Array(Schema.String),
  isNew: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})

/** Payload of "company.rescore", enqueued when a company's description or watchlists change. */
export const RescoreCompanyPayload = Schema.Struct({ companyId: Schema.String })

/**
 * The worker's handlers see only what the worker process provides; ScoringService is part of
 * RepositoriesLive there. A missing service fails the job (and is retried) instead of crashing.
 */
const scoringService = Effect.flatMap(
  Effect.serviceOption(ScoringService),
  Option.match({
    onNone: () => Effect.fail(new Error("ScoringService is not provided to the worker")),
    onSome: Effect.succeed
  })
)

export const scoreTendersJob = (job: Job) =>
  Effect.gen(function* () {
    const payload = yield* Schema.decodeUnknown(ScoreTendersPayload)(job.payload)
    const scoring = yield* scoringService
    const result = yield* scoring.scoreTenders(payload.tenderIds, { isNew: payload.isNew })
    yield* Effect.logInfo(`Scored ${result.scored} pairs, ${result.alerts} alerts, ${result.events} events`)
  })

export const rescoreCompanyJob = (job: Job) =>
  Effect.gen(function* () {
    const payload = yield* Schema.decodeUnknown(RescoreCompanyPayload)(job.payload)
    const scoring = yield* scoringService
    const result = yield* scoring.rescoreCompany(payload.companyId)
    yield* Effect.logInfo(`Rescored company ${payload.companyId}: ${result.scored} pairs`)
  })

/** "scores.backfill": rescores every pair from an older model version (no payload). */
export const backfillScoresJob = (_job: Job) =>
  Effect.gen(function* () {
    const scoring = yield* scoringService
    const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
    if (Option.isNone(sql)) return yield* Effect.fail(new Error("SqlClient is not provided to the worker"))
    const rescored = yield* backfillModelVersion.pipe(
      Effect.provideService(ScoringService, scoring),
      Effect.provideService(SqlClient.SqlClient, sql.value)
    )
    yield* Effect.logInfo(`Backfilled ${rescored} pairs to the current scoring model`)
  })
