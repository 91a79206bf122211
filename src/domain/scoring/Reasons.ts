import { digitsOf, significantDigits } from "./CpvMatch.js"
import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import { containsPhrase } from "./KeywordMatch.js"
import type { FactorName } from "./Model.js"
import { type CorpusStats, termContribution } from "./Semantic.js"
import { STOP_WORDS, stem, words } from "./Text.js"

/**
 * One short sentence per factor naming the evidence behind it (English, with the tender's and the
 * profile's own Romanian words). Computed from the same prepared inputs as the score, so it says
 * what the scorer saw.
 */
export type FactorReasons = { readonly [name in FactorName]: string }

/** Words shown per reason, at most. */
const MAX_WORDS = 6

const CPV_LEVELS: Record<number, string> = { 2: "division", 3: "group", 4: "class", 5: "category" }
const levelOf = (digits: string) => CPV_LEVELS[digits.length] ?? "subcategory"

/** Code of the tender as written ("45233120-6"); profile codes are compared by their 8 digits. */
interface CpvEvidence {
  readonly tenderCode: string
  readonly main: boolean
  readonly profileCode: string
  readonly fromWatchlist: boolean
  /** Digits the two codes share when the tender code is not inside the profile code. */
  readonly shared: string | null
  readonly score: number
}

const SHARED_DEPTH_SCORE: Record<number, number> = { 2: 0.3, 3: 0.55, 4: 0.75 }

const compareCode = (tenderCode: string, profileCode: string): { score: number; shared: string | null } => {
  const tender = digitsOf(tenderCode)
  const watched = significantDigits(profileCode)
  if (tender.startsWith(watched)) return { score: 1, shared: null }
  const limit = Math.min(significantDigits(tenderCode).length, watched.length)
  let shared = 0
  while (shared < limit && tender[shared] === watched[shared]) shared++
  if (shared < 2) return { score: 0, shared: null }
  return { score: SHARED_DEPTH_SCORE[shared] ?? 0.85, shared: tender.slice(0, shared) }
}

const cpvEvidence = (company: PreparedCompany, tender: PreparedTender): CpvEvidence | null => {
  const watched = new Map<string, string>()
  for (const { watchlist } of company.watchlists)
    for (const code of watchlist.cpvCodes) watched.set(digitsOf(code), code)
  const won = new Map<string, string>()
  for (const award of company.company.history) won.set(digitsOf(award.mainCpv), award.mainCpv)
  const t = tender.tender
  let best: CpvEvidence | null = null
  const consider = (tenderCode: string, main: boolean) => {
    for (const [profileCodes, fromWatchlist] of [
      [watched, true],
      [won, false]
    ] as const) {
      for (const profileCode of profileCodes.values()) {
        const { score, shared } = compareCode(tenderCode, profileCode)
        const weighted = main ? score : score * 0.9
        if (weighted > (best?.score ?? 0))
          best = { tenderCode, main, profileCode, fromWatchlist, shared, score: weighted }
      }
    }
  }
  consider(t.mainCpv, true)
  for (const code of t.additionalCpvs) consider(code, false)
  return best
}

const cpvReason = (company: PreparedCompany, tender: PreparedTender): string => {
  if (company.profileCodes.length === 0) return "no CPV codes to compare: no watchlist codes and no awards won"
  const evidence = cpvEvidence(company, tender)
  if (evidence === null)
    return "no CPV code of this tender is near your watched codes or the codes of contracts you won"
  const which = `${evidence.main ? "main" : "additional"} CPV ${evidence.tenderCode}`
  const source = evidence.fromWatchlist ? "your watched" : "a contract you won, in"
  if (evidence.shared === null) {
    const digits = significantDigits(evidence.profileCode)
    return evidence.fromWatchlist
      ? `${which} lies in your watched ${levelOf(digits)} ${digits}`
      : `${which} lies in ${levelOf(digits)} ${digits} of a contract you won`
  }
  return `${which} shares ${levelOf(evidence.shared)} ${evidence.shared} with ${source} code ${evidence.profileCode}`
}

