/**
 * The documented fixed exchange rate (RON per EUR) used wherever one of a tender's two values is
 * missing and must be derived from the other. Fixed, not live, so scores are reproducible.
 */
export const EUR_RON = 4.97

/** To the cent (the stored values are numeric(18, 2)). */
const toCents = (value: number) => Math.round(value * 100) / 100

/** A RON value in EUR at EUR_RON, to the cent. */
export const ronToEur = (ron: number) => toCents(ron / EUR_RON)

/** A EUR value in RON at EUR_RON, to the ban. */
export const eurToRon = (eur: number) => toCents(eur * EUR_RON)
