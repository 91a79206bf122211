import { bucharestIso, bucharestWallClock, bucharestWallClockToInstant } from "./BucharestTime.js"

/**
 * Credit periods are calendar months in Europe/Bucharest. A period is named by its first day
 * (`YYYY-MM-01`) and ends at the next month's midnight, local time, written with its real offset
 * (+02:00 in winter, +03:00 in summer).
 */

export interface CreditPeriod {
  /** First day of the month, `YYYY-MM-01`. */
  readonly start: string
  /** The instant the period ends (exclusive). */
  readonly endsAt: Date
  /** `endsAt` as ISO 8601 with the Bucharest offset, e.g. `2026-12-01T00:00:00+02:00`. */
  readonly endsAtText: string
}

const pad = (n: number) => String(n).padStart(2, "0")

// Every key-API request asks for the current period. A period changes only at local midnight, an
// hour boundary in UTC too (Bucharest's offsets are whole hours), so the last answer holds for its hour.
let lastAnswer: { readonly hour: number; readonly period: CreditPeriod } | undefined

export const creditPeriodAt = (epochMillis: number): CreditPeriod => {
  const hour = Math.floor(epochMillis / 3_600_000)
  if (lastAnswer?.hour === hour) return lastAnswer.period
  const period = computePeriod(epochMillis)
  lastAnswer = { hour, period }
  return period
}

const computePeriod = (epochMillis: number): CreditPeriod => {
  const local = bucharestWallClock(epochMillis)
  const year = local.getUTCFullYear()
  const month = local.getUTCMonth() + 1
  const next = month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 }
  // Midnight of the 1st is never inside a DST change in Bucharest (those happen at 03:00/04:00).
  const endsAt = bucharestWallClockToInstant(Date.UTC(next.year, next.month - 1, 1))
  return { start: `${year}-${pad(month)}-01`, endsAt: new Date(endsAt), endsAtText: bucharestIso(endsAt) }
}
