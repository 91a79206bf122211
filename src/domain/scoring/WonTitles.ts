import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import {
  type CorpusStats,
  lengthNormOf,
  SEMANTIC_SCALE,
  type SharedTerm,
  termContribution,
  termWeight
} from "./Semantic.js"
import { keyBitsOf, mayHaveTermBit } from "./TermBits.js"

/**
 * The text route to the contracts a company won (model tsm-1.5.0). A buyer picks a tender's CPV code,
 * and the same work is often coded in another branch: a press notice as publicity services (7934)
 * or as printed material (2246), a feasibility study as design (71) or as studies (79), a school's
 * furniture lot beside the IT lot of the same project. The CPV tree calls these unrelated; the text
 * says the tender is the kind of work the company already won. So each won award's title is matched
 * on its own against the tender's text, with the semantic factor's measure (BM25 of the title's
 * words, saturated as 1 - e^(-bm25 / SEMANTIC_SCALE), 0-1), and a match of at least
 * WON_TITLE_MIN_MATCH counts:
 * - in the `cpv` factor, as a match of that strength (Model.scorePair: the higher of the tree, the
 *   learned affinity and this), because it says what kind of work the tender is;
 * - in the `historical` factor's CPV part, as an award of similarity WON_TITLE_HISTORY_SHARE × the
 *   match (Historical.historicalScore), because that part measures how alike the tender is to the
 *   contracts the company won.
 * Each title alone, not all of them together (that is the semantic factor): one contract that reads
 * like the tender is the evidence; words spread over ten different contracts are not.
 */

/** A won title's match from which it counts ("strong text evidence": ~2 specific words shared). */
export const WON_TITLE_MIN_MATCH = 0.5
/**
 * In the historical factor, a won award whose title matches counts as similar as an award of the
 * same CPV group (0.6) at most, scaled by the match: below an award of the same class (1).
 */
export const WON_TITLE_HISTORY_SHARE = 0.6

/** The best-matching won award: its index in the company's history, the match (0-1) and the words shared. */
export interface WonTitleMatch {
  readonly award: number
  readonly score: number
  /** Filled only when asked for (the reasons): each shared word and what it added. */
  readonly shared: ReadonlyArray<SharedTerm>
}

/** The BM25 sum from which a title's match reaches WON_TITLE_MIN_MATCH (1 - e^(-sum / scale) ≥ the match). */
const MIN_MATCH_SUM = -SEMANTIC_SCALE * Math.log(1 - WON_TITLE_MIN_MATCH) * (1 - 1e-9)

/**
 * How well the tender's text matches each won award's title (0-1, by history index; a title below
 * WON_TITLE_MIN_MATCH left at 0, as it counts nothing), or null when no title reaches it. Walks the
 * tender's words, not the titles', so its cost is the tender's length whatever the size of the
 * company's history; the saturation is worked out only for the titles that may count.
 */
export const wonTitleMatches = (
  company: PreparedCompany,
  tender: PreparedTender,
  stats: CorpusStats
): Float64Array | null => {
  const index = company.wonTitleIndex
  if (index.size === 0) return null
  let sums: Float64Array | null = null
  const lengthNorm = lengthNormOf(tender, stats)
  const titleBits = keyBitsOf(index)
  let i = 0
  for (const [term, tf] of tender.termFrequencies) {
    if (!mayHaveTermBit(titleBits, tender.termBitList[i++]!)) continue
    const awards = index.get(term)
    if (awards === undefined) continue
    const contribution = termWeight(stats, term, tf, lengthNorm)
    sums ??= new Float64Array(company.company.history.length)
    for (const { award, weight } of awards) sums[award]! += weight * contribution
  }
  if (sums === null) return null
  let counted = false
  for (let i = 0; i < sums.length; i++) {
    if (sums[i]! < MIN_MATCH_SUM) {
      sums[i] = 0
      continue
    }
    sums[i] = 1 - Math.exp(-sums[i]! / SEMANTIC_SCALE)
    counted = true
  }
  return counted ? sums : null
}

/** A won award's match as the factors count it: itself from WON_TITLE_MIN_MATCH, else 0. */
export const countedMatch = (matches: Float64Array | null, award: number): number => {
  const match = matches?.[award] ?? 0
  return match >= WON_TITLE_MIN_MATCH ? match : 0
}

/** The won award whose title the tender matches best, if it counts (ties: the earlier award). */
export const bestWonTitle = (matches: Float64Array | null): { award: number; score: number } | null => {
  if (matches === null) return null
  let best: { award: number; score: number } | null = null
  for (let i = 0; i < matches.length; i++) {
    const score = countedMatch(matches, i)
    if (score > 0 && (best === null || score > best.score)) best = { award: i, score }
  }
  return best
}

/** The words a won award's title shares with the tender, the biggest contribution first (for the reasons). */
export const sharedWithWonTitle = (
  company: PreparedCompany,
  tender: PreparedTender,
  stats: CorpusStats,
  award: number
): ReadonlyArray<SharedTerm> => {
  const shared: Array<SharedTerm> = []
  for (const term of tender.termFrequencies.keys()) {
    const entry = company.wonTitleIndex.get(term)?.find((entry) => entry.award === award)
    if (entry !== undefined) shared.push({ term, contribution: entry.weight * termContribution(term, tender, stats) })
  }
  return shared.sort((a, b) => b.contribution - a.contribution || (a.term < b.term ? -1 : 1))
}
