/**
 * The comparison rankings, computed in the harness over the same pool of notices the service sees.
 * - `Bm25Index`: full-text search as a search-based tender portal gives it: BM25 (k1 1.2, b 0.75,
 *   Lucene's idf) over each notice's title + description, terms from `searchTerms` (folded, stop
 *   words out, light Romanian stemming); the query is the company's description, each distinct
 *   term counted once.
 * - `cpvPrefixScore`: naive CPV matching: the longest leading run of digits the notice's main code
 *   shares with any code of the profile; below a division (2 digits) it is no match.
 * - `wordOverlapScore`: naive text matching: how many distinct plain words (`plainWords`) the
 *   description and the notice's text share.
 * - `hybridScores`: BM25 + CPV, as a search portal that also knows the company's codes would rank:
 *   the two scores summed after each is brought to 0-1 (CombSUM of normalised scores, Fox & Shaw
 *   1994): BM25 divided by the pool's best BM25 for this query, the CPV-prefix score divided by 8
 *   (the same code 1, the same division 0.25), equal weights, no tuning. A notice neither ranking
 *   returns is not returned. It is the strongest of the three combinations tried on case 1 before
 *   the service's model changed (this sum; the same with CPV at half weight; reciprocal rank fusion,
 *   k 60), so the service is measured against a fair hybrid, not a weak one.
 */
import { plainWords, searchTerms } from "./text.js"

export interface Notice {
  readonly key: string
  readonly title: string
  readonly description: string
  readonly mainCpv: string
}

const K1 = 1.2
const B = 0.75

export class Bm25Index {
  private readonly docs: Array<Map<string, number>>
  private readonly lengths: Array<number>
  private readonly df = new Map<string, number>()
  private readonly avgLength: number

  constructor(readonly notices: ReadonlyArray<Notice>) {
    this.docs = notices.map((n) => {
      const tf = new Map<string, number>()
      for (const term of searchTerms(`${n.title} ${n.description}`)) tf.set(term, (tf.get(term) ?? 0) + 1)
      return tf
    })
    this.lengths = this.docs.map((tf) => [...tf.values()].reduce((a, b) => a + b, 0))
    for (const tf of this.docs) for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1)
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length)
  }

  /** BM25 score of every notice (pool order) for the query text. */
  scores(query: string): Array<number> {
    const terms = [...new Set(searchTerms(query))]
    const n = this.docs.length
    return this.docs.map((tf, i) => {
      let score = 0
      for (const term of terms) {
        const f = tf.get(term)
        if (f === undefined) continue
        const df = this.df.get(term)!
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
        score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * this.lengths[i]!) / this.avgLength))
      }
      return score
    })
  }
}

const digitsOf = (cpv: string) => cpv.replace(/\D/g, "").slice(0, 8)

export const cpvPrefixScore = (noticeCpv: string, profileCpvs: ReadonlyArray<string>): number => {
  const a = digitsOf(noticeCpv)
  let best = 0
  for (const code of profileCpvs) {
    const b = digitsOf(code)
    let shared = 0
    while (shared < 8 && a[shared] === b[shared]) shared++
    best = Math.max(best, shared)
  }
  return best >= 2 ? best : 0
}

export const wordOverlapScore = (description: string, notice: Notice): number => {
  const words = new Set(plainWords(description))
  let shared = 0
  for (const w of new Set(plainWords(`${notice.title} ${notice.description}`))) if (words.has(w)) shared++
  return shared
}

/** The CPV-prefix score of a notice sharing all 8 digits with a profile code: what `hybridScores` divides by. */
const FULL_PREFIX = 8

/** BM25 and CPV-prefix scores of the same pool, each normalised to 0-1 and summed (see the header). */
export const hybridScores = (bm25: ReadonlyArray<number>, prefix: ReadonlyArray<number>): Array<number> => {
  const best = Math.max(0, ...bm25)
  return bm25.map((score, i) => (best > 0 ? score / best : 0) + prefix[i]! / FULL_PREFIX)
}
