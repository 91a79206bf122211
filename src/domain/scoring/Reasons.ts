import { digitsOf, significantDigits } from "./CpvMatch.js"
import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import { containsPhrase } from "./KeywordMatch.js"
import type { FactorName } from "./Model.js"
import { type CorpusStats, termContribution } from "./Semantic.js"
import { STOP_WORDS, stem, words } from "./Text.js"

/**
 * One short sentence per factor naming the evidence behind it, with the tender's and the profile's
 * own Romanian words. Computed from the same prepared inputs as the score, so it says what the
 * scorer saw. In English for the key API (spec 2.3's language), in Romanian for the browser app.
 */
export type FactorReasons = { readonly [name in FactorName]: string }

export type ReasonLanguage = "en" | "ro"

/** Words shown per reason, at most. */
const MAX_WORDS = 6

type CpvLevel = "division" | "group" | "class" | "category" | "subcategory"
const CPV_LEVELS: Record<number, CpvLevel> = { 2: "division", 3: "group", 4: "class", 5: "category" }
const levelOf = (digits: string): CpvLevel => CPV_LEVELS[digits.length] ?? "subcategory"

/** Every sentence of the reasons, per language: the rules below only pick one and fill it in. */
interface Phrasebook {
  readonly level: (level: CpvLevel) => string
  /** An amount in millions of RON (`millions`), with its unit. */
  readonly millions: (amount: string) => string
  readonly cpv: {
    readonly noCodes: string
    readonly noneNear: string
    readonly code: (code: string, main: boolean) => string
    readonly inWatched: (which: string, level: string, digits: string) => string
    readonly inWon: (which: string, level: string, digits: string) => string
    readonly sharesWatched: (which: string, level: string, shared: string, code: string) => string
    readonly sharesWon: (which: string, level: string, shared: string, code: string) => string
  }
  readonly keyword: {
    readonly none: string
    readonly notFound: string
    readonly found: (list: string) => string
    readonly alsoInDescription: (list: string) => string
    readonly onlyInDescription: (list: string) => string
  }
  readonly value: {
    readonly noRange: string
    /** Bounds in millions of RON, without the unit. */
    readonly range: (min: string, max: string) => string
    readonly minimum: (min: string) => string
    readonly maximum: (max: string) => string
    readonly noValue: (range: string) => string
    readonly below: (amount: string, range: string) => string
    readonly above: (amount: string, range: string) => string
    readonly inside: (amount: string, range: string) => string
  }
  readonly historical: {
    readonly noFiscalCode: string
    readonly noAwards: string
    readonly won: (contracts: number, fromAuthority: number, inClass: number, klass: string) => string
  }
  readonly semantic: {
    readonly noProfile: string
    readonly noneShared: string
    readonly description: string
    readonly keywords: string
    readonly awardTitles: string
  }
}

const EN: Phrasebook = {
  level: (level) => level,
  millions: (amount) => `${amount} M RON`,
  cpv: {
    noCodes: "no CPV codes to compare: no watchlist codes and no awards won",
    noneNear: "no CPV code of this tender is near your watched codes or the codes of contracts you won",
    code: (code, main) => `${main ? "main" : "additional"} CPV ${code}`,
    inWatched: (which, level, digits) => `${which} lies in your watched ${level} ${digits}`,
    inWon: (which, level, digits) => `${which} lies in ${level} ${digits} of a contract you won`,
    sharesWatched: (which, level, shared, code) => `${which} shares ${level} ${shared} with your watched code ${code}`,
    sharesWon: (which, level, shared, code) =>
      `${which} shares ${level} ${shared} with a contract you won, in code ${code}`
  },
  keyword: {
    none: "no watchlist keywords to look for",
    notFound: "none of your watchlist keywords occurs in the tender",
    found: (list) => `keywords found: ${list}`,
    alsoInDescription: (list) => `in the description: ${list}`,
    onlyInDescription: (list) => `keywords found in the description: ${list}`
  },
  value: {
    noRange: "no value range in your watchlists",
    range: (min, max) => `your range ${min}-${max} M RON`,
    minimum: (min) => `your minimum ${min} M RON`,
    maximum: (max) => `your maximum ${max} M RON`,
    noValue: (range) => `the tender has no estimated value to compare with ${range}`,
    below: (amount, range) => `${amount} below ${range}`,
    above: (amount, range) => `${amount} above ${range}`,
    inside: (amount, range) => `${amount} inside ${range}`
  },
  historical: {
    noFiscalCode: "no fiscal code, so no award history to compare",
    noAwards: "no award notice names your fiscal code as winner",
    won: (contracts, fromAuthority, inClass, klass) =>
      `won ${contracts} contract${contracts === 1 ? "" : "s"}: ` +
      `${fromAuthority > 0 ? `${fromAuthority} from this authority` : "none from this authority"}, ` +
      `${inClass > 0 ? `${inClass} in class ${klass}` : `none in class ${klass}`}`
  },
  semantic: {
    noProfile: "no description, keywords or won award titles to compare",
    noneShared: "no word of your description, keywords or won award titles occurs in the tender",
    description: "description shares",
    keywords: "keywords share",
    awardTitles: "won award titles share"
  }
}

