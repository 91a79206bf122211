/** Neutral score when there is no range or no value to compare. */
export const NEUTRAL = 0.5

/** Width of the decay outside the range: a value twice the maximum scores e^-0.5 ≈ 0.61. */
const DECAY_LOG_WIDTH = Math.log(2)

/** Gaussian in log space: 1 at ratio 1, falling smoothly as the ratio moves away. */
export const logRatioSimilarity = (ratio: number, logWidth: number): number => {
  const distance = Math.log(ratio)
  return Math.exp(-(distance * distance) / (2 * logWidth * logWidth))
}

/** Value-fit factor, 0-1: 1 inside [min, max], decaying smoothly outside; neutral without data. */
export const valueFitScore = (value: number | null, min: number | null, max: number | null): number => {
  if (value === null || (min === null && max === null)) return NEUTRAL
  const safeValue = Math.max(value, 1)
  if (min !== null && safeValue < min) return logRatioSimilarity(Math.max(min, 1) / safeValue, DECAY_LOG_WIDTH)
  if (max !== null && safeValue > max) return logRatioSimilarity(safeValue / Math.max(max, 1), DECAY_LOG_WIDTH)
  return 1
}
