import { describe, expect, it } from "@effect/vitest"
import { fill, placeholdersOf, type Template } from "../../src/domain/scoring/phrasebooks/Phrasebook.js"
import { PHRASEBOOKS } from "../../src/domain/scoring/Reasons.js"

/** Every entry of a phrasebook by its path ("cpv.inWatched"); fails on anything but text. */
const entriesOf = (book: object, prefix = ""): Map<string, string> => {
  const entries = new Map<string, string>()
  for (const [key, value] of Object.entries(book)) {
    const path = `${prefix}${key}`
    if (typeof value === "string") entries.set(path, value)
    else if (typeof value === "object" && value !== null)
      for (const [inner, text] of entriesOf(value, `${path}.`)) entries.set(inner, text)
    else throw new Error(`${path} is not text but ${typeof value}`)
  }
  return entries
}

describe("phrasebooks", () => {
  it("are data: every entry of every language is text", () => {
    for (const book of Object.values(PHRASEBOOKS)) expect(entriesOf(book).size).toBeGreaterThan(40)
  })

  it("every language has every template, with the same placeholders", () => {
    const reference = entriesOf(PHRASEBOOKS.en)
    for (const [language, book] of Object.entries(PHRASEBOOKS)) {
      const entries = entriesOf(book)
      expect([...entries.keys()].sort(), language).toEqual([...reference.keys()].sort())
      for (const [path, template] of entries) {
        expect(new Set(placeholdersOf(template)), `${language} ${path}`).toEqual(
          new Set(placeholdersOf(reference.get(path)!))
        )
      }
    }
  })

  it("fill writes each value where its placeholder is, and leaves one without a value as written", () => {
    const template: Template<"which" | "level"> = "{which} lies in your watched {level} {digits}"
    expect(placeholdersOf(template)).toEqual(["which", "level", "digits"])
    expect(fill(template, { which: "main CPV 45233120-6", level: "category" })).toBe(
      "main CPV 45233120-6 lies in your watched category {digits}"
    )
    expect(fill("{count} of {count}", { count: 2 })).toBe("2 of 2")
    expect(fill(PHRASEBOOKS.ro.historical.inClass.some, { count: 3, class: "4523" })).toBe("3 în clasa 4523")
  })
})
