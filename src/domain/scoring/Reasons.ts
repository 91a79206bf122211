import { type CpvAffinity, NO_AFFINITY } from "./CpvAffinity.js"
import {
  type CpvEvidence,
  explainScore,
  type HistoricalEvidence,
  type KeywordEvidence,
  type PairEvidence,
  type PlaceEvidence,
  type SemanticEvidence,
  type TermSource,
  type ValueFitEvidence
} from "./Evidence.js"
import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import type { FactorName } from "./Model.js"
import { en } from "./phrasebooks/en.js"
import { fill, type Phrasebook } from "./phrasebooks/Phrasebook.js"
import { ro } from "./phrasebooks/ro.js"
import type { CorpusStats } from "./Semantic.js"

/**
 * One short sentence per factor naming the evidence behind it, with the tender's and the profile's
 * own Romanian words. Phrased from the evidence the factors recorded while scoring (Evidence.ts), so
 * it says what the scorer counted. In English for the key API (spec 2.3's language), in Romanian
 * for the browser app; each language's words are a phrasebook of templates (phrasebooks/).
 */
export type FactorReasons = { readonly [name in FactorName]: string }

export type ReasonLanguage = "en" | "ro"

export const PHRASEBOOKS: { readonly [language in ReasonLanguage]: Phrasebook } = { en, ro }

/** Words shown per reason, at most. */
const MAX_WORDS = 6

/** RON amounts in millions, as people say them: 40, 1.2, 0.35, 0.045 M RON. */
export const millions = (ron: number): string => {
  const m = ron / 1_000_000
  if (m >= 10) return m.toFixed(0)
  if (m >= 1) return String(Number(m.toFixed(1)))
  return String(Number(m.toPrecision(2)))
}

/** An amount in millions with the language's decimal mark, without its unit. */
const millionsIn = (say: Phrasebook, ron: number): string => millions(ron).replace(".", say.decimalMark)

const listOf = (say: Phrasebook, items: ReadonlyArray<string>): string =>
  items.slice(0, MAX_WORDS).join(say.separators.list)

/** A won contract's title as a reason quotes it: its first words, cut at a word near TITLE_CHARACTERS. */
const TITLE_CHARACTERS = 60
export const shortTitle = (title: string): string => {
  const flat = title.replace(/\s+/g, " ").trim()
  if (flat.length <= TITLE_CHARACTERS) return flat
  const cut = flat.slice(0, TITLE_CHARACTERS)
  const space = cut.lastIndexOf(" ")
  return `${(space > TITLE_CHARACTERS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.\-–]+$/, "")}…`
}

const cpvMatchReason = ({ profileCodes, match, affinity, wonTitle, stated }: CpvEvidence, say: Phrasebook): string => {
  if (stated !== undefined && stated !== null)
    return fill(stated.keywords ? say.cpv.stated.withKeywords : say.cpv.stated.description, {
      words: listOf(say, stated.words)
    })
  if (wonTitle !== undefined && wonTitle !== null)
    return fill(say.cpv.wonTitle, {
      code: wonTitle.code,
      title: shortTitle(wonTitle.title),
      words: listOf(say, wonTitle.words)
    })
  if (profileCodes === 0) return say.cpv.noCodes
  if (affinity !== undefined && affinity !== null)
    return fill(say.cpv.affinity, {
      won: affinity.profileCode,
      code: affinity.tenderCode.slice(0, 8),
      common: affinity.commonSuppliers,
      suppliers: affinity.classSuppliers
    })
  if (match === null) return say.cpv.noneNear
  const which = fill(match.main ? say.cpv.mainCode : say.cpv.additionalCode, { code: match.tenderCode })
  const level = say.cpvLevels[match.level]
  if (match.inside) return fill(match.watched ? say.cpv.inWatched : say.cpv.inWon, { which, level, digits: match.node })
  return fill(match.watched ? say.cpv.sharesWatched : say.cpv.sharesWon, {
    which,
    level,
    shared: match.node,
    code: match.profileCode
  })
}

/** What the user's marks in the tender's class say, appended to the cpv reason (empty without marks). */
const feedbackClauses = (evidence: CpvEvidence, say: Phrasebook): Array<string> => {
  const feedback = evidence.feedback
  if (feedback === undefined || feedback === null) return []
  const counted = (phrase: Phrasebook["cpv"]["markedRelevant"], count: number) =>
    count === 1
      ? fill(phrase.one, { class: feedback.cpvClass })
      : fill(phrase.other, { count, class: feedback.cpvClass })
  return [
    ...(feedback.relevant > 0 ? [counted(say.cpv.markedRelevant, feedback.relevant)] : []),
    ...(feedback.notRelevant > 0 ? [counted(say.cpv.markedNotRelevant, feedback.notRelevant)] : [])
  ]
}

const cpvReason = (evidence: CpvEvidence, say: Phrasebook): string =>
  [cpvMatchReason(evidence, say), ...feedbackClauses(evidence, say)].join(say.separators.clause)

