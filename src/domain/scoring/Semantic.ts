import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import { keyBitsOf, listBitsOf, mayHaveTermBit } from "./TermBits.js"

/** Document frequencies over a sample of the tender corpus; passed in so scoring stays pure. */
export interface CorpusStats {
  readonly documentCount: number
  readonly averageLength: number
  readonly documentFrequencies: ReadonlyMap<string, number>
  /**
   * inverseDocumentFrequency of every term of the corpus, worked out once: scoring asks for it for
   * every shared term of every pair (tens of millions of times a run), and a logarithm costs more
   * than the lookup. A term outside the corpus has `unseenIdf`.
   */
  readonly idf: ReadonlyMap<string, number>
  readonly unseenIdf: number
}

/** BM25+ style idf of a term in `df` of `documentCount` documents: always positive. */
const idfOf = (documentCount: number, df: number): number => Math.log(1 + (documentCount - df + 0.5) / (df + 0.5))

export const emptyCorpusStats: CorpusStats = {
  documentCount: 0,
  averageLength: 1,
  documentFrequencies: new Map(),
  idf: new Map(),
  unseenIdf: idfOf(0, 0)
}

/** Builds corpus statistics from tenders' term frequencies. */
export const buildCorpusStats = (
  documents: Iterable<Pick<PreparedTender, "termFrequencies" | "length">>
): CorpusStats => {
  const documentFrequencies = new Map<string, number>()
  let documentCount = 0
  let totalLength = 0
  for (const document of documents) {
    documentCount++
    totalLength += document.length
    for (const term of document.termFrequencies.keys()) {
      documentFrequencies.set(term, (documentFrequencies.get(term) ?? 0) + 1)
    }
  }
  const idf = new Map<string, number>()
  for (const [term, df] of documentFrequencies) idf.set(term, idfOf(documentCount, df))
  return {
    documentCount,
    averageLength: documentCount > 0 ? Math.max(1, totalLength / documentCount) : 1,
    documentFrequencies,
    idf,
    unseenIdf: idfOf(documentCount, 0)
  }
}

/**
 * BM25 parameters (the usual defaults) and the scale that maps a BM25 sum onto 0-1: the least one,
 * that of a short profile (semanticScaleOf) and of one won title (WonTitles.ts).
 */
export const BM25_K1 = 1.2
export const BM25_B = 0.75
export const SEMANTIC_SCALE = 8

/** Always positive, so every shared term adds to the score (BM25+ style idf). */
export const inverseDocumentFrequency = (stats: CorpusStats, term: string): number =>
  stats.idf.get(term) ?? stats.unseenIdf

/** A tender's BM25 length normalisation under these corpus statistics. */
export const lengthNormOf = (tender: PreparedTender, stats: CorpusStats): number =>
  1 - BM25_B + (BM25_B * tender.length) / stats.averageLength

/** BM25 weight (idf × saturated tf) of a term found `tf` times in a tender of that length normalisation. */
export const termWeight = (stats: CorpusStats, term: string, tf: number, lengthNorm: number): number =>
  (inverseDocumentFrequency(stats, term) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * lengthNorm)

/** BM25 term weight of one query term in the tender; 0 when absent. */
export const termContribution = (term: string, tender: PreparedTender, stats: CorpusStats): number => {
  const tf = tender.termFrequencies.get(term)
  return tf === undefined ? 0 : termWeight(stats, term, tf, lengthNormOf(tender, stats))
}

/** The semantic factor's evidence: a query term the tender contains, and what it added to the BM25 sum. */
export interface SharedTerm {
  readonly term: string
  readonly contribution: number
}

/**
 * BM25 of the company's query terms against the tender's text; each term counts with its query
 * weight when `weights` are given (see PreparedCompany.queryWeights), else 1. Records each shared
 * term with its contribution in `shared` when given.
 */
