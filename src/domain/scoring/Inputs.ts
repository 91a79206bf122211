import { indexKey, stems, words } from "./Text.js"

/** A tender as the scorer needs it (values in RON; null when unknown). */
export interface TenderInput {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly mainCpv: string
  readonly additionalCpvs: ReadonlyArray<string>
  readonly authorityId: string
  readonly valueRon: number | null
}

/** What a watchlist asks for: the criteria scoring and alerts read, stored and edited as such. */
export interface WatchlistCriteria {
  readonly cpvCodes: ReadonlyArray<string>
  readonly keywords: ReadonlyArray<string>
  readonly minValue: number | null
  readonly maxValue: number | null
  readonly authorityId: string | null
  /** Alert threshold, 0-100. */
  readonly minScore: number
}

export interface WatchlistInput extends WatchlistCriteria {
  readonly id: string
}

/** A past award the company won (an award notice naming its fiscal code). */
export interface AwardInput {
  readonly authorityId: string
  readonly mainCpv: string
  readonly valueRon: number | null
}

export interface CompanyInput {
  readonly id: string
  readonly description: string
  /** Active, not deleted watchlists. */
  readonly watchlists: ReadonlyArray<WatchlistInput>
  readonly history: ReadonlyArray<AwardInput>
}

/** A tender's text, tokenised once and reused for every company. */
export interface PreparedTender {
  readonly tender: TenderInput
  readonly titleStems: ReadonlyArray<string>
  readonly descriptionStems: ReadonlyArray<string>
  /** Stem → occurrences in title + description. */
  readonly termFrequencies: ReadonlyMap<string, number>
  readonly length: number
  /** Index keys of every word (see Text.indexKey): what the keyword prefilter looks up. */
  readonly indexKeys: ReadonlySet<string>
}

export const prepareTender = (tender: TenderInput): PreparedTender => {
  const titleStems = stems(tender.title)
  const descriptionStems = stems(tender.description)
  const termFrequencies = new Map<string, number>()
  for (const term of titleStems) termFrequencies.set(term, (termFrequencies.get(term) ?? 0) + 1)
  for (const term of descriptionStems) termFrequencies.set(term, (termFrequencies.get(term) ?? 0) + 1)
  const indexKeys = new Set<string>()
  for (const word of words(`${tender.title} ${tender.description}`)) indexKeys.add(indexKey(word))
  return {
    tender,
    titleStems,
    descriptionStems,
    termFrequencies,
    length: titleStems.length + descriptionStems.length,
    indexKeys
  }
}

/** A keyword as a phrase of stems; matched as a contiguous run of content words. */
export interface KeywordPhrase {
  readonly keyword: string
  readonly stems: ReadonlyArray<string>
}

export interface PreparedWatchlist {
  readonly watchlist: WatchlistInput
  readonly phrases: ReadonlyArray<KeywordPhrase>
}

/** A company's profile, prepared once per scoring run. */
export interface PreparedCompany {
  readonly company: CompanyInput
  readonly watchlists: ReadonlyArray<PreparedWatchlist>
  /** Distinct keyword phrases over all watchlists. */
  readonly phrases: ReadonlyArray<KeywordPhrase>
  /** Distinct stems of description + keywords: the semantic query. */
  readonly queryTerms: ReadonlyArray<string>
  /** Watchlist codes and the main codes of past awards. */
  readonly profileCodes: ReadonlyArray<string>
  /** Union of the watchlists' value bounds (RON); null when no watchlist sets that side. */
  readonly minValue: number | null
  readonly maxValue: number | null
  readonly authorityIds: ReadonlySet<string>
  readonly hasText: boolean
}

const phraseOf = (keyword: string): KeywordPhrase => ({ keyword, stems: stems(keyword) })

export const prepareCompany = (company: CompanyInput): PreparedCompany => {
  const watchlists = company.watchlists.map((watchlist) => ({
    watchlist,
    phrases: watchlist.keywords.map(phraseOf).filter((phrase) => phrase.stems.length > 0)
  }))
  const phrasesByText = new Map<string, KeywordPhrase>()
  for (const { phrases } of watchlists) {
    for (const phrase of phrases) phrasesByText.set(phrase.stems.join(" "), phrase)
  }
  const phrases = [...phrasesByText.values()]
  const queryTerms = new Set(stems(company.description))
  for (const phrase of phrases) for (const term of phrase.stems) queryTerms.add(term)
  const profileCodes = new Set<string>()
  for (const { watchlist } of watchlists) for (const code of watchlist.cpvCodes) profileCodes.add(code.slice(0, 8))
  for (const award of company.history) profileCodes.add(award.mainCpv.slice(0, 8))
  const mins = company.watchlists.flatMap((w) => (w.minValue === null ? [] : [w.minValue]))
  const maxs = company.watchlists.flatMap((w) => (w.maxValue === null ? [] : [w.maxValue]))
  return {
    company,
    watchlists,
    phrases,
    queryTerms: [...queryTerms].sort(),
    profileCodes: [...profileCodes].sort(),
    minValue: mins.length > 0 ? Math.min(...mins) : null,
    maxValue: maxs.length > 0 ? Math.max(...maxs) : null,
    authorityIds: new Set(company.watchlists.flatMap((w) => (w.authorityId === null ? [] : [w.authorityId]))),
    hasText: queryTerms.size > 0
  }
}
