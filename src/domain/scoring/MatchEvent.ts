import type { TenderScore } from "./Model.js"

/** What a tender.matched event tells about the tender (values in RON; null when unknown). */
export interface MatchedTender {
  readonly id: string
  readonly title: string
  /** The main code first, then the additional codes. */
  readonly cpvCodes: ReadonlyArray<string>
  readonly deadline: Date | null
  readonly estimatedValueRon: number | null
  readonly sourceUrl: string
}

/** The body of a tender.matched event (spec 6.1), in its wire field names. */
export interface TenderMatchedPayload {
  readonly event: "tender.matched"
  readonly company_id: string
  readonly tender: {
    readonly id: string
    readonly title: string
    readonly score: number
    readonly verdict: TenderScore["verdict"]
    readonly cpv_codes: ReadonlyArray<string>
    readonly deadline: string | null
    readonly estimated_value_ron: number | null
    readonly source_url: string
  }
  /** When the match was scored, ISO 8601 UTC. */
  readonly timestamp: string
}

/** Builds the tender.matched body for a company whose watchlist a new tender reached. */
export const tenderMatchedPayload = (
  companyId: string,
  tender: MatchedTender,
  score: Pick<TenderScore, "overallScore" | "verdict">,
  at: Date
): TenderMatchedPayload => ({
  event: "tender.matched",
  company_id: companyId,
  tender: {
    id: tender.id,
    title: tender.title,
    score: score.overallScore,
    verdict: score.verdict,
    cpv_codes: [...tender.cpvCodes],
    deadline: tender.deadline === null ? null : tender.deadline.toISOString(),
    estimated_value_ron: tender.estimatedValueRon,
    source_url: tender.sourceUrl
  },
  timestamp: at.toISOString()
})

/**
 * A new tender that reached a company's watchlists: what scoring hands to the alerts (one per
 * watchlist) and to the webhooks (one tender.matched event), written in the scores' transaction.
 */
export interface TenderMatch {
  readonly tenantId: string
  readonly companyId: string
  readonly tenderId: string
  readonly watchlistIds: ReadonlyArray<string>
  readonly score: number
  readonly verdict: TenderScore["verdict"]
  readonly event: TenderMatchedPayload
}