export const bm25 = (
  queryTerms: ReadonlyArray<string>,
  tender: PreparedTender,
  stats: CorpusStats,
  weights?: ReadonlyMap<string, number>,
  shared?: Array<SharedTerm>
): number => {
  const bits = listBitsOf(queryTerms)
  const lengthNorm = lengthNormOf(tender, stats)
  let sum = 0
  for (let i = 0; i < queryTerms.length; i++) {
    if (!mayHaveTermBit(tender.termBits, bits[i]!)) continue
    const term = queryTerms[i]!
    const tf = tender.termFrequencies.get(term)
    if (tf === undefined) continue
    const contribution = (weights?.get(term) ?? 1) * termWeight(stats, term, tf, lengthNorm)
    sum += contribution
    shared?.push({ term, contribution })
  }
  return sum
}

/**
 * BM25 of a weighted query (`weights`: each query term → its weight; PreparedCompany.queryWeights)
 * against the tender's text: bm25 with weights, but walking the tender's words instead of the
 * query's, so a company with a long profile (hundreds of words from its won titles) costs no more
 * per tender than a short one. Records each shared term in `shared` when given.
 */
export const weightedBm25 = (
  weights: ReadonlyMap<string, number>,
  tender: PreparedTender,
  stats: CorpusStats,
  shared?: Array<SharedTerm>
): number => {
  const lengthNorm = lengthNormOf(tender, stats)
  const queryBits = keyBitsOf(weights)
  let sum = 0
  let i = 0
  for (const [term, tf] of tender.termFrequencies) {
    if (!mayHaveTermBit(queryBits, tender.termBitList[i++]!)) continue
    const weight = weights.get(term)
    if (weight === undefined) continue
    const contribution = weight * termWeight(stats, term, tf, lengthNorm)
    sum += contribution
    shared?.push({ term, contribution })
  }
  return sum
}

/**
 * The scale of a company's semantic factor grows with its own text (model tsm-1.6.0): it is
 * SEMANTIC_PROFILE_SHARE of the BM25 its query would score against a tender holding each of its
 * words once (profileBm25), and never below SEMANTIC_SCALE. So the factor is 1 - e^(-5 × coverage),
 * coverage being the tender's BM25 over the profile's own: a tender covering a fifth of what the
 * company says it does reaches 0.63, two fifths 0.86. With one fixed scale, a profile of many
 * words (a long description, thirty won titles) reached the factor's ceiling on every tender of its
 * trade (BM25 sums of 30-60 against a scale of 8), so the tenders that read most like its work could
 * no longer be told apart from those that share some of its words, and the rounded overall score
 * tied them. The measure is also about the same in a corpus of 300 tenders and of 20,000 (the idf of
 * every word, and so both sums, grow with the corpus). A profile of a few words keeps SEMANTIC_SCALE.
 */
export const SEMANTIC_PROFILE_SHARE = 0.2

/**
 * The BM25 of a query against a tender of average length holding each query term once: the sum of
 * weight × idf over the query (BM25's saturation (k1 + 1) tf / (tf + k1) is 1 at tf 1).
 */
export const profileBm25 = (
  queryTerms: ReadonlyArray<string>,
  stats: CorpusStats,
  weights?: ReadonlyMap<string, number>
): number => {
  let sum = 0
  for (const term of queryTerms) sum += (weights?.get(term) ?? 1) * inverseDocumentFrequency(stats, term)
  return sum
}

/** The semantic factor's scale for a query: SEMANTIC_PROFILE_SHARE of profileBm25, at least SEMANTIC_SCALE. */
export const semanticScaleOf = (
  queryTerms: ReadonlyArray<string>,
  stats: CorpusStats,
  weights?: ReadonlyMap<string, number>
): number => Math.max(SEMANTIC_SCALE, SEMANTIC_PROFILE_SHARE * profileBm25(queryTerms, stats, weights))

