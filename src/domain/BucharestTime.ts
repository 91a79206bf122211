/**
 * Romanian local time (Europe/Bucharest, DST included): the time zone of the tenders this service
 * is for, of its credit months and of its export dates. The one place that knows the offset (of
 * Bucharest, and of the zone a foreign notice's local times are written in).
 */
export const BUCHAREST_TIME_ZONE = "Europe/Bucharest"

const offsetNames = new Map<string, Intl.DateTimeFormat>()

/** Minutes an IANA time zone is ahead of UTC at an instant (Bucharest: 120 in winter, 180 in summer). */
export const zoneOffsetMinutes = (timeZone: string, epochMillis: number): number => {
  let format = offsetNames.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    offsetNames.set(timeZone, format)
  }
  const name = format.formatToParts(epochMillis).find((part) => part.type === "timeZoneName")?.value ?? ""
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name)
  return match === null ? 0 : (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]))
}

export const bucharestOffsetMinutes = (epochMillis: number): number =>
  zoneOffsetMinutes(BUCHAREST_TIME_ZONE, epochMillis)

const DAY_MS = 86_400_000

/**
 * The instant of a wall-clock time in a time zone, given as the epoch millis of the same fields read
 * as UTC (`Date.UTC(year, month - 1, day, hour, …)`). Across a DST change (at most one within a day
 * either side) the wall clock reads a time once, twice or never. Twice (the autumn hour, 03:00-03:59
 * in Bucharest): its first occurrence, when a clock first shows it, so a deadline is never placed an
 * hour after it came. Never (the spring hour skipped): as read with the offset before the change,
 * i.e. moved on by the gap (03:30 → 04:30), as the clocks were.
 */
export const wallClockToInstant = (timeZone: string, wallClockAsUtc: number): number => {
  const before = zoneOffsetMinutes(timeZone, wallClockAsUtc - DAY_MS) * 60_000
  const after = zoneOffsetMinutes(timeZone, wallClockAsUtc + DAY_MS) * 60_000
  // A candidate holds when the zone has that offset at the instant it gives.
  const readings = [wallClockAsUtc - before, wallClockAsUtc - after].filter(
    (instant) => zoneOffsetMinutes(timeZone, instant) * 60_000 === wallClockAsUtc - instant
  )
  return readings.length === 0 ? wallClockAsUtc - before : Math.min(...readings)
}

/** wallClockToInstant in Bucharest. */
export const bucharestWallClockToInstant = (wallClockAsUtc: number): number =>
  wallClockToInstant(BUCHAREST_TIME_ZONE, wallClockAsUtc)

/** The Bucharest wall clock at an instant, as a Date whose UTC fields read it. */
export const bucharestWallClock = (epochMillis: number): Date =>
  new Date(epochMillis + bucharestOffsetMinutes(epochMillis) * 60_000)

const pad = (n: number) => String(n).padStart(2, "0")

const datePart = (wallClock: Date) =>
  `${wallClock.getUTCFullYear()}-${pad(wallClock.getUTCMonth() + 1)}-${pad(wallClock.getUTCDate())}`

/** The calendar date in Bucharest at an instant, `YYYY-MM-DD`. */
export const bucharestDate = (epochMillis: number): string => datePart(bucharestWallClock(epochMillis))

/** ISO 8601 with the Bucharest offset, to the second, e.g. `2026-12-01T00:00:00+02:00`. */
export const bucharestIso = (epochMillis: number): string => {
  const offset = bucharestOffsetMinutes(epochMillis)
  const local = new Date(epochMillis + offset * 60_000)
  const sign = offset >= 0 ? "+" : "-"
  const abs = Math.abs(offset)
  return `${datePart(local)}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}
