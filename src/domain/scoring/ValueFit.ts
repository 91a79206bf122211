/** Neutral score when there is no range or no value to compare. */
export const NEUTRAL = 0.5

/** Width of the decay outside the range: a value twice the maximum scores e^-0.5 ≈ 0.61. */
const DECAY_LOG_WIDTH = Math.log(2)

/** Gaussian in log space: 1 at ratio 1, falling smoothly as the ratio moves away. */
export const logRatioSimilarity = (ratio: number, logWidth: number): number => {
  const distance = Math.log(ratio)
  return Math.exp(-(distance * distance) / (2 * logWidth * logWidth))
}

/** The value-fit factor's evidence: where the tender's value falls against the watched range. */
export type ValuePlacement = "no-range" | "no-value" | "below" | "inside" | "above"

/** One watchlist's value bounds (RON); null on a side it leaves open. */
export interface ValueRange {
  readonly min: number | null
  readonly max: number | null
}

/** What the value-fit factor found: the placement against the range that fit best (null without one). */
export interface ValueFinding {
  placement: ValuePlacement
  range: ValueRange | null
}

/** Where a value falls against [min, max], as valueFitScore compares them (a value under 1 RON counts as 1). */
export const valuePlacement = (value: number | null, min: number | null, max: number | null): ValuePlacement => {
  if (min === null && max === null) return "no-range"
  if (value === null) return "no-value"
  const safeValue = Math.max(value, 1)
  if (min !== null && safeValue < min) return "below"
  if (max !== null && safeValue > max) return "above"
  return "inside"
}

/** The fit of a value whose placement against [min, max] is known. */
const fitAt = (placement: ValuePlacement, value: number | null, min: number | null, max: number | null): number => {
  if (placement === "below") return logRatioSimilarity(Math.max(min!, 1) / Math.max(value!, 1), DECAY_LOG_WIDTH)
  if (placement === "above") return logRatioSimilarity(Math.max(value!, 1) / Math.max(max!, 1), DECAY_LOG_WIDTH)
  return placement === "inside" ? 1 : NEUTRAL
}

/** Value-fit factor, 0-1: 1 inside [min, max], decaying smoothly outside; neutral without data. */
export const valueFitScore = (value: number | null, min: number | null, max: number | null): number =>
  fitAt(valuePlacement(value, min, max), value, min, max)

/**
 * The value-fit factor against a company's watched ranges, one per watchlist that sets a bound: the
 * best fit over them, so a value inside any of them scores 1 (tsm-1.9.0: the ranges used to be merged
 * into [smallest min, largest max], which counted the gap between two ranges as inside and turned
 * "at least 1 M" beside "at most 100 k" into an empty range); neutral without a range.
 */
export const bestValueFit = (value: number | null, ranges: ReadonlyArray<ValueRange>, found?: ValueFinding): number => {
  let best = NEUTRAL
  let bestRange: ValueRange | null = null
  let bestPlacement: ValuePlacement = "no-range"
  for (const range of ranges) {
    const placement = valuePlacement(value, range.min, range.max)
    const score = fitAt(placement, value, range.min, range.max)
    if (bestRange === null || score > best) {
      best = score
      bestRange = range
      bestPlacement = placement
    }
  }
  if (found !== undefined) {
    found.placement = bestPlacement
    found.range = bestRange
  }
  return best
}