/** Romanian writes a decimal comma: 1,2 mil. RON. */
const decimalComma = (amount: string) => amount.replace(".", ",")

const RO_LEVELS: Record<CpvLevel, string> = {
  division: "diviziunea",
  group: "grupa",
  class: "clasa",
  category: "categoria",
  subcategory: "subcategoria"
}

const RO: Phrasebook = {
  level: (level) => RO_LEVELS[level],
  millions: (amount) => `${decimalComma(amount)} mil. RON`,
  cpv: {
    noCodes: "niciun cod CPV de comparat: nu urmăriți coduri și nu ați câștigat contracte",
    noneNear:
      "niciun cod CPV al licitației nu este apropiat de codurile urmărite sau de cele ale contractelor câștigate",
    code: (code, main) => `codul CPV ${main ? "principal" : "suplimentar"} ${code}`,
    inWatched: (which, level, digits) => `${which} se află în ${level} ${digits}, pe care o urmăriți`,
    inWon: (which, level, digits) => `${which} se află în ${level} ${digits} a unui contract câștigat`,
    sharesWatched: (which, level, shared, code) => `${which} are în comun ${level} ${shared} cu codul urmărit ${code}`,
    sharesWon: (which, level, shared, code) =>
      `${which} are în comun ${level} ${shared} cu codul ${code} al unui contract câștigat`
  },
  keyword: {
    none: "nu urmăriți cuvinte cheie",
    notFound: "niciun cuvânt cheie urmărit nu apare în licitație",
    found: (list) => `cuvinte cheie găsite: ${list}`,
    alsoInDescription: (list) => `în descriere: ${list}`,
    onlyInDescription: (list) => `cuvinte cheie găsite în descriere: ${list}`
  },
  value: {
    noRange: "listele de urmărire nu au un interval de valoare",
    range: (min, max) => `intervalul urmărit ${decimalComma(min)}-${decimalComma(max)} mil. RON`,
    minimum: (min) => `minimul urmărit de ${decimalComma(min)} mil. RON`,
    maximum: (max) => `maximul urmărit de ${decimalComma(max)} mil. RON`,
    noValue: (range) => `licitația nu are o valoare estimată de comparat cu ${range}`,
    below: (amount, range) => `${amount}, sub ${range}`,
    above: (amount, range) => `${amount}, peste ${range}`,
    inside: (amount, range) => `${amount}, în ${range}`
  },
  historical: {
    noFiscalCode: "fără cod fiscal nu există un istoric de contracte de comparat",
    noAwards: "niciun anunț de atribuire nu vă numește codul fiscal drept câștigător",
    won: (contracts, fromAuthority, inClass, klass) =>
      `ați câștigat ${contracts === 1 ? "un contract" : `${contracts} contracte`}: ` +
      `${fromAuthority > 0 ? `${fromAuthority} de la această autoritate` : "niciunul de la această autoritate"}, ` +
      `${inClass > 0 ? `${inClass} în clasa ${klass}` : `niciunul în clasa ${klass}`}`
  },
  semantic: {
    noProfile: "nicio descriere, niciun cuvânt cheie și niciun titlu de contract câștigat de comparat",
    noneShared:
      "niciun cuvânt din descriere, din cuvintele cheie sau din titlurile contractelor câștigate nu apare în licitație",
    description: "descrierea are în comun",
    keywords: "cuvintele cheie au în comun",
    awardTitles: "titlurile contractelor câștigate au în comun"
  }
}

const PHRASEBOOKS: Record<ReasonLanguage, Phrasebook> = { en: EN, ro: RO }

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

