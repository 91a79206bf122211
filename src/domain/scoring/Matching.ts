import { AFFINITY_CANDIDATE_STRENGTH, affinityReachOf, type CpvAffinity, NO_AFFINITY } from "./CpvAffinity.js"
import { cpvMatchReaches, digitsOf, withinCode } from "./CpvMatch.js"
import type { PreparedCompany, PreparedTender, PreparedWatchlist } from "./Inputs.js"
import { matchesAnyPhrase } from "./KeywordMatch.js"
import type { TenderScore } from "./Model.js"
import { type CorpusStats, emptyCorpusStats, isSpecific, specificity } from "./Semantic.js"
import { mayHaveTermBit, termBitList } from "./TermBits.js"

/**
 * The candidate filter: which (company, tender) pairs get a stored score. A pair is a candidate
 * when the tender's CPV lies inside a watched or previously won code or shares at least its class
 * (4 digits) with one, when a watchlist keyword occurs in it, when a watchlist targets its
 * authority, when the company has won an award from the same authority, when a class of its codes
 * leads to the tender's class by a learned affinity of at least AFFINITY_CANDIDATE_STRENGTH (the
 * same suppliers win both, CpvAffinity.ts), or when the tender's title and description share
 * specific words with the company's description or won award titles (text evidence, see
 * isTextCandidate). Pairs outside it are not scored: their keyword factor
 * is 0, their CPV factor by code at most 0.55 (same group; 0.675 by an additional code of the same
 * class) and their text similarity weak. The SQL
 * prefilter returns a superset of this; this is the rule.
 */
export const CANDIDATE_MIN_CPV = 0.75

/**
 * Text rule: let the evidence be the summed specificity (0-1 each, Semantic.specificity) of the
 * words (not among the most common, Semantic.isSpecific) that the tender shares with the company's
 * description and won award titles. The tender is a candidate when the evidence reaches
 * TEXT_CANDIDATE_FLOOR, or covers TEXT_CANDIDATE_COVERAGE of the same sum over all of the company's
 * words that the corpus knows (so a two-line description matches a tender about its trade, and a long one needs several
 * rare shared words). In a 20,000-tender corpus the floor is two words that ~30 tenders contain,
 * or three that ~300 do.
 */
export const TEXT_CANDIDATE_FLOOR = 1.2
export const TEXT_CANDIDATE_COVERAGE = 0.25

/**
 * When its words are nearly all we know of a company (no watchlist that draws candidates, at most one
 * award won), text is its main source of candidates, and the rule asks what a search does: one
 * shared word specific enough, i.e. one that at most about √(N/2) of N tenders contain (specificity
 * 0.5: ~13 of 358, ~100 of 20,000). Its list is then ranked by the semantic factor. Companies with a
 * watchlist or a longer history keep the stricter floor: there the text only adds to what the other
 * signals already find.
 */
export const TEXT_ONLY_CANDIDATE_FLOOR = 0.5

/**
 * One award won is one contract's title, about as much text as a description (tsm-1.10.0): the codes
 * of that one contract are a narrow source of candidates, and the stricter floor left such a company
 * without the next contract of its trade under another code ("consultanță depunere proiecte PNRR" won
 * under 72224000, the next one under 79411000). From two awards on, history draws enough.
 */
export const THIN_HISTORY_AWARDS = 1

/** A watchlist that brings candidates of its own: CPV codes, keywords or an authority (not only filters). */
const drawsCandidates = (watchlist: PreparedWatchlist): boolean =>
  watchlist.watchlist.cpvCodes.length > 0 || watchlist.phrases.length > 0 || watchlist.watchlist.authorityId !== null

/**
 * Whether the company's words are nearly all we know of it: at most THIN_HISTORY_AWARDS awards won,
 * and no watchlist that brings candidates (tsm-1.9.0: a watchlist set up only for its alert
 * threshold, value range or counties used to count, and raised the text floor of a company it gave
 * no other candidates).
 */
export const knownMostlyByText = (company: PreparedCompany): boolean =>
  company.company.history.length <= THIN_HISTORY_AWARDS && !company.watchlists.some(drawsCandidates)

export interface TextEvidence {
  /** Specificity of the shared words. */
  readonly shared: number
  /** Specificity of all the company's words found in the corpus. */
  readonly total: number
}

/** The company's countable words with their specificity, and their sum: what textEvidence compares. */
interface TextProfile {
  readonly terms: ReadonlyArray<string>
  /** Each term's bit (TermBits.termBit). */
  readonly bits: Uint16Array
  readonly weights: ReadonlyArray<number>
  readonly total: number
}

// Computed once per company and corpus snapshot: the candidate rule asks for it for every pair.
const textProfiles = new WeakMap<CorpusStats, WeakMap<PreparedCompany, TextProfile>>()

// The last profile asked for: the rule walks its pairs company by company, so most calls are for
// the company of the call before, found without the two WeakMap lookups.
let lastProfile: { company: PreparedCompany; stats: CorpusStats; profile: TextProfile } | undefined

const textProfileOf = (company: PreparedCompany, stats: CorpusStats): TextProfile => {
  if (lastProfile !== undefined && lastProfile.company === company && lastProfile.stats === stats) {
    return lastProfile.profile
  }
  const profile = cachedTextProfileOf(company, stats)
  lastProfile = { company, stats, profile }
  return profile
}

