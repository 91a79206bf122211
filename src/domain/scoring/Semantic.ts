import type { PreparedTender } from "./Inputs.js"

/** Document frequencies over a sample of the tender corpus; passed in so scoring stays pure. */
export interface CorpusStats {
  readonly documentCount: number
  readonly averageLength: number
  readonly documentFrequencies: ReadonlyMap<string, number>
}

export const emptyCorpusStats: CorpusStats = { documentCount: 0, averageLength: 1, documentFrequencies: new Map() }

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
  return {
    documentCount,
    averageLength: documentCount > 0 ? Math.max(1, totalLength / documentCount) : 1,
    documentFrequencies
  }
}

/** BM25 parameters (the usual defaults) and the scale that maps a BM25 sum onto 0-1. */
export const BM25_K1 = 1.2
export const BM25_B = 0.75
export const SEMANTIC_SCALE = 8

/** Always positive, so every shared term adds to the score (BM25+ style idf). */
const inverseDocumentFrequency = (stats: CorpusStats, term: string): number => {
  const df = stats.documentFrequencies.get(term) ?? 0
  return Math.log(1 + (stats.documentCount - df + 0.5) / (df + 0.5))
}

/** BM25 term weight (idf × saturated tf) of one query term in the tender; 0 when absent. */
export const termContribution = (term: string, tender: PreparedTender, stats: CorpusStats): number => {
  const tf = tender.termFrequencies.get(term)
  if (tf === undefined) return 0
  const lengthNorm = 1 - BM25_B + (BM25_B * tender.length) / stats.averageLength
  return (inverseDocumentFrequency(stats, term) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * lengthNorm)
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
  let sum = 0
  for (const term of queryTerms) {
    if (!tender.termFrequencies.has(term)) continue
    const contribution = (weights?.get(term) ?? 1) * termContribution(term, tender, stats)
    sum += contribution
    shared?.push({ term, contribution })
  }
  return sum
}

/** Semantic factor, 0-1: BM25 saturated by 1 - e^(-bm25 / SEMANTIC_SCALE). */
export const semanticScore = (
  queryTerms: ReadonlyArray<string>,
  tender: PreparedTender,
  stats: CorpusStats,
  weights?: ReadonlyMap<string, number>,
  shared?: Array<SharedTerm>
): number => 1 - Math.exp(-bm25(queryTerms, tender, stats, weights, shared) / SEMANTIC_SCALE)

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
