import { describe, expect, it } from "vitest"
import {
  bucharestDate,
  bucharestIso,
  bucharestOffsetMinutes,
  bucharestWallClockToInstant,
  wallClockToInstant
} from "../../src/domain/BucharestTime.js"

describe("Europe/Bucharest time, the one offset rule", () => {
  it("is UTC+2 in winter and UTC+3 in summer, switching at 01:00 UTC on the last Sundays of March and October", () => {
    expect(bucharestOffsetMinutes(Date.parse("2026-01-15T12:00:00Z"))).toBe(120)
    expect(bucharestOffsetMinutes(Date.parse("2026-07-15T12:00:00Z"))).toBe(180)
    expect(bucharestOffsetMinutes(Date.parse("2026-03-29T00:59:59Z"))).toBe(120)
    expect(bucharestOffsetMinutes(Date.parse("2026-03-29T01:00:00Z"))).toBe(180)
    expect(bucharestOffsetMinutes(Date.parse("2026-10-25T00:59:59Z"))).toBe(180)
    expect(bucharestOffsetMinutes(Date.parse("2026-10-25T01:00:00Z"))).toBe(120)
  })

  it("turns a local wall-clock time into its instant, on both sides of a DST change", () => {
    expect(new Date(bucharestWallClockToInstant(Date.UTC(2026, 0, 1))).toISOString()).toBe("2025-12-31T22:00:00.000Z")
    expect(new Date(bucharestWallClockToInstant(Date.UTC(2026, 3, 1))).toISOString()).toBe("2026-03-31T21:00:00.000Z")
    expect(new Date(bucharestWallClockToInstant(Date.UTC(2026, 2, 29, 12))).toISOString()).toBe(
      "2026-03-29T09:00:00.000Z"
    )
  })

  it("a wall-clock time the autumn change repeats is its first occurrence, whatever the zone's side of UTC", () => {
    // Bucharest 2026-10-25 03:30 is 00:30Z (EEST) and again 01:30Z (EET).
    expect(new Date(bucharestWallClockToInstant(Date.UTC(2026, 9, 25, 3, 30))).toISOString()).toBe(
      "2026-10-25T00:30:00.000Z"
    )
    // The Azores (UTC-1 in winter) 2026-10-25 00:30 is 00:30Z (UTC+0) and again 01:30Z.
    expect(new Date(wallClockToInstant("Atlantic/Azores", Date.UTC(2026, 9, 25, 0, 30))).toISOString()).toBe(
      "2026-10-25T00:30:00.000Z"
    )
    // A skipped time moves on by the gap, on either side of UTC: Bucharest 03:30 → 04:30 EEST, Azores 00:30 → 01:30.
    expect(new Date(bucharestWallClockToInstant(Date.UTC(2026, 2, 29, 3, 30))).toISOString()).toBe(
      "2026-03-29T01:30:00.000Z"
    )
    expect(new Date(wallClockToInstant("Atlantic/Azores", Date.UTC(2026, 2, 29, 0, 30))).toISOString()).toBe(
      "2026-03-29T01:30:00.000Z"
    )
  })

  it("names the local date and hour at the exact instants of both changes", () => {
    expect(bucharestIso(Date.parse("2026-03-29T00:59:59Z"))).toBe("2026-03-29T02:59:59+02:00")
    expect(bucharestIso(Date.parse("2026-03-29T01:00:00Z"))).toBe("2026-03-29T04:00:00+03:00")
    expect(bucharestIso(Date.parse("2026-10-25T00:59:59Z"))).toBe("2026-10-25T03:59:59+03:00")
    expect(bucharestIso(Date.parse("2026-10-25T01:00:00Z"))).toBe("2026-10-25T03:00:00+02:00")
    // Leap day: 29 February 2028 ends at 22:00Z.
    expect(bucharestDate(Date.parse("2028-02-29T21:59:59Z"))).toBe("2028-02-29")
    expect(bucharestDate(Date.parse("2028-02-29T22:00:00Z"))).toBe("2028-03-01")
  })

  it("names the local calendar date and writes instants with the local offset", () => {
    expect(bucharestDate(Date.parse("2026-11-30T21:59:59Z"))).toBe("2026-11-30")
    expect(bucharestDate(Date.parse("2026-11-30T22:00:00Z"))).toBe("2026-12-01")
    expect(bucharestIso(Date.parse("2026-11-30T22:00:00Z"))).toBe("2026-12-01T00:00:00+02:00")
    expect(bucharestIso(Date.parse("2026-06-30T21:00:00Z"))).toBe("2026-07-01T00:00:00+03:00")
  })
})
