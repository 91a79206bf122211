import type { ReasonLanguage } from "./scoring/Reasons.js"

/**
 * The language of the key API's reason sentences from an `Accept-Language` header (RFC 9110
 * 12.5.4): English unless Romanian is preferred. Each range weighs its `q` (default 1, 0 = "not
 * this"); a language takes the weight of its most specific range (`ro-RO` and `ro` both name
 * Romanian, over `*`), and Romanian wins only with a weight above English's. So `ro`, `ro-RO`,
 * `ro, en;q=0.8` and `fr, ro;q=0.5` give Romanian; `en, ro`, `ro;q=0.5, *`, `de` and a
 * malformed header give English (the default, spec 2.3's language).
 */

interface Range {
  /** Primary subtag, lower case, or `*`. */
  readonly language: string
  readonly q: number
}

const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/

/** The ranges of a header; a malformed entry (bad tag or q) is skipped, as if not sent. */
const ranges = (header: string): ReadonlyArray<Range> =>
  header.split(",").flatMap((entry) => {
    const [tag = "", ...params] = entry.split(";").map((part) => part.trim())
    if (!/^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/.test(tag)) return []
    let q = 1
    for (const param of params) {
      const [name = "", value = ""] = param.split("=").map((part) => part.trim())
      if (name.toLowerCase() !== "q") continue
      if (!QVALUE.test(value)) return []
      q = Number(value)
    }
    return [{ language: tag.split("-")[0]!.toLowerCase(), q }]
  })

/** A language's weight: its own ranges' best q, else the wildcard's, else 0 (not acceptable). */
const weightOf = (all: ReadonlyArray<Range>, language: string): number => {
  const own = all.filter((range) => range.language === language)
  const candidates = own.length > 0 ? own : all.filter((range) => range.language === "*")
  return candidates.reduce((best, range) => Math.max(best, range.q), 0)
}

export const reasonLanguageFor = (header: string | undefined): ReasonLanguage => {
  if (header === undefined) return "en"
  const all = ranges(header)
  const ro = weightOf(all, "ro")
  return ro > 0 && ro > weightOf(all, "en") ? "ro" : "en"
}
