import { Schema } from "effect"
import { jobKind } from "../queue/JobKind.js"

/**
 * "tenders.score": tenders to score; those in isNew may raise alerts and events, those in changed
 * (updated by a change notice) only where their verdict rose. Queued by `tenders import --queue`
 * (stored now, scored by a worker) and by the ingestion of polled notices.
 */
export const ScoreTenders = jobKind(
  "tenders.score",
  Schema.Struct({
    tenderIds: Schema.Array(Schema.String),
    isNew: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
    changed: Schema.optional(Schema.Array(Schema.String))
  })
)

/** "company.rescore", queued when a company's description, profile or watchlists change. */
export const RescoreCompany = jobKind("company.rescore", Schema.Struct({ companyId: Schema.String }))

/** "scores.backfill": rescores every pair from an older model version (queued by a migration). */
export const BackfillScores = jobKind("scores.backfill", Schema.Struct({}))