const cpvReason = (company: PreparedCompany, tender: PreparedTender, say: Phrasebook): string => {
  if (company.profileCodes.length === 0) return say.cpv.noCodes
  const evidence = cpvEvidence(company, tender)
  if (evidence === null) return say.cpv.noneNear
  const which = say.cpv.code(evidence.tenderCode, evidence.main)
  if (evidence.shared === null) {
    const digits = significantDigits(evidence.profileCode)
    const level = say.level(levelOf(digits))
    return evidence.fromWatchlist ? say.cpv.inWatched(which, level, digits) : say.cpv.inWon(which, level, digits)
  }
  const level = say.level(levelOf(evidence.shared))
  return evidence.fromWatchlist
    ? say.cpv.sharesWatched(which, level, evidence.shared, evidence.profileCode)
    : say.cpv.sharesWon(which, level, evidence.shared, evidence.profileCode)
}

const keywordReason = (company: PreparedCompany, tender: PreparedTender, say: Phrasebook): string => {
  if (company.phrases.length === 0) return say.keyword.none
  const inTitle = company.phrases.filter((p) => containsPhrase(tender.titleStems, p.stems)).map((p) => p.keyword)
  const inDescription = company.phrases
    .filter((p) => !containsPhrase(tender.titleStems, p.stems) && containsPhrase(tender.descriptionStems, p.stems))
    .map((p) => p.keyword)
  if (inTitle.length === 0 && inDescription.length === 0) return say.keyword.notFound
  const parts: Array<string> = []
  if (inTitle.length > 0) parts.push(say.keyword.found(inTitle.slice(0, MAX_WORDS).join(", ")))
  if (inDescription.length > 0) {
    const list = inDescription.slice(0, MAX_WORDS).join(", ")
    parts.push(parts.length > 0 ? say.keyword.alsoInDescription(list) : say.keyword.onlyInDescription(list))
  }
  return parts.join("; ")
}

/** RON amounts in millions, as people say them: 40, 1.2, 0.35, 0.045 M RON. */
export const millions = (ron: number): string => {
  const m = ron / 1_000_000
  if (m >= 10) return m.toFixed(0)
  if (m >= 1) return String(Number(m.toFixed(1)))
  return String(Number(m.toPrecision(2)))
}

const valueReason = (company: PreparedCompany, tender: PreparedTender, say: Phrasebook): string => {
  const value = tender.tender.valueRon
  const { minValue: min, maxValue: max } = company
  if (min === null && max === null) return say.value.noRange
  const range =
    min !== null && max !== null
      ? say.value.range(millions(min), millions(max))
      : min !== null
        ? say.value.minimum(millions(min))
        : say.value.maximum(millions(max!))
  if (value === null) return say.value.noValue(range)
  const amount = say.millions(millions(value))
  if (min !== null && value < min) return say.value.below(amount, range)
  if (max !== null && value > max) return say.value.above(amount, range)
  return say.value.inside(amount, range)
}

const historicalReason = (company: PreparedCompany, tender: PreparedTender, say: Phrasebook): string => {
  const history = company.company.history
  if (history.length === 0)
    return company.company.fiscalCode == null ? say.historical.noFiscalCode : say.historical.noAwards
  const t = tender.tender
  const klass = digitsOf(t.mainCpv).slice(0, 4)
  const fromAuthority = history.filter((a) => a.authorityId === t.authorityId).length
  const inClass = history.filter((a) => digitsOf(a.mainCpv).slice(0, 4) === klass).length
  return say.historical.won(history.length, fromAuthority, inClass, klass)
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

const semanticReason = (
  company: PreparedCompany,
  tender: PreparedTender,
  corpus: CorpusStats,
  say: Phrasebook
): string => {
  if (company.queryTerms.length === 0) return say.semantic.noProfile
  const shared = company.queryTerms
    .filter((term) => tender.termFrequencies.has(term))
    .map((term) => ({ term, weight: (company.queryWeights.get(term) ?? 1) * termContribution(term, tender, corpus) }))
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1))
    .slice(0, MAX_WORDS)
  if (shared.length === 0) return say.semantic.noneShared
  const t = tender.tender
  const forms = surfaceForms(`${t.title} ${t.description} ${t.cpvLabel ?? ""}`)
  const groups: Array<[string, Array<string>]> = [
    [say.semantic.description, []],
    [say.semantic.keywords, []],
    [say.semantic.awardTitles, []]
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

export const explainPair = (
  company: PreparedCompany,
  tender: PreparedTender,
  corpus: CorpusStats,
  language: ReasonLanguage = "en"
): FactorReasons => {
  const say = PHRASEBOOKS[language]
  return {
    semantic: semanticReason(company, tender, corpus, say),
    keyword: keywordReason(company, tender, say),
    cpv: cpvReason(company, tender, say),
    value_fit: valueReason(company, tender, say),
    historical: historicalReason(company, tender, say)
  }
}