const keywordReason = (company: PreparedCompany, tender: PreparedTender): string => {
  if (company.phrases.length === 0) return "no watchlist keywords to look for"
  const inTitle = company.phrases.filter((p) => containsPhrase(tender.titleStems, p.stems)).map((p) => p.keyword)
  const inDescription = company.phrases
    .filter((p) => !containsPhrase(tender.titleStems, p.stems) && containsPhrase(tender.descriptionStems, p.stems))
    .map((p) => p.keyword)
  if (inTitle.length === 0 && inDescription.length === 0) return "none of your watchlist keywords occurs in the tender"
  const parts: Array<string> = []
  if (inTitle.length > 0) parts.push(`keywords found: ${inTitle.slice(0, MAX_WORDS).join(", ")}`)
  if (inDescription.length > 0)
    parts.push(
      `${parts.length > 0 ? "in the description" : "keywords found in the description"}: ${inDescription.slice(0, MAX_WORDS).join(", ")}`
    )
  return parts.join("; ")
}

/** RON amounts in millions, as people say them: 40, 1.2, 0.35, 0.045 M RON. */
export const millions = (ron: number): string => {
  const m = ron / 1_000_000
  if (m >= 10) return m.toFixed(0)
  if (m >= 1) return String(Number(m.toFixed(1)))
  return String(Number(m.toPrecision(2)))
}

const valueReason = (company: PreparedCompany, tender: PreparedTender): string => {
  const value = tender.tender.valueRon
  const { minValue: min, maxValue: max } = company
  if (min === null && max === null) return "no value range in your watchlists"
  const range =
    min !== null && max !== null
      ? `your range ${millions(min)}-${millions(max)} M RON`
      : min !== null
        ? `your minimum ${millions(min)} M RON`
        : `your maximum ${millions(max!)} M RON`
  if (value === null) return `the tender has no estimated value to compare with ${range}`
  const amount = `${millions(value)} M RON`
  if (min !== null && value < min) return `${amount} below ${range}`
  if (max !== null && value > max) return `${amount} above ${range}`
  return `${amount} inside ${range}`
}

const historicalReason = (company: PreparedCompany, tender: PreparedTender): string => {
  const history = company.company.history
  if (history.length === 0) {
    return company.company.fiscalCode == null
      ? "no fiscal code, so no award history to compare"
      : "no award notice names your fiscal code as winner"
  }
  const t = tender.tender
  const klass = digitsOf(t.mainCpv).slice(0, 4)
  const fromAuthority = history.filter((a) => a.authorityId === t.authorityId)
  const inClass = history.filter((a) => digitsOf(a.mainCpv).slice(0, 4) === klass).length
  const contracts = (n: number) => `${n} contract${n === 1 ? "" : "s"}`
  const authority =
    fromAuthority.length > 0 ? `${fromAuthority.length} from this authority` : "none from this authority"
  const sameClass = inClass > 0 ? `${inClass} in class ${klass}` : `none in class ${klass}`
  return `won ${contracts(history.length)}: ${authority}, ${sameClass}`
}

/** The tender's own spelling of each stem (first occurrence, lower case, diacritics kept). */
const surfaceForms = (text: string): Map<string, string> => {
  const forms = new Map<string, string>()
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    const folded = words(raw)
    if (folded.length !== 1 || STOP_WORDS.has(folded[0]!)) continue
    const term = stem(folded[0]!)
    if (!forms.has(term)) forms.set(term, raw)
  }
  return forms
}

const semanticReason = (company: PreparedCompany, tender: PreparedTender, corpus: CorpusStats): string => {
  if (company.queryTerms.length === 0) return "no description, keywords or won award titles to compare"
  const shared = company.queryTerms
    .filter((term) => tender.termFrequencies.has(term))
    .map((term) => ({ term, weight: (company.queryWeights.get(term) ?? 1) * termContribution(term, tender, corpus) }))
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1))
    .slice(0, MAX_WORDS)
  if (shared.length === 0) return "no word of your description, keywords or won award titles occurs in the tender"
  const forms = surfaceForms(`${tender.tender.title} ${tender.tender.description}`)
  const groups: Array<[string, Array<string>]> = [
    ["description shares", []],
    ["keywords share", []],
    ["won award titles share", []]
  ]
  for (const { term } of shared) {
    const form = forms.get(term) ?? term
    if (company.descriptionTerms.has(term)) groups[0]![1].push(form)
    else if (company.keywordTerms.has(term)) groups[1]![1].push(form)
    else groups[2]![1].push(form)
  }
  return groups
    .filter(([, list]) => list.length > 0)
    .map(([label, list]) => `${label}: ${list.join(", ")}`)
    .join("; ")
}

export const explainPair = (company: PreparedCompany, tender: PreparedTender, corpus: CorpusStats): FactorReasons => ({
  semantic: semanticReason(company, tender, corpus),
  keyword: keywordReason(company, tender),
  cpv: cpvReason(company, tender),
  value_fit: valueReason(company, tender),
  historical: historicalReason(company, tender)
})
