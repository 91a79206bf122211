import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import {
  type CorpusStats,
  inverseDocumentFrequency,
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
 *
 * A title is also compared work with work (model tsm-1.12.0): a tender whose title names the same work
 * as a won title ("Servicii de informare si publicitate pentru proiectul „Dotarea …”" against
 * "Servicii de publicitate si informare … a proiectului „Construirea de insule ecologice …”") matches
 * it as far as the won title's work has the tender's work words (by their idf), scaled by
 * WORK_MATCH_SCALE. The BM25 match of the whole text undersells it: the few words of the work drown in
 * a long project name and description, while another trade's tender for a like-named project or
 * programme shares many words of the won title's project part. The better of the two measures counts.
 */

/** A won title's match from which it counts ("strong text evidence": ~2 specific words shared). */
export const WON_TITLE_MIN_MATCH = 0.5
/**
 * In the historical factor, a won award whose title matches counts as similar as an award of the
 * same CPV group (0.6) at most, scaled by the match: below an award of the same class (1).
 */
export const WON_TITLE_HISTORY_SHARE = 0.6

/**
 * A work-with-work match (share of the tender's work words, by idf, in the won title's work) counts this
 * much: 0.9 for all of them, below a code the company won (1); 0.8-1 gave the same hits on the evaluation.
 */
export const WORK_MATCH_SCALE = 0.9
/**
 * Work words a won title must share with the tender's title for that match to count. A work is named
 * in a few words, one of them often as general as "servicii", "lucrări" or "furnizare": three shared
 * are two beyond it (at two, "Servicii de verificare" or "Servicii de proiectare" alone lifted other
 * tenders above a verifier's and a designer's next contracts on the evaluation).
 */
export const WORK_MIN_SHARED = 3

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
  const work = workMatches(company, tender, stats)
  let counted = false
  for (let i = 0; i < sums.length; i++) {
    const byText = sums[i]! < MIN_MATCH_SUM ? 0 : 1 - Math.exp(-sums[i]! / SEMANTIC_SCALE)
    const byWork = work === null || work[i]! < WON_TITLE_MIN_MATCH ? 0 : work[i]!
    sums[i] = Math.max(byText, byWork)
    if (sums[i]! > 0) counted = true
  }
  return counted ? sums : null
}

/**
 * Each won title's work-with-work match (by history index; 0 below WORK_MIN_SHARED shared words), or
 * null when the tender's title shares no work word with any. Walks the title's work words only.
 */
const workMatches = (company: PreparedCompany, tender: PreparedTender, stats: CorpusStats): Float64Array | null => {
  let shared: Float64Array | null = null
  let counts: Uint8Array | null = null
  let total = 0
  for (const term of tender.titleWork) {
    const idf = inverseDocumentFrequency(stats, term)
    total += idf
    const awards = company.wonTitleIndex.get(term)
    if (awards === undefined) continue
    for (const { award, weight } of awards) {
      if (weight !== 1) continue // a word of the won title's project name, not of its work
      shared ??= new Float64Array(company.company.history.length)
      counts ??= new Uint8Array(company.company.history.length)
      shared[award]! += idf
      counts[award]!++
    }
  }
  if (shared === null || counts === null) return null
  for (let i = 0; i < shared.length; i++) {
    shared[i] = counts[i]! >= WORK_MIN_SHARED ? (WORK_MATCH_SCALE * shared[i]!) / total : 0
  }
  return shared
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
