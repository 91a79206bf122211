/**
 * Credit periods are calendar months in Europe/Bucharest. A period is named by its first day
 * (`YYYY-MM-01`) and ends at the next month's midnight, local time, written with its real offset
 * (+02:00 in winter, +03:00 in summer).
 */
export const CREDIT_TIME_ZONE = "Europe/Bucharest"

export interface CreditPeriod {
  /** First day of the month, `YYYY-MM-01`. */
  readonly start: string
  /** The instant the period ends (exclusive). */
  readonly endsAt: Date
  /** `endsAt` as ISO 8601 with the Bucharest offset, e.g. `2026-12-01T00:00:00+02:00`. */
  readonly endsAtText: string
}

const localParts = new Intl.DateTimeFormat("en-US", {
  timeZone: CREDIT_TIME_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23"
})

const pad = (n: number) => String(n).padStart(2, "0")

/** Minutes east of UTC in Bucharest at the given instant. */
const offsetMinutes = (epochMillis: number): number => {
  const parts = Object.fromEntries(localParts.formatToParts(new Date(epochMillis)).map((p) => [p.type, p.value]))
  const asUtc = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!)
  return Math.round((asUtc - Math.floor(epochMillis / 1000) * 1000) / 60_000)
}

/** The UTC instant of local midnight on the first day of (year, month). */
const localMonthStart = (year: number, month: number): number => {
  const naive = Date.UTC(year, month - 1, 1)
  // The offset at the guessed instant may differ from the one at local midnight only across a DST
  // change, which never falls on midnight in Bucharest (03:00/04:00), so one correction suffices.
  return naive - offsetMinutes(naive - offsetMinutes(naive) * 60_000) * 60_000
}

const withOffset = (epochMillis: number): string => {
  const offset = offsetMinutes(epochMillis)
  const local = new Date(epochMillis + offset * 60_000)
  const sign = offset >= 0 ? "+" : "-"
  const abs = Math.abs(offset)
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

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
  const local = new Date(epochMillis + offsetMinutes(epochMillis) * 60_000)
  const year = local.getUTCFullYear()
  const month = local.getUTCMonth() + 1
  const next = month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 }
  const endsAt = localMonthStart(next.year, next.month)
  return { start: `${year}-${pad(month)}-01`, endsAt: new Date(endsAt), endsAtText: withOffset(endsAt) }
}
