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

/** BM25 of the company's query terms against the tender's text. */
export const bm25 = (queryTerms: ReadonlyArray<string>, tender: PreparedTender, stats: CorpusStats): number => {
  const lengthNorm = 1 - BM25_B + (BM25_B * tender.length) / stats.averageLength
  let sum = 0
  for (const term of queryTerms) {
    const tf = tender.termFrequencies.get(term)
    if (tf === undefined) continue
    sum += (inverseDocumentFrequency(stats, term) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * lengthNorm)
  }
  return sum
}

/** Semantic factor, 0-1: BM25 saturated by 1 - e^(-bm25 / SEMANTIC_SCALE). */
export const semanticScore = (queryTerms: ReadonlyArray<string>, tender: PreparedTender, stats: CorpusStats): number =>
  1 - Math.exp(-bm25(queryTerms, tender, stats) / SEMANTIC_SCALE)
