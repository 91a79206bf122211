import { type CodeSet, type ContractKind, codeSetOf, contractKindOf } from "./CpvMatch.js"
import { type ClassFeedback, type FeedbackMark, feedbackByClass } from "./Feedback.js"
import { type CompanyCounties, companyCountiesOf } from "./Place.js"
import { termBitList, termBitsOf } from "./TermBits.js"
import { indexKey, isNumber, stems, words, workAndProjectStems } from "./Text.js"
import type { ValueRange } from "./ValueFit.js"
import { type WonTitleIndex, wonTitleIndexOf } from "./WonTitleIndex.js"

/** A tender as the scorer needs it (values in RON; null when unknown). */
export interface TenderInput {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly mainCpv: string
  readonly additionalCpvs: ReadonlyArray<string>
  readonly authorityId: string
  readonly valueRon: number | null
  /**
   * The Romanian label of the main CPV code (CPV 2008 table): part of the tender's text for the
   * semantic factor and text matching, so a notice with a generic title ("Achiziție în cadrul
   * proiectului …") still says what it buys. Keywords are matched in the title and description only.
   */
  readonly cpvLabel?: string
  /** The contracting authority's county (Counties.ts spelling), null or absent when unknown. */
  readonly county?: string | null
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
  /** Counties the watchlist is limited to (its tenders' authority county); empty or absent: anywhere. */
  readonly counties?: ReadonlyArray<string>
}

export interface WatchlistInput extends WatchlistCriteria {
  readonly id: string
}

/** A past award the company won (an award notice naming its fiscal code). */
export interface AwardInput {
  readonly authorityId: string
  readonly mainCpv: string
  readonly valueRon: number | null
  /** The award notice's title: its words join the company's text profile. */
  readonly title?: string
  /** The awarding authority's county: where the company has worked (Place.inferCounties). */
  readonly county?: string | null
}

export interface CompanyInput {
  readonly id: string
  readonly description: string
  /** Digits of the company's fiscal code, when known (its awards are found by it). */
  readonly fiscalCode?: string | null
  /** Active, not deleted watchlists. */
  readonly watchlists: ReadonlyArray<WatchlistInput>
  readonly history: ReadonlyArray<AwardInput>
  /** The counties the company says it works in; null, absent or empty: inferred from its awards. */
  readonly counties?: ReadonlyArray<string> | null
  /** Tenders a user marked relevant or not relevant for the company (Feedback.ts); absent: none. */
  readonly feedback?: ReadonlyArray<FeedbackMark>
}

/** A tender's text, tokenised once and reused for every company. */
export interface PreparedTender {
  readonly tender: TenderInput
  readonly titleStems: ReadonlyArray<string>
  readonly descriptionStems: ReadonlyArray<string>
  /** Stem → occurrences in title + description + CPV label. */
  readonly termFrequencies: ReadonlyMap<string, number>
  readonly length: number
  /** Index keys of every word (see Text.indexKey): what the keyword prefilter looks up. */
  readonly indexKeys: ReadonlySet<string>
  /** The words of `termFrequencies` as bits (TermBits.ts): "surely absent" for most words it lacks. */
  readonly termBits: Uint32Array
  /** Each word's bit, in the order of `termFrequencies`' keys (for walks of the tender's words). */
  readonly termBitList: Uint16Array
  /** The main code, then the additional ones, prepared for CpvMatch.bestCpvMatchOf. */
  readonly cpv: CodeSet
  /**
   * The distinct words of the title that name the work, not the project it is for (Text.workAndProjectStems),
   * numbers left out: what a won title's work is compared with (WonTitles.ts).
   */
  readonly titleWork: ReadonlyArray<string>
}

export const prepareTender = (tender: TenderInput): PreparedTender => {
  const titleStems = stems(tender.title)
  const descriptionStems = stems(tender.description)
  const labelStems = stems(tender.cpvLabel ?? "")
  const termFrequencies = new Map<string, number>()
  for (const term of [...titleStems, ...descriptionStems, ...labelStems]) {
    termFrequencies.set(term, (termFrequencies.get(term) ?? 0) + 1)
  }
  const indexKeys = new Set<string>()
  for (const word of words(`${tender.title} ${tender.description}`)) indexKeys.add(indexKey(word))
  return {
    tender,
    titleStems,
    descriptionStems,
    termFrequencies,
    length: titleStems.length + descriptionStems.length + labelStems.length,
    indexKeys,
    termBits: termBitsOf(termFrequencies.keys()),
    termBitList: termBitList(termFrequencies.keys()),
    cpv: codeSetOf([tender.mainCpv, ...tender.additionalCpvs]),
    titleWork: [...workAndProjectStems(tender.title, titleStems).work].filter((term) => !isNumber(term))
  }
}

