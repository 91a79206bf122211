import { type Context, Duration, Effect, Schema } from "effect"
import { jobKind } from "../queue/JobKind.js"
import type { JobQueue } from "../queue/JobQueue.js"

/**
 * "tenders.score": tenders to score; those in isNew may raise alerts and events, those in changed
 * (updated by a change notice) only where their verdict rose. Queued by `tenders import --queue`
 * (stored now, scored by a worker) and by the ingestion of polled notices. A job holds at most 250
 * tenders (13-40 s at country scale): the default 30 minutes an attempt may run is ample.
 */
export const ScoreTenders = jobKind(
  "tenders.score",
  Schema.Struct({
    tenderIds: Schema.Array(Schema.String),
    isNew: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
    changed: Schema.optional(Schema.Array(Schema.String))
  })
)

/**
 * "company.rescore", queued when a company's description, profile or watchlists change: a consultant
 * who saved a watchlist waits for its list on the screen, so it goes ahead of a backlog of
 * `tenders.score` batches (a day's import, a catch-up poll) that would otherwise hold it for minutes.
 */
export const RescoreCompany = jobKind("company.rescore", Schema.Struct({ companyId: Schema.String }), {
  priority: 10
})

/**
 * How a change queues its company's rescore: grouped by the company, and not again while one is still
 * queued: a rescore reads the company when it starts, so the queued one covers this change too (three
 * saves in a row are one rescore). A running one does not count: it may have read the company before.
 */
export const rescoreOnce = (companyId: string) => ({ groupKey: companyId, unlessQueued: true }) as const

/**
 * Queues the rescore of each of these companies (`rescoreOnce`), in id order: transactions queuing
 * rescores of the same companies (a watchlist moved from one to another, a scoring write requeuing
 * both) then take the queue's rows in one order, and cannot deadlock on them.
 */
export const queueRescores = (jobs: Context.Tag.Service<JobQueue>, companyIds: Iterable<string>) =>
  Effect.forEach(
    [...new Set(companyIds)].sort(),
    (companyId) => jobs.enqueue(RescoreCompany, { companyId }, rescoreOnce(companyId)),
    { discard: true }
  )

/**
 * "scores.backfill": rescores every pair from an older model version (queued by a migration). It
 * scores every open tender of the country in one job (hundreds of `tenders.score` batches, tens of
 * minutes at scale), so its attempt may run for hours where the other kinds' 30 minutes would fail
 * it again and again.
 */
export const BackfillScores = jobKind("scores.backfill", Schema.Struct({}), { timeout: Duration.hours(6) })
