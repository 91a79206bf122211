import { describe, expect, it } from "vitest"
import {
  formatRoCalendarDate,
  formatRoDate,
  formatRoDateTime,
  formatRoNumber,
  romanianCount
} from "../../src/domain/RomanianFormat.js"
import { FACTOR_LABELS_RO, VERDICT_LABELS_RO } from "../../src/domain/scoring/RomanianLabels.js"
import { t } from "../../src/web/strings.js"

describe("Romanian numbers and dates (the PDF report's formats)", () => {
  it("numbers: decimal comma, '.' between thousands as ro-RO Intl, at most the decimals asked", () => {
    expect(formatRoNumber(1_250_000)).toBe("1.250.000")
    expect(formatRoNumber(71.333, 1)).toBe("71,3")
    expect(formatRoNumber(7.5, 1)).toBe("7,5")
    expect(formatRoNumber(20, 1)).toBe("20")
    expect(formatRoNumber(0.76, 2)).toBe("0,76")
    expect(formatRoNumber(1250)).toBe(new Intl.NumberFormat("ro-RO").format(1250))
    expect(formatRoNumber(12_500)).toBe("12.500")
    expect(formatRoNumber(2_000_000.4)).toBe("2.000.000")
  })

  it("dates: DD.MM.YYYY and the hour in Bucharest, winter and summer, across midnight", () => {
    expect(formatRoDate(Date.parse("2026-11-24T10:00:00Z"))).toBe("24.11.2026")
    // 22:30 UTC on 30 November is 00:30 on 1 December in Bucharest.
    expect(formatRoDateTime(Date.parse("2026-11-30T22:30:00Z"))).toBe("01.12.2026, 00:30")
    expect(formatRoDateTime(Date.parse("2026-07-01T09:05:00Z"))).toBe("01.07.2026, 12:05")
    // The same as ro-RO Intl in Europe/Bucharest.
    const instant = Date.parse("2026-03-29T05:07:00Z")
    const intl = new Intl.DateTimeFormat("ro-RO", {
      timeZone: "Europe/Bucharest",
      day: "2-digit",
      month: "2-digit",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit"
    }).format(instant)
    expect(formatRoDateTime(instant)).toBe(intl)
    expect(formatRoCalendarDate("2026-11-01")).toBe("01.11.2026")
    expect(formatRoCalendarDate("not a date")).toBe("not a date")
  })

  it("counts agree as Romanian does: 1 singular; 0 and numbers ending in 01-19 the plural; else 'de' + plural", () => {
    const table: ReadonlyArray<readonly [number, string]> = [
      [0, "0 licitații"],
      [1, "1 licitație"],
      [2, "2 licitații"],
      [19, "19 licitații"],
      [20, "20 de licitații"],
      [21, "21 de licitații"],
      [100, "100 de licitații"],
      [101, "101 licitații"],
      [119, "119 licitații"],
      [120, "120 de licitații"],
      [1000, "1.000 de licitații"],
      [1001, "1.001 licitații"]
    ]
    for (const [n, expected] of table) expect(romanianCount(n, "licitație", "licitații")).toBe(expected)
  })

  it("the verdict and factor words are the app's: one source for the screens and the PDF", () => {
    expect(VERDICT_LABELS_RO).toEqual({ GO: "MERITĂ", RESEARCH: "DE ANALIZAT", SKIP: "NU MERITĂ" })
    expect(t.verdict).toBe(VERDICT_LABELS_RO)
    expect(t.detail.factor.valueFit).toBe(FACTOR_LABELS_RO.value_fit)
    expect(t.detail.factor.semantic).toBe(FACTOR_LABELS_RO.semantic)
  })
})