/** A keyword as a phrase of stems; matched as a contiguous run of content words. */
export interface KeywordPhrase {
  readonly keyword: string
  readonly stems: ReadonlyArray<string>
  /** Each stem's bit (TermBits.termBit): a tender lacking one of them is told by its bits. */
  readonly stemBits: Uint16Array
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
  /** Distinct stems of description + keywords + won award titles: the semantic query. */
  readonly queryTerms: ReadonlyArray<string>
  /**
   * Weight of each query term: 1 for a word of the description or of a keyword; for a word found
   * only in won award titles, the share of those titles that contain it (what the company
   * repeatedly does weighs more than a one-off).
   */
  readonly queryWeights: ReadonlyMap<string, number>
  /** Stems of the description and of won award titles, numbers left out: what the text rule compares. */
  readonly textTerms: ReadonlyArray<string>
  /**
   * Stems of the description and the keywords, numbers left out, each once: what the company says it
   * does, which the stated-text route matches against a tender (StatedText.ts).
   */
  readonly statedTerms: ReadonlyArray<string>
  /** Where each query term comes from, for the reasons. */
  readonly descriptionTerms: ReadonlySet<string>
  readonly keywordTerms: ReadonlySet<string>
  readonly awardTerms: ReadonlySet<string>
  /**
   * Watchlist codes, then the main codes of past awards not watched (8 digits, each once, in the
   * order first named): the CPV factor gives a tie to the code listed first, so to a watched one.
   */
  readonly profileCodes: ReadonlyArray<string>
  /** The contract kinds (works, supplies, services) of the profile codes (CpvMatch.contractKindOf). */
  readonly profileKinds: ReadonlySet<ContractKind>
  /** profileCodes prepared for CpvMatch.bestCpvMatchOf. */
  readonly profileCpv: CodeSet
  /** Where each profile code comes from, for the reasons. */
  readonly profileCodeOrigins: ReadonlyMap<string, ProfileCodeOrigin>
  /** The value bounds of each watchlist that sets one (ValueFit.bestValueFit). */
  readonly valueRanges: ReadonlyArray<ValueRange>
  readonly authorityIds: ReadonlySet<string>
  readonly hasText: boolean
  /** Where the company works (Place.companyCountiesOf): what the historical factor's place part measures from. */
  readonly place: CompanyCounties
  /** The user's marks by CPV class: they shift the cpv factor of the tenders of that class. */
  readonly feedback: ReadonlyMap<string, ClassFeedback>
  /** Each word of the won award titles → the awards (history indexes) whose title has it (WonTitles.ts). */
  readonly wonTitleIndex: WonTitleIndex
}

/** A profile code as the company wrote it, and whether a watchlist names it (else only a won award does). */
export interface ProfileCodeOrigin {
  readonly written: string
  readonly watched: boolean
}

/** Profile codes by their 8 digits: watched codes first, then won ones; the last spelling of each. */
const profileCodeOriginsOf = (company: CompanyInput): Map<string, ProfileCodeOrigin> => {
  const origins = new Map<string, ProfileCodeOrigin>()
  for (const watchlist of company.watchlists)
    for (const code of watchlist.cpvCodes) origins.set(code.slice(0, 8), { written: code, watched: true })
  for (const award of company.history) {
    const digits = award.mainCpv.slice(0, 8)
    if (origins.get(digits)?.watched !== true) origins.set(digits, { written: award.mainCpv, watched: false })
  }
  return origins
}

const phraseOf = (keyword: string): KeywordPhrase => {
  const phraseStems = stems(keyword)
  return { keyword, stems: phraseStems, stemBits: termBitList(phraseStems) }
}

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
  const descriptionTerms = new Set(stems(company.description))
  const keywordTerms = new Set(phrases.flatMap((phrase) => phrase.stems))
  const awardTitleCounts = new Map<string, number>()
  let awardTitles = 0
  for (const award of company.history) {
    if (award.title === undefined || award.title.trim().length === 0) continue
    awardTitles++
    for (const term of new Set(stems(award.title))) awardTitleCounts.set(term, (awardTitleCounts.get(term) ?? 0) + 1)
  }
  const queryWeights = new Map<string, number>()
  for (const [term, count] of awardTitleCounts) queryWeights.set(term, count / awardTitles)
  for (const term of descriptionTerms) queryWeights.set(term, 1)
  for (const term of keywordTerms) queryWeights.set(term, 1)
  const queryTerms = new Set(queryWeights.keys())
  // Numbers (lot numbers, years, amounts) say nothing about a trade: they never draw candidates.
  const textTerms = new Set([...descriptionTerms, ...awardTitleCounts.keys()].filter((term) => !isNumber(term)))
  const statedTerms = [...new Set([...descriptionTerms, ...keywordTerms])].filter((term) => !isNumber(term))
  const profileCodeOrigins = profileCodeOriginsOf(company)
  const profileCodes = [...profileCodeOrigins.keys()]
  return {
    company,
    watchlists,
    phrases,
    queryTerms: [...queryTerms].sort(),
    queryWeights,
    textTerms: [...textTerms].sort(),
    statedTerms: statedTerms.sort(),
    descriptionTerms,
    keywordTerms,
    awardTerms: new Set(awardTitleCounts.keys()),
    profileCodes,
    profileCpv: codeSetOf(profileCodes),
    profileKinds: new Set(profileCodes.map(contractKindOf)),
    profileCodeOrigins,
    valueRanges: company.watchlists.flatMap((w) =>
      w.minValue === null && w.maxValue === null ? [] : [{ min: w.minValue, max: w.maxValue }]
    ),
    authorityIds: new Set(company.watchlists.flatMap((w) => (w.authorityId === null ? [] : [w.authorityId]))),
    hasText: queryTerms.size > 0,
    place: companyCountiesOf(company),
    feedback: feedbackByClass(company.feedback ?? []),
    wonTitleIndex: wonTitleIndexOf(company.history)
  }
}
