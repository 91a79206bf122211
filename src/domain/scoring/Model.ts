import {
  AFFINITY_MAX_SCORE,
  type AffinityMatch,
  bestAffinityMatch,
  type CpvAffinity,
  NO_AFFINITY
} from "./CpvAffinity.js"
import { bestCpvMatchOf, type CpvMatch, type CpvType } from "./CpvMatch.js"
import { type ClassFeedback, feedbackFor, feedbackShift } from "./Feedback.js"
import { type AwardCounts, historicalScore, placeShareWithoutHistory } from "./Historical.js"
import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import { type KeywordsFound, keywordScore } from "./KeywordMatch.js"
import { type Nearest, nearestCounty } from "./Place.js"
import { type CorpusStats, companySemanticScore, type SharedTerm } from "./Semantic.js"
import { STATED_TEXT_MAX_SCORE, statedTextScore } from "./StatedText.js"
import { bestValueFit, type ValueFinding } from "./ValueFit.js"
import type { Verdict } from "./Verdict.js"
import { bestWonTitle, wonTitleMatches } from "./WonTitles.js"

/**
 * The tender scoring model. Its version names everything that changes a score: weights,
 * thresholds, factor constants. Change any of them and bump the version (a test pins them).
 */
export const MODEL_VERSION = "tsm-1.12.0"

export const WEIGHTS = {
  semantic: 0.25,
  keyword: 0.15,
  cpv: 0.3,
  value_fit: 0.1,
  historical: 0.2
} as const

export type FactorName = keyof typeof WEIGHTS

export type Weights = { readonly [name in FactorName]: number }

/**
 * Weights of every model version whose scores may still be stored. Stored scores keep only the
 * factor scores; their weights and contributions are derived from their version, so a retired
 * version stays here until `scores.backfill` has rewritten its rows.
 */
export const MODEL_WEIGHTS: { readonly [version: string]: Weights } = {
  [MODEL_VERSION]: WEIGHTS,
  // tsm-1.11.0: same weights; a won title matched a tender by the BM25 of its whole text only, not also work with work.
  "tsm-1.11.0": WEIGHTS,
  // tsm-1.10.0: same weights; without history, a tender near the company's counties got the whole place share whatever its trade.
  "tsm-1.10.0": WEIGHTS,
  // tsm-1.9.0: same weights; a company with one award won had the stricter text floor.
  "tsm-1.9.0": WEIGHTS,
  // tsm-1.8.0: same weights; its value fit merged the watchlists' ranges into one, and any watchlist
  // (even one of filters only) gave a company the stricter text floor.
  "tsm-1.8.0": WEIGHTS,
  // tsm-1.7.0: same weights; it read a lower-case "pt" (pentru) as a word and rounded contributions in floating point.
  "tsm-1.7.0": WEIGHTS,
  // tsm-1.6.0: same weights; its cpv factor gave 1 to any code inside a watched code and read no text but won titles.
  "tsm-1.6.0": WEIGHTS,
  // tsm-1.5.0: same weights; its semantic factor saturated every company's BM25 at the same scale (Semantic.semanticScaleOf).
  "tsm-1.5.0": WEIGHTS,
  // tsm-1.4.0: same weights; its cpv and historical factors did not read the titles of the contracts won (WonTitles.ts).
  "tsm-1.4.0": WEIGHTS,
  // tsm-1.3.0: same weights; its cpv factor knew only the CPV tree, not the classes the same firms win (CpvAffinity.ts).
  "tsm-1.3.0": WEIGHTS,
  // tsm-1.2.0: same weights; its historical factor did not know where the company works (Place.ts).
  "tsm-1.2.0": WEIGHTS,
  // tsm-1.1.0: same weights; a company known by its description alone needed the stricter text floor.
  "tsm-1.1.0": WEIGHTS,
  // tsm-1.0.0: same weights; its semantic query had no award titles and its candidates no text rule.
  "tsm-1.0.0": WEIGHTS
}

export const VERDICT_THRESHOLDS = { go: 70, research: 40 } as const

/** Confidence lost for each missing piece of data; never below the floor. */
export const CONFIDENCE_PENALTIES = {
  noTenderDescription: 0.15,
  noTenderValue: 0.15,
  noCompanyHistory: 0.2,
  noCompanyText: 0.15
} as const
export const CONFIDENCE_FLOOR = 0.2

export interface Factor {
  readonly score: number
  readonly weight: number
  readonly contribution: number
}

export interface Factors {
  readonly semantic: Factor
  readonly keyword: Factor
  readonly cpv: Factor & { readonly cpv_type: CpvType }
  readonly value_fit: Factor
  readonly historical: Factor
}

