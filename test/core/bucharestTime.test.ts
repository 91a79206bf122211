import { describe, expect, it } from "vitest"
import {
  bucharestDate,
  bucharestIso,
  bucharestOffsetMinutes,
  bucharestWallClockToInstant
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

  it("names the local calendar date and writes instants with the local offset", () => {
    expect(bucharestDate(Date.parse("2026-11-30T21:59:59Z"))).toBe("2026-11-30")
    expect(bucharestDate(Date.parse("2026-11-30T22:00:00Z"))).toBe("2026-12-01")
    expect(bucharestIso(Date.parse("2026-11-30T22:00:00Z"))).toBe("2026-12-01T00:00:00+02:00")
    expect(bucharestIso(Date.parse("2026-06-30T21:00:00Z"))).toBe("2026-07-01T00:00:00+03:00")
  })
})
