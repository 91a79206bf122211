import { foldForMatching } from "../tenders/RomanianText.js"

/**
 * Romanian text as scoring sees it: folded (no diacritics, lower case), split on anything that is
 * not a letter or digit, stop words dropped, each word reduced by a light suffix stemmer.
 */

/** Function words and procurement boilerplate that say nothing about what is bought. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "ai",
  "al",
  "ale",
  "and",
  "as",
  "au",
  "ca",
  "care",
  "ce",
  "cu",
  "cum",
  "da",
  "de",
  "din",
  "dintre",
  "este",
  "for",
  "fi",
  "in",
  "intre",
  "iar",
  "la",
  "le",
  "lor",
  "mai",
  "nu",
  "o",
  "of",
  "or",
  "pe",
  "pentru",
  "prin",
  "privind",
  "sa",
  "se",
  "si",
  "sau",
  "sub",
  "the",
  "to",
  "un",
  "una",
  "unei",
  "unui",
  "cat",
  "catre",
  "fara",
  "peste",
  "dupa",
  "acest",
  "aceasta",
  "acestei",
  "acestui",
  "conform",
  "cadrul",
  "etc",
  "nr",
  "str",
  "tip"
])

/** Shortest stem the stemmer leaves; words of at most this length are kept whole. */
export const MIN_STEM_LENGTH = 5

/** Inflection endings (plural, definite article, genitive), longest first. */
const SUFFIXES = [
  "urilor",
  "iilor",
  "iului",
  "ilor",
  "elor",
  "ului",
  "iile",
  "iul",
  "ile",
  "ele",
  "uri",
  "iei",
  "ii",
  "iu",
  "ul",
  "le",
  "ei",
  "ea",
  "ia",
  "a",
  "e",
  "i",
  "u"
]

/** Plural "-oare" of nouns in "-or" (calculator / calculatoare), with its articles. */
const REWRITES: ReadonlyArray<readonly [string, string]> = [
  ["oarelor", "or"],
  ["oarele", "or"],
  ["oare", "or"]
]

/**
 * Strips one inflection ending. Only characters after the first MIN_STEM_LENGTH ones ever change,
 * so a stem keeps the word's index key (see indexKey).
 */
export const stem = (word: string): string => {
  if (word.length <= MIN_STEM_LENGTH) return word
  for (const [suffix, replacement] of REWRITES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= MIN_STEM_LENGTH) {
      return word.slice(0, word.length - suffix.length) + replacement
    }
  }
  for (const suffix of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= MIN_STEM_LENGTH) {
      return word.slice(0, word.length - suffix.length)
    }
  }
  return word
}

/**
 * "pt" written in lower case (or "Pt") is "pentru" (for), as in "consultanță pt întocmire cerere";
 * the capitals "PT" are the technical design (proiect tehnic), a design firm's word ("DTAC+PT").
 * Read before folding, which would make the two one word.
 */
const ABBREVIATED_PENTRU = /(?<![\p{L}\p{N}])[Pp]t(?![\p{L}\p{N}])/gu

/**
 * Folded words, in order, stop words included (the SQL anchor function sees the same words, but for
 * a lower-case "pt", which it keeps: its lookups find a superset).
 */
export const words = (text: string): ReadonlyArray<string> =>
  foldForMatching(text.replace(ABBREVIATED_PENTRU, "pentru"))
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0)

/** Stems of the content words of a text, in order. */
export const stems = (text: string): ReadonlyArray<string> =>
  words(text)
    .filter((word) => !STOP_WORDS.has(word))
    .map(stem)

/**
 * A text's own spelling of each of its stems (first occurrence, lower case, diacritics kept): how a
 * reason shows the words scoring matched by stem.
 */
export const spellingsOf = (text: string): ReadonlyMap<string, string> => {
  const spellings = new Map<string, string>()
  // Split before lower-casing: words() tells "PT" from "pt" by case.
  for (const raw of text.split(/[^\p{L}\p{N}]+/u)) {
    const folded = words(raw)
    if (folded.length !== 1 || STOP_WORDS.has(folded[0]!)) continue
    const term = stem(folded[0]!)
    if (!spellings.has(term)) spellings.set(term, raw.toLowerCase())
  }
  return spellings
}

/**
 * The candidate-index key of a word: its first MIN_STEM_LENGTH characters. Two words with the same
 * stem always share it, so an index on keys finds a superset of the stem matches.
 */
export const indexKey = (word: string): string => word.slice(0, MIN_STEM_LENGTH)

/**
 * The anchor of a keyword: index key of its longest content word (ties: alphabetically first).
 * A tender can only contain the keyword if it contains the anchor; migrations/0005 computes the
 * same value in SQL for the watchlists' GIN index.
 */
export const keywordAnchor = (keyword: string): string | null => {
  let best: string | null = null
  for (const word of words(keyword)) {
    if (STOP_WORDS.has(word)) continue
    if (best === null || word.length > best.length || (word.length === best.length && word < best)) best = word
  }
  return best === null ? null : indexKey(best)
}

/** Numbers (lot numbers, years, contract numbers) say nothing about a trade: left out of the title routes, as in the text rule. */
export const isNumber = (term: string) => /^[0-9]+$/.test(term)

/**
 * Where a title stops naming the work and starts naming the project it is for: an opening quote, or
 * the project named as such, "proiectul", "obiectivul (de investiții)", "investiția" (articulated:
 * "proiect tehnic" and "management de proiect" are work). "Servicii de publicitate … a proiectului
 * „Construire grădiniță …”" is publicity, whatever the project builds.
 */
const PROJECT_NAME_START =
  /["„“”«]|(?<![\p{L}\p{N}])(?:proiect(?:ul|ului)|obiectiv(?:ul|ului)|investi[tțţ]i(?:a|ei|ile|ilor))(?![\p{L}\p{N}])/iu

/**
 * The stems of a title that name the work, and those found only in the name of the project it is for
 * (after PROJECT_NAME_START). A title that names no project, or whose work part has fewer than two
 * content words ("Achiziție în cadrul proiectului …"), is all work.
 */
export const workAndProjectStems = (
  title: string,
  /** The title's stems, when the caller has them already. */
  titleStems: ReadonlyArray<string> = stems(title)
): { readonly work: ReadonlySet<string>; readonly project: ReadonlySet<string> } => {
  const all = new Set(titleStems)
  const at = title.search(PROJECT_NAME_START)
  const work = at < 0 ? all : new Set(stems(title.slice(0, at)))
  if (work.size < 2) return { work: all, project: new Set() }
  return { work, project: new Set([...all].filter((term) => !work.has(term))) }
}
