import { describe, expect, it } from "vitest"
import { amountInput, keywordsInput, parseAmount, splitKeywords } from "../../src/web/FormInputs.js"

describe("the watchlist form's fields", () => {
  it("reads amounts typed the Romanian way or plainly", () => {
    expect(parseAmount("1.234.567,89")).toBe(1234567.89)
    expect(parseAmount("1 234 567,89")).toBe(1234567.89)
    expect(parseAmount("1.234.567")).toBe(1234567)
    expect(parseAmount("250.000")).toBe(250000)
    expect(parseAmount("1234.5")).toBe(1234.5)
    expect(parseAmount("0.12")).toBe(0.12)
    expect(parseAmount("99999.99")).toBe(99999.99)
    expect(parseAmount("500000")).toBe(500000)
    expect(parseAmount("  ")).toBeNull()
    expect(parseAmount("abc")).toBeNaN()
  })

  it("shows a stored amount so that saving the form unchanged stores the same amount", () => {
    for (const amount of [1234.5, 0.12, 99999.99, 250000, 1, 1234567.89]) {
      expect(parseAmount(amountInput(amount))).toBe(amount)
    }
    expect(amountInput(1234.5)).toBe("1234,5")
    expect(amountInput(null)).toBe("")
    expect(parseAmount(amountInput(undefined))).toBeNull()
  })

  it("splits keywords on commas, but not on a decimal comma inside one", () => {
    expect(splitKeywords("switch, router")).toEqual(["switch", "router"])
    expect(splitKeywords("1,5 tone, ciment,  ,")).toEqual(["1,5 tone", "ciment"])
    for (const keywords of [["1,5 tone", "router"], ["beton C25/30", "2,5 mm"], []]) {
      expect(splitKeywords(keywordsInput(keywords))).toEqual(keywords)
    }
  })
})
