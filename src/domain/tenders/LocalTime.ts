import { BUCHAREST_TIME_ZONE, wallClockToInstant } from "../BucharestTime.js"

/**
 * Tender sources write local times without an offset (TED's "20200508 12:00", SEAP exports). We read
 * them as Romanian time (Europe/Bucharest, DST included), the time zone of the tenders this service
 * is for, unless the notice says its buyer is elsewhere (localToIso with that country's zone).
 */

/** The time of a deadline given as a day only: bids are taken through that day, not until it begins. */
export const END_OF_DAY = "23:59:59"

/**
 * Whether a day exists in the calendar: `Date` rolls 29 February of a common year or 31 April over
 * into the next month, which would move a deadline to a day the notice never named.
 */
export const isCalendarDay = (year: number, month: number, day: number): boolean => {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day) // not Date.UTC, which reads years 0-99 as 1900-1999
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** "2020-05-08" or "20200508", optional "12:00"/"12:00:00", in a time zone → ISO instant; null when unreadable. */
export const localToIso = (timeZone: string, date: string, time?: string): string | null => {
  const d = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(date.trim())
  const t = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec((time ?? "00:00").trim())
  if (d === null || t === null) return null
  const [year, month, day] = [Number(d[1]), Number(d[2]), Number(d[3])]
  // A day that does not exist (2026-02-29, 2026-04-31) is unreadable, not the next one.
  if (!isCalendarDay(year, month, day)) return null
  const [hour, minute, second] = [Number(t[1]), Number(t[2]), Number(t[3] ?? 0)]
  // Nor is a time that does not (12:75, 25:00), which `Date.UTC` would roll over; ISO's 24:00 is the day's end.
  if (minute > 59 || second > 59 || hour > 24 || (hour === 24 && (minute > 0 || second > 0))) return null
  const local = Date.UTC(year, month - 1, day, hour, minute, second)
  return new Date(wallClockToInstant(timeZone, local)).toISOString()
}

/** localToIso in Bucharest. */
export const bucharestLocalToIso = (date: string, time?: string): string | null =>
  localToIso(BUCHAREST_TIME_ZONE, date, time)
