import { bucharestDate } from "../BucharestTime.js"

/** Publication days are Romanian calendar days, `YYYY-MM-DD`. */
const DAY = /^(\d{4})-(\d{2})-(\d{2})/

/** The day a source's date names: "2026-11-24+01:00", "2026-11-24Z", "2026-11-24T10:00:00+02:00" → "2026-11-24". */
export const dayOf = (value: string): string | undefined => DAY.exec(value.trim())?.[0]

export const addDays = (day: string, days: number): string => {
  const [, y, m, d] = DAY.exec(day) ?? []
  return new Date(Date.UTC(Number(y), Number(m) - 1, Number(d) + days)).toISOString().slice(0, 10)
}

/** "2026-11-24" → "20261124", as TED's expert queries write dates. */
export const compactDay = (day: string): string => day.replaceAll("-", "")

/** The days from `from` to the Romanian day of `now`, both included (none when `from` is later). */
export const daysUntil = (from: string, now: number): ReadonlyArray<string> => {
  const today = bucharestDate(now)
  const days: Array<string> = []
  for (let day = from; day <= today; day = addDays(day, 1)) days.push(day)
  return days
}

/** The later of two days. */
export const laterDay = (a: string, b: string): string => (a > b ? a : b)

/** The earlier of two days. */
export const earlierDay = (a: string, b: string): string => (a < b ? a : b)
