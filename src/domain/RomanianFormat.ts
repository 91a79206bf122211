import { bucharestWallClock } from "./BucharestTime.js"

/**
 * Numbers and dates as a Romanian reader writes them: decimal comma and "." between thousands (as
 * ro-RO Intl writes them: 1.250.000, 71,3), days as `DD.MM.YYYY` in Bucharest time.
 */

const numberFormats = new Map<number, Intl.NumberFormat>()

/** At most `decimals` decimals, none when they are zero: 53,3 · 20 · 1.250.000. */
export const formatRoNumber = (value: number, decimals = 0): string => {
  let format = numberFormats.get(decimals)
  if (format === undefined) {
    format = new Intl.NumberFormat("ro-RO", { minimumFractionDigits: 0, maximumFractionDigits: decimals })
    numberFormats.set(decimals, format)
  }
  return format.format(value)
}

/**
 * A count with its noun, as Romanian agrees them: "1 licitație", "3 licitații", "101 licitații",
 * "20 de licitații", "1.200 de licitații". "de" comes before the plural unless the number is 0 or
 * ends in 01-19 (CLDR's ro plural rules). The one rule for the e-mails and the browser app (this
 * module is pure, the web bundle imports it too).
 */
export const romanianCount = (n: number, one: string, many: string): string => {
  if (n === 1) return `1 ${one}`
  const lastTwo = n % 100
  const de = n === 0 || (lastTwo >= 1 && lastTwo <= 19) ? "" : "de "
  return `${formatRoNumber(n)} ${de}${many}`
}

const pad = (n: number) => String(n).padStart(2, "0")

/** The Bucharest calendar day of an instant, `24.11.2026`. */
export const formatRoDate = (epochMillis: number): string => {
  const local = bucharestWallClock(epochMillis)
  return `${pad(local.getUTCDate())}.${pad(local.getUTCMonth() + 1)}.${local.getUTCFullYear()}`
}

/** The Bucharest day and time of an instant, `24.11.2026, 17:05` (as ro-RO Intl writes it). */
export const formatRoDateTime = (epochMillis: number): string => {
  const local = bucharestWallClock(epochMillis)
  return `${formatRoDate(epochMillis)}, ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}`
}

/** A calendar date `YYYY-MM-DD` (a report's period) as `DD.MM.YYYY`; anything else as it is. */
export const formatRoCalendarDate = (isoDate: string): string => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate)
  return match === null ? isoDate : `${match[3]}.${match[2]}.${match[1]}`
}
