import { BUCHAREST_TIME_ZONE, wallClockToInstant } from "../BucharestTime.js"

/**
 * Tender sources write local times without an offset (TED's "20200508 12:00", SEAP exports). We read
 * them as Romanian time (Europe/Bucharest, DST included), the time zone of the tenders this service
 * is for, unless the notice says its buyer is elsewhere (localToIso with that country's zone).
 */

/** The time of a deadline given as a day only: bids are taken through that day, not until it begins. */
export const END_OF_DAY = "23:59:59"

/** "2020-05-08" or "20200508", optional "12:00"/"12:00:00", in a time zone → ISO instant; null when unreadable. */
export const localToIso = (timeZone: string, date: string, time?: string): string | null => {
  const d = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(date.trim())
  const t = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec((time ?? "00:00").trim())
  if (d === null || t === null) return null
  const local = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]), Number(t[3] ?? 0))
  if (Number.isNaN(local)) return null
  return new Date(wallClockToInstant(timeZone, local)).toISOString()
}

/** localToIso in Bucharest. */
export const bucharestLocalToIso = (date: string, time?: string): string | null =>
  localToIso(BUCHAREST_TIME_ZONE, date, time)