export interface TenderScore {
  readonly overallScore: number
  readonly overallConfidence: number
  readonly verdict: Verdict
  readonly factors: Factors
}

/** `value` rounded at a power of ten (`scale`: 100, 10,000): a constant scale, as `10 ** digits` costs a call per pair. */
const roundAt = (value: number, scale: number) => Math.round(value * scale) / scale

const fraction = (value: number) => roundAt(Math.min(1, Math.max(0, value)), 10_000)

/** The five factor scores (0-1) of a pair and the kind of CPV match: what a stored score keeps. */
export interface FactorScores {
  readonly semantic: number
  readonly keyword: number
  readonly cpv: number
  readonly value_fit: number
  readonly historical: number
  readonly cpvType: CpvType
}

/**
 * `weight × score × 100` in whole hundredths, exactly: a weight has two decimals and a score four, so
 * the product is an integer over 100 and a half rounds up. (In floating point 0.3 × 0.5455 × 100 is
 * 16.364999…, which rounded to 16.36.)
 */
const contributionHundredths = (weight: number, score: number): number =>
  Math.round((Math.round(weight * 100) * Math.round(score * 10_000)) / 100)

const factor = (weight: number, score: number): Factor => ({
  score,
  weight,
  contribution: contributionHundredths(weight, score) / 100
})

/**
 * The full breakdown (weights and contributions) of factor scores under the given weights. Built for
 * every pair scored (millions per run), so each object is made once: no spread, and each weight read
 * by its own name rather than through a name passed in.
 */
export const factorBreakdown = (scores: FactorScores, weights: Weights = WEIGHTS): Factors => {
  const cpv = weights.cpv
  return {
    semantic: factor(weights.semantic, scores.semantic),
    keyword: factor(weights.keyword, scores.keyword),
    cpv: {
      score: scores.cpv,
      weight: cpv,
      contribution: contributionHundredths(cpv, scores.cpv) / 100,
      cpv_type: scores.cpvType
    },
    value_fit: factor(weights.value_fit, scores.value_fit),
    historical: factor(weights.historical, scores.historical)
  }
}

/** The rounded sum of the contributions (0-100), summed in hundredths so that a total of 49.50 is 50. */
export const overallScoreOf = (factors: Factors): number => {
  const hundredths =
    Math.round(factors.semantic.contribution * 100) +
    Math.round(factors.keyword.contribution * 100) +
    Math.round(factors.cpv.contribution * 100) +
    Math.round(factors.value_fit.contribution * 100) +
    Math.round(factors.historical.contribution * 100)
  return Math.min(100, Math.max(0, Math.round(hundredths / 100)))
}

export const verdictOf = (score: number): Verdict =>
  score >= VERDICT_THRESHOLDS.go ? "GO" : score >= VERDICT_THRESHOLDS.research ? "RESEARCH" : "SKIP"

export const confidenceOf = (company: PreparedCompany, tender: PreparedTender): number => {
  let confidence = 1
  if (tender.tender.description.trim().length === 0) confidence -= CONFIDENCE_PENALTIES.noTenderDescription
  if (tender.tender.valueRon === null) confidence -= CONFIDENCE_PENALTIES.noTenderValue
  if (company.company.history.length === 0) confidence -= CONFIDENCE_PENALTIES.noCompanyHistory
  if (!company.hasText) confidence -= CONFIDENCE_PENALTIES.noCompanyText
  return roundAt(Math.max(CONFIDENCE_FLOOR, confidence), 100)
}

/**
 * What each factor found while scoring a pair, recorded only when scorePair is given one
 * (Evidence.explainScore): the reasons are phrased from it, so they say what the score counted.
 */
export interface FactorFindings {
  readonly semantic: Array<SharedTerm>
  readonly keyword: KeywordsFound
  cpv: CpvMatch | null
  /** The affinity that gave the cpv score, when it beat the tree match (CpvAffinity.ts); else null. */
  cpvAffinity: AffinityMatch | null
  /**
   * The won award (history index) whose title gave the cpv score, when that text match beat the
   * tree and the affinity (WonTitles.ts); else null.
   */
  cpvWonTitle: { readonly award: number; readonly score: number } | null
  /**
   * The match of the tender's text with the company's description and keywords, when it gave the
   * cpv score, beating the tree, the affinity and the won titles (StatedText.ts); else null.
   */
  cpvStated: { readonly score: number } | null
  /** The user's marks in the tender's CPV class that shifted the cpv factor, if any. */
  cpvFeedback: ClassFeedback | null
  readonly value_fit: ValueFinding
  readonly historical: AwardCounts
  /** The tender's county against the company's counties (null when either is unknown). */
  place: Nearest | null
}

