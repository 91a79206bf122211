/**
 * What the benchmarks' synthetic procurement data is drawn from: CPV divisions weighted like
 * Romanian procurement, a deterministic random source (so every run benchmarks the same data), and
 * the draws the seeders share.
 */

/** Share of notices per CPV division, roughly as on SEAP (works, design, medical, IT, food, ...). */
export const DIVISION_WEIGHTS: Record<string, number> = {
  "45": 20,
  "33": 10,
  "71": 8,
  "79": 6,
  "39": 5,
  "90": 5,
  "50": 5,
  "15": 5,
  "30": 4,
  "34": 4,
  "72": 4,
  "44": 4,
  "80": 3,
  "09": 3,
  "48": 3,
  "60": 3,
  "77": 3,
  "55": 2,
  "85": 2,
  "92": 1
}

/** Deterministic PRNG (mulberry32). */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The draws of one seeded run: uniform, an item, a weighted CPV division, a log-normal value. */
export const syntheticDraws = (seed: number) => {
  const random = prng(seed)
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
  const entries = Object.entries(DIVISION_WEIGHTS)
  const total = entries.reduce((sum, [, w]) => sum + w, 0)
  const weightedDivision = () => {
    let r = random() * total
    for (const [division, weight] of entries) {
      r -= weight
      if (r < 0) return division
    }
    return entries[0]![0]
  }
  const logNormalValue = () => Math.round(Math.exp(10 + random() * 6) / 100) * 100 // ~22k to ~9M RON
  return { random, pick, weightedDivision, logNormalValue }
}
