import { bucharestWallClockToInstant } from "../domain/BucharestTime.js"
import { formatNumber } from "./strings.js"

/** Dates and times as the consultants read them: Romanian order, Bucharest time. */
const ZONE = "Europe/Bucharest"
const dateFormat = new Intl.DateTimeFormat("ro-RO", {
  timeZone: ZONE,
  day: "2-digit",
  month: "2-digit",
  year: "numeric"
})
const dateTimeFormat = new Intl.DateTimeFormat("ro-RO", {
  timeZone: ZONE,
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit"
})

// en-CA formats a date as YYYY-MM-DD: the calendar day in Bucharest, as the API's date fields read it.
const isoDayFormat = new Intl.DateTimeFormat("en-CA", {
  timeZone: ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit"
})

/** The Bucharest calendar day of an instant, `YYYY-MM-DD` (not the UTC day, which lags until 02:00/03:00). */
export const bucharestDay = (date: Date) => isoDayFormat.format(date)

/** The instant a `YYYY-MM-DD` day starts in Bucharest (not in the browser's zone, which may be another). */
export const bucharestMidnight = (day: string) => new Date(bucharestWallClockToInstant(Date.parse(`${day}T00:00:00Z`)))

export const formatDate = (date: Date) => dateFormat.format(date)
export const formatDateTime = (date: Date) => dateTimeFormat.format(date)

const DAY_MS = 86_400_000

/**
 * Days until a deadline as the calendar in Bucharest counts them (the dates a consultant reads): 0
 * when it falls today ("the last day"), 1 tomorrow, negative once it has passed. Not 24-hour blocks:
 * at 22:00, a deadline the next morning is tomorrow. `now` is passed in so the rule is testable and
 * one render uses one instant.
 */
export const daysLeft = (deadline: Date, now: Date) => {
  if (deadline.getTime() < now.getTime()) return -1
  const dayNumber = (date: Date) => Date.parse(`${bucharestDay(date)}T00:00:00Z`) / DAY_MS
  return dayNumber(deadline) - dayNumber(now)
}

/** "1.250.000 RON"; amounts in the list are whole currency units. */
export const formatMoney = (value: number, currency: "RON" | "EUR") => `${formatNumber(value, 0)} ${currency}`

const centsFormat = new Intl.NumberFormat("ro-RO", { minimumFractionDigits: 2, maximumFractionDigits: 2 })

/**
 * An amount a consultant typed (a watchlist's value range), as saved: "1.000 RON", "999,50 RON".
 * Rounded to whole units, 999,50 would read as 1.000 and a range 999,50 – 1.000,40 as empty.
 */
export const formatAmount = (value: number, currency: "RON" | "EUR") =>
  `${Number.isInteger(value) ? formatNumber(value, 0) : centsFormat.format(value)} ${currency}`

/** A tender's value in RON, and in EUR beside it when known ("0 EUR" would be a value it does not have). */
export const formatTenderValue = (ron: number, eur: number | null) =>
  eur === null ? formatMoney(ron, "RON") : `${formatMoney(ron, "RON")} · ${formatMoney(eur, "EUR")}`

/** A 0-1 fraction as a whole percentage. */
export const percent = (fraction: number) => Math.round(fraction * 100)

/** A `YYYY-MM-DD` calendar day (a source's watermark) as `DD.MM.YYYY`, like `formatDate`. */
export const formatDay = (isoDate: string) => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate)
  return match === null ? isoDate : `${match[3]}.${match[2]}.${match[1]}`
}

/** A `YYYY-MM-DD` local date (credits' daily use) as `DD.MM`. */
export const shortDay = (isoDate: string) => {
  const [, month, day] = isoDate.split("-")
  return `${day}.${month}`
}
