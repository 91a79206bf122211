import { bestCpvMatch, digitsOf, withinCode } from "./CpvMatch.js"
import type { PreparedCompany, PreparedTender, PreparedWatchlist } from "./Inputs.js"
import { matchesAnyPhrase } from "./KeywordMatch.js"
import type { TenderScore } from "./Model.js"

/**
 * The candidate filter: which (company, tender) pairs get a stored score. A pair is a candidate
 * when the tender's CPV lies inside a watched or previously won code or shares at least its class
 * (4 digits) with one, when a watchlist keyword occurs in it, when a watchlist targets its
 * authority, or when the company has won an award from the same authority. Pairs outside it are
 * not scored: their keyword factor is 0 and their CPV factor at most 0.55 (same group), so only
 * an unusually strong text similarity could lift them above the RESEARCH threshold. The SQL prefilter returns a superset of this; this is the rule.
 */
export const CANDIDATE_MIN_CPV = 0.75

export const isCandidate = (company: PreparedCompany, tender: PreparedTender): boolean => {
  const t = tender.tender
  if (bestCpvMatch(t.mainCpv, t.additionalCpvs, company.profileCodes).score >= CANDIDATE_MIN_CPV) return true
  if (company.authorityIds.has(t.authorityId)) return true
  if (company.company.history.some((award) => award.authorityId === t.authorityId)) return true
  return matchesAnyPhrase(company.phrases, tender)
}

/**
 * A watchlist's filters: every criterion it sets must hold (CPV: a tender code inside a watched
 * code; keywords: at least one found; value: inside the range when the tender has a value;
 * authority: the same one).
 */
export const passesWatchlist = (watchlist: PreparedWatchlist, tender: PreparedTender): boolean => {
  const w = watchlist.watchlist
  const t = tender.tender
  if (w.cpvCodes.length > 0) {
    const codes = [t.mainCpv, ...t.additionalCpvs]
    if (!codes.some((code) => w.cpvCodes.some((watched) => withinCode(digitsOf(code), watched)))) return false
  }
  if (watchlist.phrases.length > 0 && !matchesAnyPhrase(watchlist.phrases, tender)) return false
  if (t.valueRon !== null) {
    if (w.minValue !== null && t.valueRon < w.minValue) return false
    if (w.maxValue !== null && t.valueRon > w.maxValue) return false
  }
  if (w.authorityId !== null && w.authorityId !== t.authorityId) return false
  return true
}

/** Watchlists that alert for a new tender: the company's score reaches the threshold and the filters pass. */
export const alertingWatchlists = (
  company: PreparedCompany,
  tender: PreparedTender,
  score: TenderScore
): ReadonlyArray<PreparedWatchlist> =>
  company.watchlists.filter(
    (watchlist) => score.overallScore >= watchlist.watchlist.minScore && passesWatchlist(watchlist, tender)
  )
