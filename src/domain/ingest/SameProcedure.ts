import { foldForMatching } from "../tenders/RomanianText.js"

/**
 * Whether a notice from one source and a tender from the other are one procedure, when no TED
 * number joins them (a SEAP contract notice does not carry it): the same buyer (fiscal code), the
 * same CPV class, published within a week of each other, deadlines within two days and values within
 * 5 % when both have them, and titles with nearly the same words. The threshold is measured (README,
 * "Live ingestion"): on the 358 real SEAP titles of the PNRR sample it joins every title with its
 * other-source spelling (upper case, no diacritics, a lot suffix) and 2 of the 236 pairs of different
 * procedures of one buyer and CPV class published within a week (0 at 1.0, 6 at 0.8 without values).
 */
export interface ProcedureFacts {
  readonly authorityFiscalCode: string | null
  readonly mainCpv: string
  readonly publishDate: Date
  readonly deadline: Date | null
  readonly title: string
  readonly valueRon: number | null
}

/** Title words shared, as a share of the words of both (Jaccard). */
export const TITLE_SIMILARITY_THRESHOLD = 0.9

const DAY = 86_400_000

/** Words that say nothing of what is bought. */
const FILLER = new Set([
  "pentru",
  "privind",
  "achizitie",
  "achizitia",
  "achizitionare",
  "furnizare",
  "servicii",
  "lucrari",
  "lot",
  "loturi",
  "contract",
  "cadru",
  "acord",
  "din",
  "cu",
  "si",
  "de",
  "la",
  "in",
  "a",
  "al",
  "ale",
  "the",
  "of",
  "and",
  "for"
])

export const titleWords = (title: string): ReadonlySet<string> =>
  new Set(
    foldForMatching(title)
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length >= 2 && !FILLER.has(word))
  )

/** Shared words over the words of both titles (0 when neither has any). */
export const titleSimilarity = (a: string, b: string): number => {
  const left = titleWords(a)
  const right = titleWords(b)
  let shared = 0
  for (const word of left) if (right.has(word)) shared++
  const all = left.size + right.size - shared
  return all === 0 ? 0 : shared / all
}

const within = (a: number | null, b: number | null, tolerance: number) =>
  a === null || b === null || Math.abs(a - b) <= tolerance

export const sameProcedure = (a: ProcedureFacts, b: ProcedureFacts): boolean =>
  a.authorityFiscalCode !== null &&
  a.authorityFiscalCode === b.authorityFiscalCode &&
  a.mainCpv.slice(0, 4) === b.mainCpv.slice(0, 4) &&
  Math.abs(a.publishDate.getTime() - b.publishDate.getTime()) <= 7 * DAY &&
  within(a.deadline?.getTime() ?? null, b.deadline?.getTime() ?? null, 2 * DAY) &&
  within(a.valueRon, b.valueRon, 0.05 * Math.max(a.valueRon ?? 0, b.valueRon ?? 0)) &&
  titleSimilarity(a.title, b.title) >= TITLE_SIMILARITY_THRESHOLD
