import { cpvClassOf, digitsOf } from "./CpvMatch.js"
import type { AwardInput, TenderInput } from "./Inputs.js"
import type { Nearest } from "./Place.js"
import { logRatioSimilarity, NEUTRAL } from "./ValueFit.js"
import { countedMatch, WON_TITLE_HISTORY_SHARE } from "./WonTitles.js"

/** Parts of the historical factor. */
export const HISTORY_AUTHORITY_WEIGHT = 0.35
export const HISTORY_CPV_WEIGHT = 0.45
export const HISTORY_VALUE_WEIGHT = 0.2
/**
 * The authority part's share for a tender near where the company works but from another
 * authority: a nearby buyer is worth less than one that already bought from the company.
 */
export const HISTORY_PLACE_SHARE = 0.7
/** Past awards of a third or three times the value still count half-similar (log width ln 3). */
const VALUE_LOG_WIDTH = Math.log(3)

const SAME_CLASS = 1

/** Same class 1, same group 0.6, same division 0.3. */
const cpvClassSimilarity = (tenderCpv: string, awardCpv: string): number => {
  const a = digitsOf(tenderCpv)
  const b = digitsOf(awardCpv)
  if (cpvClassOf(a) === cpvClassOf(b)) return SAME_CLASS
  if (a.slice(0, 3) === b.slice(0, 3)) return 0.6
  if (a.slice(0, 2) === b.slice(0, 2)) return 0.3
  return 0
}

/**
 * How much of a nearby tender's place counts for a company without award history: how far the
 * tender is of the company's trade, the better of its `cpv` and `semantic` factors (0-1; its codes
 * or its words). Its counties are all this factor knows of it, and a nearby tender of another trade
 * is not what it looks for near home (measured on the eval's place case: a design checker in
 * Ialomița saw its county's design and site-supervision tenders above checking tenders of its very
 * code two counties away). A company with history keeps the whole place share: its counties are
 * where it won, and the work it wins there crosses trades (the eval's cross-branch wins; gating
 * them too cost case 1 and 1x MRR@10).
 */
export const placeShareWithoutHistory = (cpv: number, semantic: number): number => Math.max(cpv, semantic)

/**
 * The historical factor's evidence: how many past awards came from the tender's authority, lie in
 * its CPV class, and (outside its class) counted by a title the tender's text matches (WonTitles.ts).
 */
export interface AwardCounts {
  fromAuthority: number
  inClass: number
  byTitle: number
}

/**
 * Historical factor, 0-1, from the company's past awards: same authority (else how near the
 * tender's county is to the company's counties, `place`), same CPV class, similar value (each the
 * best over the awards). Without history it is neutral (0.5), except the authority part, which
 * then measures place alone when both counties are known, as far as the tender is of the company's
 * trade (`placeShare`, placeShareWithoutHistory). `titleMatches` (by history index,
 * WonTitles.wonTitleMatches): an award whose title the tender's text matches strongly counts, in the
 * CPV part, as similar as WON_TITLE_HISTORY_SHARE × the match when that beats its class similarity.
 * Counts the awards from the same authority, in the same class and counted by title in `counts`.
 */
export const historicalScore = (
  tender: TenderInput,
  history: ReadonlyArray<AwardInput>,
  counts?: AwardCounts,
  place: Nearest | null = null,
  titleMatches: Float64Array | null = null,
  placeShare = 1
): number => {
  if (history.length === 0) {
    if (place === null) return NEUTRAL
    return HISTORY_AUTHORITY_WEIGHT * place.proximity * placeShare + (1 - HISTORY_AUTHORITY_WEIGHT) * NEUTRAL
  }
  let authority = place === null ? 0 : HISTORY_PLACE_SHARE * place.proximity
  let cpv = 0
  let value = tender.valueRon === null ? NEUTRAL : 0
  let comparedValues = false
  for (let i = 0; i < history.length; i++) {
    const award = history[i]!
    if (award.authorityId === tender.authorityId) {
      authority = 1
      if (counts !== undefined) counts.fromAuthority++
    }
    const similarity = cpvClassSimilarity(tender.mainCpv, award.mainCpv)
    if (counts !== undefined && similarity === SAME_CLASS) counts.inClass++
    const byTitle = WON_TITLE_HISTORY_SHARE * countedMatch(titleMatches, i)
    if (counts !== undefined && byTitle > similarity) counts.byTitle++
    cpv = Math.max(cpv, similarity, byTitle)
    if (tender.valueRon !== null && award.valueRon !== null) {
      comparedValues = true
      value = Math.max(
        value,
        logRatioSimilarity(Math.max(tender.valueRon, 1) / Math.max(award.valueRon, 1), VALUE_LOG_WIDTH)
      )
    }
  }
  if (!comparedValues) value = NEUTRAL
  return HISTORY_AUTHORITY_WEIGHT * authority + HISTORY_CPV_WEIGHT * cpv + HISTORY_VALUE_WEIGHT * value
}
