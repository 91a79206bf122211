/**
 * Ranking metrics at a cut-off K. A ranking is either an explicit list (what the service's list
 * shows, in its order) or scores over a pool. For scores, an item scoring 0 or less is not returned
 * (a search engine does not list documents that match nothing, the service does not list pairs it
 * does not store), and ties are ordered at random: each metric is its expectation over tie orders,
 * so a ranking gains nothing from ties it cannot break.
 */
export const K = 10

/** One ranked result: the items above the target, and the size of its tie group (target included). */
interface Placement {
  readonly above: number
  readonly tied: number
}

/** Where the target lands among scored items; null when it is not returned at all. */
const placeOf = (scores: ReadonlyArray<number>, target: number): Placement | null => {
  const t = scores[target]!
  if (!(t > 0)) return null
  let above = 0
  let tied = 0
  for (const s of scores) {
    if (s > t) above++
    else if (s === t) tied++
  }
  return { above, tied }
}

/** P(target in top K) under a random order of its tie group. */
const hitOf = (p: Placement | null) => (p === null ? 0 : Math.min(1, Math.max(0, (K - p.above) / p.tied)))

/** E[1/rank · (rank ≤ K)] under a random order of its tie group. */
const reciprocalOf = (p: Placement | null) => {
  if (p === null) return 0
  let sum = 0
  for (let rank = p.above + 1; rank <= Math.min(p.above + p.tied, K); rank++) sum += 1 / rank
  return sum / p.tied
}

export interface TargetMetrics {
  readonly hit: number
  readonly reciprocal: number
  /** Expected rank (middle of the tie group), null when not returned. */
  readonly rank: number | null
}

export const targetByScores = (scores: ReadonlyArray<number>, target: number): TargetMetrics => {
  const p = placeOf(scores, target)
  return { hit: hitOf(p), reciprocal: reciprocalOf(p), rank: p === null ? null : p.above + (p.tied + 1) / 2 }
}

/** The target's place in an explicit ordered list (ids), as a user reads it. */
export const targetByList = (list: ReadonlyArray<string>, target: string): TargetMetrics => {
  const index = list.indexOf(target)
  if (index < 0) return { hit: 0, reciprocal: 0, rank: null }
  const rank = index + 1
  return { hit: rank <= K ? 1 : 0, reciprocal: rank <= K ? 1 / rank : 0, rank }
}

/** Expected share of relevant items among the top K (empty slots count as not relevant). */
export const precisionByScores = (scores: ReadonlyArray<number>, relevant: ReadonlyArray<boolean>): number => {
  const groups = new Map<number, { n: number; r: number }>()
  scores.forEach((s, i) => {
    if (!(s > 0)) return
    const g = groups.get(s) ?? { n: 0, r: 0 }
    g.n++
    if (relevant[i]) g.r++
    groups.set(s, g)
  })
  let slots = K
  let expected = 0
  for (const score of [...groups.keys()].sort((a, b) => b - a)) {
    if (slots <= 0) break
    const g = groups.get(score)!
    const taken = Math.min(slots, g.n)
    expected += (taken * g.r) / g.n
    slots -= taken
  }
  return expected / K
}

export const precisionByList = (list: ReadonlyArray<string>, isRelevant: (id: string) => boolean): number =>
  list.slice(0, K).filter(isRelevant).length / K

export const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
