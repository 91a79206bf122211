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

/** Where a value falls against [min, max], as valueFitScore compares them (a value under 1 RON counts as 1). */
export const valuePlacement = (value: number | null, min: number | null, max: number | null): ValuePlacement => {
  if (min === null && max === null) return "no-range"
  if (value === null) return "no-value"
  const safeValue = Math.max(value, 1)
  if (min !== null && safeValue < min) return "below"
  if (max !== null && safeValue > max) return "above"
  return "inside"
}

/** Value-fit factor, 0-1: 1 inside [min, max], decaying smoothly outside; neutral without data. */
export const valueFitScore = (
  value: number | null,
  min: number | null,
  max: number | null,
  found?: { placement: ValuePlacement }
): number => {
  const placement = valuePlacement(value, min, max)
  if (found !== undefined) found.placement = placement
  if (placement === "below") return logRatioSimilarity(Math.max(min!, 1) / Math.max(value!, 1), DECAY_LOG_WIDTH)
  if (placement === "above") return logRatioSimilarity(Math.max(value!, 1) / Math.max(max!, 1), DECAY_LOG_WIDTH)
  return placement === "inside" ? 1 : NEUTRAL
}