const keywordReason = ({ watchedKeywords, inTitle, inDescription }: KeywordEvidence, say: Phrasebook): string => {
  if (watchedKeywords === 0) return say.keyword.none
  if (inTitle.length === 0 && inDescription.length === 0) return say.keyword.notFound
  const clauses: Array<string> = []
  if (inTitle.length > 0) clauses.push(fill(say.keyword.found, { list: listOf(say, inTitle) }))
  if (inDescription.length > 0) {
    const list = listOf(say, inDescription)
    clauses.push(fill(clauses.length > 0 ? say.keyword.alsoInDescription : say.keyword.onlyInDescription, { list }))
  }
  return clauses.join(say.separators.clause)
}

const valueReason = ({ placement, value, min, max }: ValueFitEvidence, say: Phrasebook): string => {
  if (min === null && max === null) return say.value.noRange
  const range =
    min !== null && max !== null
      ? fill(say.value.range, { min: millionsIn(say, min), max: millionsIn(say, max) })
      : min !== null
        ? fill(say.value.minimum, { min: millionsIn(say, min) })
        : fill(say.value.maximum, { max: millionsIn(say, max!) })
  if (value === null) return fill(say.value.noValue, { range })
  const amount = fill(say.millions, { amount: millionsIn(say, value) })
  if (placement === "below") return fill(say.value.below, { amount, range })
  if (placement === "above") return fill(say.value.above, { amount, range })
  return fill(say.value.inside, { amount, range })
}

/** The place clause: how near the tender's county is to the company's ("Dolj borders your counties Gorj, Vâlcea"). */
const placeClause = (evidence: PlaceEvidence, say: Phrasebook): string => {
  const clause = nearnessClause(evidence, say)
  if (evidence.share === null) return clause
  return fill(say.historical.place.partly, { clause, percent: Math.round(evidence.share * 100) })
}

const nearnessClause = (evidence: PlaceEvidence, say: Phrasebook): string => {
  const { place } = say.historical
  const county = evidence.tenderCounty
  if (evidence.distance === 0) return fill(place.same, { county })
  const named = evidence.source === "set" ? place.set : place.awards
  const list = listOf(say, evidence.nearest)
  const counties =
    evidence.nearest.length === 1
      ? fill(named.one, { list })
      : fill(named.other, { list, count: evidence.nearest.length })
  if (evidence.distance === 1) return fill(place.neighbour, { county, counties })
  return fill(place.away, { county, counties, distance: evidence.distance })
}

const historicalReason = (evidence: HistoricalEvidence, say: Phrasebook): string => {
  const awardsPart = awardsReason(evidence, say)
  return evidence.place === null ? awardsPart : awardsPart + say.separators.clause + placeClause(evidence.place, say)
}

const awardsReason = (evidence: HistoricalEvidence, say: Phrasebook): string => {
  const { awards, fromAuthority, inClass, tenderClass } = evidence
  if (awards === 0) return evidence.fiscalCodeKnown ? say.historical.noAwards : say.historical.noFiscalCode
  const { contracts, fromAuthority: authority, inClass: klass, byTitle } = say.historical
  const won = fill(say.historical.won, {
    contracts: awards === 1 ? contracts.one : fill(contracts.other, { count: awards }),
    fromAuthority: fromAuthority > 0 ? fill(authority.some, { count: fromAuthority }) : authority.none,
    inClass:
      inClass > 0 ? fill(klass.some, { count: inClass, class: tenderClass }) : fill(klass.none, { class: tenderClass })
  })
  const titled = evidence.byTitle ?? 0
  if (titled === 0) return won
  return won + say.separators.clause + (titled === 1 ? byTitle.one : fill(byTitle.other, { count: titled }))
}

/** The semantic reason's groups, in the order it names them. */
const TERM_SOURCES: ReadonlyArray<TermSource> = ["description", "keywords", "awardTitles"]

const semanticReason = ({ queryTerms, shared }: SemanticEvidence, say: Phrasebook): string => {
  if (queryTerms === 0) return say.semantic.noProfile
  const shown = shared.slice(0, MAX_WORDS)
  if (shown.length === 0) return say.semantic.noneShared
  return TERM_SOURCES.flatMap((source) => {
    const spellings = shown.filter((term) => term.source === source).map((term) => term.spelling)
    return spellings.length === 0 ? [] : [fill(say.semantic[source], { words: spellings.join(say.separators.list) })]
  }).join(say.separators.clause)
}

/** Each factor's reason, phrased from the evidence of a pair's score. */
export const reasonsOf = (evidence: PairEvidence, language: ReasonLanguage = "en"): FactorReasons => {
  const say = PHRASEBOOKS[language]
  return {
    semantic: semanticReason(evidence.semantic, say),
    keyword: keywordReason(evidence.keyword, say),
    cpv: cpvReason(evidence.cpv, say),
    value_fit: valueReason(evidence.value_fit, say),
    historical: historicalReason(evidence.historical, say)
  }
}

/** Scores a pair with its evidence (Evidence.explainScore) and phrases each factor's reason. */
export const explainPair = (
  company: PreparedCompany,
  tender: PreparedTender,
  corpus: CorpusStats,
  language: ReasonLanguage = "en",
  affinity: CpvAffinity = NO_AFFINITY
): FactorReasons => reasonsOf(explainScore(company, tender, corpus, affinity).evidence, language)