const cachedTextProfileOf = (company: PreparedCompany, stats: CorpusStats): TextProfile => {
  let byCompany = textProfiles.get(stats)
  if (byCompany === undefined) {
    byCompany = new WeakMap()
    textProfiles.set(stats, byCompany)
  }
  const cached = byCompany.get(company)
  if (cached !== undefined) return cached
  const terms: Array<string> = []
  const weights: Array<number> = []
  let total = 0
  for (const term of company.textTerms) {
    // A word no tender contains ("asigurăm", a misspelling) can match nothing: not counted.
    if (!stats.documentFrequencies.has(term) || !isSpecific(stats, term)) continue
    const weight = specificity(stats, term)
    terms.push(term)
    weights.push(weight)
    total += weight
  }
  const profile = { terms, bits: termBitList(terms), weights, total }
  byCompany.set(company, profile)
  return profile
}

/** Specificity of the profile's words the tender contains (most words absent are told by their bit). */
const sharedSpecificity = ({ terms, bits, weights }: TextProfile, tender: PreparedTender): number => {
  const tenderBits = tender.termBits
  let shared = 0
  for (let i = 0; i < terms.length; i++) {
    if (mayHaveTermBit(tenderBits, bits[i]!) && tender.termFrequencies.has(terms[i]!)) shared += weights[i]!
  }
  return shared
}

/**
 * What the text rule compares, as one value (its tests read it). isTextCandidate works it
 * out without the object: the rule asks it for millions of pairs a run.
 */
export const textEvidence = (company: PreparedCompany, tender: PreparedTender, stats: CorpusStats): TextEvidence => {
  const profile = textProfileOf(company, stats)
  return { shared: sharedSpecificity(profile, tender), total: profile.total }
}

export const isTextCandidate = (company: PreparedCompany, tender: PreparedTender, stats: CorpusStats): boolean => {
  const profile = textProfileOf(company, stats)
  const shared = sharedSpecificity(profile, tender)
  const total = profile.total
  const floor = knownMostlyByText(company) ? TEXT_ONLY_CANDIDATE_FLOOR : TEXT_CANDIDATE_FLOOR
  return shared > 0 && (shared >= floor || shared >= TEXT_CANDIDATE_COVERAGE * total)
}

/** Whether a tender code's class is one the company's classes lead to by a strong enough affinity. */
export const isAffinityCandidate = (
  company: PreparedCompany,
  tender: PreparedTender,
  affinity: CpvAffinity
): boolean => {
  const reach = affinityReachOf(company, affinity)
  if (reach.size === 0) return false
  return tender.cpv.digits.some(
    (digits) => (reach.get(digits.slice(0, 4))?.affinity.strength ?? 0) >= AFFINITY_CANDIDATE_STRENGTH
  )
}

export const isCandidate = (
  company: PreparedCompany,
  tender: PreparedTender,
  stats: CorpusStats = emptyCorpusStats,
  affinity: CpvAffinity = NO_AFFINITY
): boolean => {
  const t = tender.tender
  if (cpvMatchReaches(tender.cpv, company.profileCpv, CANDIDATE_MIN_CPV)) return true
  if (company.authorityIds.has(t.authorityId)) return true
  for (const award of company.company.history) if (award.authorityId === t.authorityId) return true
  if (matchesAnyPhrase(company.phrases, tender)) return true
  if (affinity.byClass.size > 0 && isAffinityCandidate(company, tender, affinity)) return true
  return company.textTerms.length > 0 && isTextCandidate(company, tender, stats)
}

/**
 * A watchlist's filters: every criterion it sets must hold (CPV: a tender code inside a watched
 * code; keywords: at least one found; value: inside the range when the tender has a value;
 * authority: the same one; counties: the tender's authority in one of them, so a tender of
 * unknown county is outside a county-limited watchlist).
 */
export const passesWatchlist = (watchlist: PreparedWatchlist, tender: PreparedTender): boolean => {
  const w = watchlist.watchlist
  const t = tender.tender
  if (w.cpvCodes.length > 0) {
    const codes = [t.mainCpv, ...t.additionalCpvs]
    if (!codes.some((code) => w.cpvCodes.some((watched) => withinCode(digitsOf(code), watched)))) return false
  }
  if (watchlist.phrases.length > 0 && !matchesAnyPhrase(watchlist.phrases, tender)) return false
  if (t.valueRon !== null) {
    if (w.minValue !== null && t.valueRon < w.minValue) return false
    if (w.maxValue !== null && t.valueRon > w.maxValue) return false
  }
  if (w.authorityId !== null && w.authorityId !== t.authorityId) return false
  if (w.counties !== undefined && w.counties.length > 0 && !w.counties.includes(t.county ?? "")) return false
  return true
}

/** Watchlists that alert for a new tender: the company's score reaches the threshold and the filters pass. */
export const alertingWatchlists = (
  company: PreparedCompany,
  tender: PreparedTender,
  score: TenderScore
): ReadonlyArray<PreparedWatchlist> =>
  company.watchlists.filter(
    (watchlist) => score.overallScore >= watchlist.watchlist.minScore && passesWatchlist(watchlist, tender)
  )