/**
 * Semantic factor, 0-1: BM25 saturated by 1 - e^(-bm25 / scale), the scale of the query
 * (semanticScaleOf; the scorer passes it worked out once per company and corpus snapshot).
 */
export const semanticScore = (
  queryTerms: ReadonlyArray<string>,
  tender: PreparedTender,
  stats: CorpusStats,
  weights?: ReadonlyMap<string, number>,
  shared?: Array<SharedTerm>,
  scale: number = semanticScaleOf(queryTerms, stats, weights)
): number => 1 - Math.exp(-bm25(queryTerms, tender, stats, weights, shared) / scale)

/**
 * A per-company scale, asked for every pair: worked out once per company and corpus snapshot (the
 * cache is dropped with the prepared company).
 */
export const scalePerCompany = (
  scaleOf: (company: PreparedCompany, stats: CorpusStats) => number
): ((company: PreparedCompany, stats: CorpusStats) => number) => {
  const scales = new WeakMap<PreparedCompany, { readonly stats: CorpusStats; readonly scale: number }>()
  return (company, stats) => {
    const cached = scales.get(company)
    if (cached !== undefined && cached.stats === stats) return cached.scale
    const scale = scaleOf(company, stats)
    scales.set(company, { stats, scale })
    return scale
  }
}

/** The company's semantic scale (semanticScaleOf its query) under these corpus statistics. */
export const companySemanticScale = scalePerCompany((company, stats) =>
  semanticScaleOf(company.queryTerms, stats, company.queryWeights)
)

/**
 * The semantic factor of a (company, tender) pair, as scorePair counts it: semanticScore of the
 * company's weighted query at the company's scale, walking whichever is shorter, the company's
 * words (bm25) or the tender's (weightedBm25).
 */
export const companySemanticScore = (
  company: PreparedCompany,
  tender: PreparedTender,
  stats: CorpusStats,
  shared?: Array<SharedTerm>
): number => {
  // Walk the shorter side: a short profile's words, or a long profile's tender's words (same sum).
  const sum =
    company.queryTerms.length <= tender.termFrequencies.size
      ? bm25(company.queryTerms, tender, stats, company.queryWeights, shared)
      : weightedBm25(company.queryWeights, tender, stats, shared)
  return 1 - Math.exp(-sum / companySemanticScale(company, stats))
}

/**
 * Words that too many tenders contain ("servicii", "lucrări", "furnizare": more than 30% of the
 * corpus, and more than 20 tenders) never draw candidates: they would name every company.
 */
export const SPECIFIC_TERM_MAX_SHARE = 0.3
export const SPECIFIC_TERM_MIN_DOCUMENTS = 20

export const specificDocumentLimit = (stats: CorpusStats): number =>
  Math.max(SPECIFIC_TERM_MIN_DOCUMENTS, SPECIFIC_TERM_MAX_SHARE * stats.documentCount)

export const isSpecific = (stats: CorpusStats, term: string): boolean =>
  (stats.documentFrequencies.get(term) ?? 0) <= specificDocumentLimit(stats)

// Specificity is asked for the same terms over and over (every candidate pair): memo per snapshot.
const specificityMemo = new WeakMap<CorpusStats, Map<string, number>>()

/**
 * How specific a term is, 0-1: its idf over the idf of a term no tender contains, so the same
 * floor means the same thing in a corpus of 300 tenders and in one of 20,000.
 */
export const specificity = (stats: CorpusStats, term: string): number => {
  let memo = specificityMemo.get(stats)
  if (memo === undefined) {
    memo = new Map()
    specificityMemo.set(stats, memo)
  }
  const cached = memo.get(term)
  if (cached !== undefined) return cached
  const maxIdf = Math.log(1 + (stats.documentCount + 0.5) / 0.5)
  const value = maxIdf <= 0 ? 1 : Math.min(1, inverseDocumentFrequency(stats, term) / maxIdf)
  memo.set(term, value)
  return value
}
