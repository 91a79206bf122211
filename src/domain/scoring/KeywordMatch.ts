import type { KeywordPhrase, PreparedTender } from "./Inputs.js"
import { mayHaveTermBit } from "./TermBits.js"

/** True when the phrase's stems occur as a contiguous run in the text's stems. */
export const containsPhrase = (text: ReadonlyArray<string>, phrase: ReadonlyArray<string>): boolean => {
  if (phrase.length === 0 || phrase.length > text.length) return false
  outer: for (let start = 0; start + phrase.length <= text.length; start++) {
    for (let offset = 0; offset < phrase.length; offset++) {
      if (text[start + offset] !== phrase[offset]) continue outer
    }
    return true
  }
  return false
}

/** Weight of a keyword found in the title; one found only in the description counts less. */
export const TITLE_HIT = 1
export const DESCRIPTION_HIT = 0.6
/** Saturation rate: one title hit gives 0.55, two 0.80, three 0.91. */
export const KEYWORD_RATE = 0.8

/**
 * A phrase can only occur where all its stems do: a bit read per stem (TermBits.ts), then a map
 * lookup, rules most tenders out before the text is scanned (the candidate rule and the scorer ask
 * this for every pair).
 */
const mayContain = (phrase: KeywordPhrase, tender: PreparedTender): boolean => {
  const { stems, stemBits } = phrase
  for (let i = 0; i < stems.length; i++) if (!mayHaveTermBit(tender.termBits, stemBits[i]!)) return false
  for (const stem of stems) if (!tender.termFrequencies.has(stem)) return false
  return true
}

/** The keyword factor's evidence: the keywords the tender contains, by where it names them first. */
export interface KeywordsFound {
  readonly inTitle: Array<string>
  /** Found in the description and not in the title. */
  readonly inDescription: Array<string>
}

/** Weighted number of the phrases the tender contains; records each one in `found` when given. */
export const keywordHits = (
  phrases: ReadonlyArray<KeywordPhrase>,
  tender: PreparedTender,
  found?: KeywordsFound
): number => {
  let hits = 0
  for (const phrase of phrases) {
    if (!mayContain(phrase, tender)) continue
    if (containsPhrase(tender.titleStems, phrase.stems)) {
      hits += TITLE_HIT
      found?.inTitle.push(phrase.keyword)
    } else if (containsPhrase(tender.descriptionStems, phrase.stems)) {
      hits += DESCRIPTION_HIT
      found?.inDescription.push(phrase.keyword)
    }
  }
  return hits
}

/** Keyword factor, 0-1: grows with every keyword found, never with how many are watched. */
export const keywordScore = (
  phrases: ReadonlyArray<KeywordPhrase>,
  tender: PreparedTender,
  found?: KeywordsFound
): number => 1 - Math.exp(-KEYWORD_RATE * keywordHits(phrases, tender, found))

export const matchesAnyPhrase = (phrases: ReadonlyArray<KeywordPhrase>, tender: PreparedTender): boolean =>
  phrases.some(
    (phrase) =>
      mayContain(phrase, tender) &&
      (containsPhrase(tender.titleStems, phrase.stems) || containsPhrase(tender.descriptionStems, phrase.stems))
  )