export const emptyFindings = (): FactorFindings => ({
  semantic: [],
  keyword: { inTitle: [], inDescription: [] },
  cpv: null,
  cpvAffinity: null,
  cpvWonTitle: null,
  cpvStated: null,
  cpvFeedback: null,
  value_fit: { placement: "no-range", range: null },
  historical: { fromAuthority: 0, inClass: 0, byTitle: 0 },
  place: null
})

/**
 * The learned affinity that beats the tree match, if any: it is capped below a same-class match, so
 * it only lifts tenders the tree places far from the profile (a tree match at or above the cap is
 * not looked up, nor is anything when nothing was learned: scoring asks for every pair).
 */
const affinityBeyondTree = (
  company: PreparedCompany,
  tender: PreparedTender,
  tree: CpvMatch,
  affinity: CpvAffinity
): AffinityMatch | null => {
  if (affinity.byClass.size === 0 || tree.score >= AFFINITY_MAX_SCORE) return null
  const reached = bestAffinityMatch(tender.cpv, company, affinity)
  return reached !== null && reached.score > tree.score ? reached : null
}

/**
 * Scores one (company, tender) pair. Pure: the same inputs always give the same score. With
 * `found`, each factor also records its evidence there (the scoring runs leave it out: no cost).
 * `affinity`: the CPV classes the same suppliers win (CpvAffinity.ts); without it, the tree alone.
 */
export const scorePair = (
  company: PreparedCompany,
  tender: PreparedTender,
  corpus: CorpusStats,
  affinity: CpvAffinity = NO_AFFINITY,
  found?: FactorFindings
): TenderScore => {
  const t = tender.tender
  const tree = bestCpvMatchOf(tender.cpv, company.profileCpv)
  const reached = affinityBeyondTree(company, tender, tree, affinity)
  const byCode = reached === null ? tree.score : reached.score
  // The text route (WonTitles.ts): a tender that reads like a contract the company won is that kind of work.
  const titleMatches = wonTitleMatches(company, tender, corpus)
  const wonTitle = bestWonTitle(titleMatches)
  const byTitle = wonTitle !== null && wonTitle.score > byCode ? wonTitle : null
  const byText = byTitle === null ? byCode : byTitle.score
  // The stated-text route (StatedText.ts): the tender reads like what the company says it does; capped,
  // and only beside codes it would compete with.
  const stated =
    byText < STATED_TEXT_MAX_SCORE && company.profileCodes.length > 0 ? statedTextScore(company, tender, corpus) : 0
  const byStated = stated > byText ? stated : null
  const cpvScore = byStated === null ? byText : byStated
  const place = nearestCounty(t.county ?? null, company.place.counties)
  // The user's marks in the tender's class move the cpv factor within bounds (Feedback.ts).
  const feedback = feedbackFor(company.feedback, t.mainCpv)
  if (found !== undefined) {
    found.cpv = tree
    found.cpvAffinity = byTitle === null && byStated === null ? reached : null
    found.cpvWonTitle = byStated === null ? byTitle : null
    found.cpvStated = byStated === null ? null : { score: byStated }
    found.place = place
    found.cpvFeedback = feedback ?? null
  }
  // Four decimals: what the API shows (stored as real, read back rounded to four).
  const cpv = fraction(feedback === undefined ? cpvScore : cpvScore + feedbackShift(feedback))
  const semantic = fraction(companySemanticScore(company, tender, corpus, found?.semantic))
  const factors = factorBreakdown({
    semantic,
    keyword: fraction(keywordScore(company.phrases, tender, found?.keyword)),
    cpv,
    value_fit: fraction(bestValueFit(t.valueRon, company.valueRanges, found?.value_fit)),
    historical: fraction(
      historicalScore(
        t,
        company.company.history,
        found?.historical,
        place,
        titleMatches,
        placeShareWithoutHistory(cpv, semantic)
      )
    ),
    // A text match names no code of the tender: "none" (the reason names the contract or the words it reads like).
    cpvType:
      byTitle !== null || byStated !== null
        ? "none"
        : reached === null
          ? tree.cpvType
          : reached.main
            ? "primary"
            : "additional"
  })
  const overallScore = overallScoreOf(factors)
  return {
    overallScore,
    overallConfidence: confidenceOf(company, tender),
    verdict: verdictOf(overallScore),
    factors
  }
}
