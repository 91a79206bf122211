import type { FactorName } from "../scoring/Model.js"
import type { FactorReasons } from "../scoring/Reasons.js"
import type { Verdict } from "../scoring/Verdict.js"
import type { ReportParams } from "./ReportJob.js"

/** One tender row of the report. */
export interface ReportTender {
  readonly tenderId: string
  readonly title: string
  readonly score: number
  readonly verdict: Verdict
  /** `NNNNNNNN-D` and its Romanian label from the CPV table (empty when unknown). */
  readonly cpvCode: string
  readonly cpvLabel: string
  readonly authority: string
  readonly county: string | null
  /** Epoch milliseconds; shown as the Bucharest date. */
  readonly deadline: number | null
  /** The procedure was cancelled (ingestion set `cancelled_at`): no offer can be made, whatever the deadline. */
  readonly cancelled: boolean
  readonly publishDate: number
  readonly valueRon: number | null
}

/**
 * The factor breakdown of one of the top tenders: each factor's 0-1 score, weight and contribution,
 * and the Romanian sentence naming its evidence (null when the tender or the profile no longer
 * gives any, as the key API's score answer says).
 */
export interface ReportBreakdown {
  readonly tenderId: string
  readonly title: string
  readonly score: number
  readonly verdict: Verdict
  /** Epoch milliseconds, as in ReportTender. */
  readonly deadline: number | null
  readonly cancelled: boolean
  readonly reasons: FactorReasons | null
  readonly factors: ReadonlyArray<{
    readonly name: FactorName
    readonly score: number
    readonly weight: number
    readonly contribution: number
  }>
}

/** Everything a report shows; the template turns it into HTML, nothing else is read while rendering. */
export interface ReportData {
  readonly tenantName: string
  readonly companyName: string
  readonly watchlistName: string | null
  readonly params: ReportParams
  /** Epoch milliseconds, from the service's clock; shown in Europe/Bucharest. A deadline at or before it has passed. */
  readonly generatedAt: number
  /** Every tender that matched, before the table's cap. */
  readonly totalTenders: number
  readonly verdictCounts: { readonly [verdict in Verdict]: number }
  readonly averageScore: number | null
  /** Sum of the known RON values of every matched tender. */
  readonly totalValueRon: number
  /** The highest-scored tenders, at most REPORT_MAX_TENDERS. */
  readonly tenders: ReadonlyArray<ReportTender>
  readonly breakdowns: ReadonlyArray<ReportBreakdown>
}
