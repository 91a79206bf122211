import { Duration } from "effect"

/** Spec 3: the states of a report job, as the status endpoint shows them. */
export const REPORT_STATUSES = ["pending", "generating", "completed", "failed"] as const
export type ReportStatus = (typeof REPORT_STATUSES)[number]

/** Spec 8.2: a report costs 10 credits, held at creation and charged when the job completes. */
export const REPORT_CREDIT_COST = 10

/** Attempts before a job that keeps failing (or keeps killing its worker) ends `failed`. */
export const REPORT_MAX_ATTEMPTS = 3

/** The creation response's `estimated_seconds`: a render takes well under a second; polling is every 5 s. */
export const REPORT_ESTIMATED_SECONDS = 5

/** PDFs (and their jobs and tokens) are removed this long after the job finished. */
export const REPORT_RETENTION = Duration.days(7)

/** The most tenders a report lists (the highest-scored); the summary still counts them all. */
export const REPORT_MAX_TENDERS = 500

/** How many of the top tenders get a factor breakdown. */
export const REPORT_BREAKDOWN_TENDERS = 5

/** What the client asked for (spec 4.3 body), dates as `YYYY-MM-DD` in Europe/Bucharest, both inclusive. */
export interface ReportParams {
  readonly date_from: string
  readonly date_to: string
  readonly min_score: number
  readonly watchlist_id: string | null
}

/** The file name offered for download. */
export const reportFileName = (params: Pick<ReportParams, "date_from" | "date_to">) =>
  `tender-report-${params.date_from}-${params.date_to}.pdf`
