/**
 * Feedback (issue 21), simulated on case 2 (description only): a consultant reads each company's
 * list from the top and marks the first FEEDBACK_MARKS tenders that are relevant by the held-out
 * truth (main CPV in the trade's families) relevant, through the account API; the worker rescores.
 * The lift is measured on the rest: P@10 of the list with the marked tenders left out, before and
 * after the marks, beside BM25 of the description, BM25 over each notice's text plus its CPV label
 * (case 2's hybrid) and BM25 of the description plus the marked tenders' titles (relevance
 * feedback for full text, Rocchio-style query expansion).
 */
import { K, precisionByList, precisionByScores } from "./metrics.js"
import type { Bm25Index } from "./rankers.js"
import type { Service } from "./service.js"

export const FEEDBACK_MARKS = 3

export interface ListedItem {
  readonly key: string
  readonly score: number
  readonly tenderId: string
}

/** The first FEEDBACK_MARKS relevant tenders of a list, in list order. */
export const marksOf = (list: ReadonlyArray<ListedItem>, isRelevant: (key: string) => boolean) =>
  list.filter((item) => isRelevant(item.key)).slice(0, FEEDBACK_MARKS)

/** Marks each tender relevant for the company through the account API (each queues a rescore). */
export const markRelevant = async (
  service: Service,
  accessToken: string,
  companyId: string,
  marks: ReadonlyArray<ListedItem>
) => {
  for (const mark of marks) {
    await service.http("PUT", `/api/v1/app/companies/${companyId}/tenders/${mark.tenderId}/feedback`, accessToken, {
      relevant: true
    })
  }
}

export interface FeedbackRow {
  readonly marked: number
  readonly before: number
  readonly after: number
  readonly bm25: number
  /** BM25 over each notice's text plus its CPV label: case 2's BM25 + CPV hybrid. */
  readonly bm25Labels: number
  readonly bm25Feedback: number
  readonly ideal: number
}

/** P@10 on the rest (marked tenders left out) for one company. */
export const feedbackRow = (input: {
  readonly before: ReadonlyArray<ListedItem>
  readonly after: ReadonlyArray<ListedItem>
  readonly marks: ReadonlyArray<ListedItem>
  readonly pool: ReadonlyArray<{ readonly key: string; readonly title: string }>
  readonly index: Bm25Index
  /** The same notices with their CPV label as description. */
  readonly labelIndex: Bm25Index
  readonly description: string
  readonly isRelevant: (key: string) => boolean
}): FeedbackRow => {
  const marked = new Set(input.marks.map((m) => m.key))
  const rest = (list: ReadonlyArray<ListedItem>) => list.map((i) => i.key).filter((key) => !marked.has(key))
  const relevantRest = input.pool.map((n) => !marked.has(n.key) && input.isRelevant(n.key))
  // Marked notices drop out of the full-text rankings too (score 0 is never counted).
  const restScores = (scores: ReadonlyArray<number>) => scores.map((s, i) => (marked.has(input.pool[i]!.key) ? 0 : s))
  const titles = input.pool.filter((n) => marked.has(n.key)).map((n) => n.title)
  return {
    marked: marked.size,
    before: precisionByList(rest(input.before), input.isRelevant),
    after: precisionByList(rest(input.after), input.isRelevant),
    bm25: precisionByScores(restScores(input.index.scores(input.description)), relevantRest),
    bm25Labels: precisionByScores(restScores(input.labelIndex.scores(input.description)), relevantRest),
    bm25Feedback: precisionByScores(
      restScores(input.index.scores([input.description, ...titles].join(". "))),
      relevantRest
    ),
    ideal: Math.min(K, relevantRest.filter(Boolean).length) / K
  }
}
