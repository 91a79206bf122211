/**
 * The documented fixed exchange rate (RON per EUR) used wherever one of a tender's two values is
 * missing and must be derived from the other. Fixed, not live, so scores are reproducible.
 */
export const EUR_RON = 4.97
