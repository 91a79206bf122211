import { bestCpvMatch, type CpvType } from "./CpvMatch.js"
import { historicalScore } from "./Historical.js"
import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import { keywordScore } from "./KeywordMatch.js"
import { type CorpusStats, semanticScore } from "./Semantic.js"
import { valueFitScore } from "./ValueFit.js"

/**
 * The tender scoring model. Its version names everything that changes a score: weights,
 * thresholds, factor constants. Change any of them and bump the version (a test pins them).
 */
export const MODEL_VERSION = "tsm-1.0.0"

export const WEIGHTS = {
  semantic: 0.25,
  keyword: 0.15,
  cpv: 0.3,
  value_fit: 0.1,
  historical: 0.2
} as const

export type FactorName = keyof typeof WEIGHTS

export const VERDICT_THRESHOLDS = { go: 70, research: 40 } as const

/** Confidence lost for each missing piece of data; never below the floor. */
export const CONFIDENCE_PENALTIES = {
  noTenderDescription: 0.15,
  noTenderValue: 0.15,
  noCompanyHistory: 0.2,
  noCompanyText: 0.15
} as const
export const CONFIDENCE_FLOOR = 0.2

export type Verdict = "GO" | "RESEARCH" | "SKIP"

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

const round = (value: number, digits: number) => {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))

const factor = (name: FactorName, rawScore: number): Factor => {
  const score = round(clamp01(rawScore), 4)
  return { score, weight: WEIGHTS[name], contribution: round(WEIGHTS[name] * score * 100, 2) }
}

export const verdictOf = (score: number): Verdict =>
  score >= VERDICT_THRESHOLDS.go ? "GO" : score >= VERDICT_THRESHOLDS.research ? "RESEARCH" : "SKIP"

export const confidenceOf = (company: PreparedCompany, tender: PreparedTender): number => {
  let confidence = 1
  if (tender.tender.description.trim().length === 0) confidence -= CONFIDENCE_PENALTIES.noTenderDescription
  if (tender.tender.valueRon === null) confidence -= CONFIDENCE_PENALTIES.noTenderValue
  if (company.company.history.length === 0) confidence -= CONFIDENCE_PENALTIES.noCompanyHistory
  if (!company.hasText) confidence -= CONFIDENCE_PENALTIES.noCompanyText
  return round(Math.max(CONFIDENCE_FLOOR, confidence), 2)
}

/** Scores one (company, tender) pair. Pure: the same inputs always give the same score. */
export const scorePair = (company: PreparedCompany, tender: PreparedTender, corpus: CorpusStats): TenderScore => {
  const cpv = bestCpvMatch(tender.tender.mainCpv, tender.tender.additionalCpvs, company.profileCodes)
  const factors: Factors = {
    semantic: factor("semantic", semanticScore(company.queryTerms, tender, corpus)),
    keyword: factor("keyword", keywordScore(company.phrases, tender)),
    cpv: { ...factor("cpv", cpv.score), cpv_type: cpv.cpvType },
    value_fit: factor("value_fit", valueFitScore(tender.tender.valueRon, company.minValue, company.maxValue)),
    historical: factor("historical", historicalScore(tender.tender, company.company.history))
  }
  const sum =
    factors.semantic.contribution +
    factors.keyword.contribution +
    factors.cpv.contribution +
    factors.value_fit.contribution +
    factors.historical.contribution
  const overallScore = Math.min(100, Math.max(0, Math.round(sum)))
  return {
    overallScore,
    overallConfidence: confidenceOf(company, tender),
    verdict: verdictOf(overallScore),
    factors
  }
}
