import { describe, expect, it } from "vitest"
import { formatDay } from "../../src/web/format.js"
import { isDegraded, type SourceStatusData, sourceRows } from "../../src/web/sources.js"

/** The settings' "Surse de date" rows, from the API's sources to the Romanian texts the screen shows. */

const status = (overrides: Partial<SourceStatusData> & Pick<SourceStatusData, "name">): SourceStatusData => ({
  enabled: true,
  watermark: "2026-11-23",
  lastSuccessAt: null,
  lastErrorAt: null,
  lastError: null,
  ingested: 0,
  skipped: 0,
  retryingNotices: 0,
  lostNotices: 0,
  ...overrides
})

describe("the notice sources in the settings", () => {
  it("names both sources, formats the watermark, times and counts in Romanian", () => {
    const [ted, seap] = sourceRows([
      status({
        name: "ted",
        lastSuccessAt: "2026-11-23T08:15:00.000Z",
        lastErrorAt: "2026-11-22T21:00:00.000Z",
        lastError: "TED answered 503",
        ingested: 12345,
        skipped: 7
      }),
      status({ name: "seap", enabled: false, watermark: "2026-01-05" })
    ])
    expect(ted).toEqual({
      name: "ted",
      title: "TED — Jurnalul Oficial al UE",
      state: "active",
      stateLabel: "Activă",
      offHint: undefined,
      watermark: "23.11.2026",
      lastSuccess: "23.11.2026, 10:15",
      lastErrorAt: "22.11.2026, 23:00",
      // An error older than the last success is history, not why the source is down.
      error: undefined,
      ingested: "12.345",
      skipped: "7",
      // None lost: no line.
      lost: undefined
    })
    expect(seap).toMatchObject({
      title: "SEAP / SICAP — e-licitatie.ro",
      state: "off",
      stateLabel: "Oprită",
      watermark: "05.01.2026",
      lastSuccess: "niciodată",
      lastErrorAt: "niciodată",
      error: undefined,
      ingested: "0",
      skipped: "0"
    })
    expect(seap?.offHint).toMatch(/operator o pornește pe worker/)
  })

  it("a polled source whose last poll failed is unavailable, with its error", () => {
    const failing = status({
      name: "seap",
      lastSuccessAt: "2026-11-23T08:00:00.000Z",
      lastErrorAt: "2026-11-23T09:30:00.000Z",
      lastError: "SEAP is in maintenance (HTML page)"
    })
    const [row] = sourceRows([failing])
    expect(row).toMatchObject({
      state: "degraded",
      stateLabel: "Indisponibilă",
      error: "SEAP is in maintenance (HTML page)",
      lastErrorAt: "23.11.2026, 11:30"
    })
    // Failing before it ever succeeded is down too; a source that is not polled never is.
    expect(isDegraded(status({ name: "ted", lastErrorAt: "2026-11-23T09:30:00.000Z", lastError: "x" }))).toBe(true)
    expect(isDegraded({ ...failing, enabled: false })).toBe(false)
    expect(sourceRows([{ ...failing, enabled: false }])[0]).toMatchObject({ state: "off", error: undefined })
    expect(isDegraded({ ...failing, lastSuccessAt: "2026-11-23T10:00:00.000Z" })).toBe(false)
  })

  it("names the notices lost (their retry job dead-lettered), counted in Romanian; retrying ones are not shown", () => {
    const lost = (lostNotices: number) =>
      sourceRows([status({ name: "ted", retryingNotices: 4, lostNotices })])[0]?.lost
    expect(lost(0)).toBeUndefined()
    expect(lost(1)).toBe("1 anunț pierdut")
    expect(lost(3)).toBe("3 anunțuri pierdute")
    expect(lost(20)).toBe("20 de anunțuri pierdute")
    expect(lost(101)).toBe("101 anunțuri pierdute")
    expect(lost(1200)).toBe("1.200 de anunțuri pierdute")
  })

  it("formats a calendar day as DD.MM.YYYY and leaves anything else as it is", () => {
    expect(formatDay("2026-07-01")).toBe("01.07.2026")
    expect(formatDay("soon")).toBe("soon")
  })
})
