import { countyDistance } from "../tenders/CountyDistance.js"
import { type AffinityMatch, type CpvAffinity, NO_AFFINITY } from "./CpvAffinity.js"
import { type CpvLevel, type CpvMatch, cpvClassOf, cpvLevelOf, INSIDE, meetingNode } from "./CpvMatch.js"
import type { ClassFeedback } from "./Feedback.js"
import { placeShareWithoutHistory } from "./Historical.js"
import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import { emptyFindings, scorePair, type TenderScore } from "./Model.js"
import type { CompanyCounties } from "./Place.js"
import type { CorpusStats, SharedTerm } from "./Semantic.js"
import { statedTextMatch } from "./StatedText.js"
import { spellingsOf } from "./Text.js"
import type { ValuePlacement } from "./ValueFit.js"
import { sharedWithWonTitle } from "./WonTitles.js"

/**
 * The evidence behind each factor of a pair's score: what the factors found while scoring it
 * (Model.FactorFindings), with what a sentence needs to name it (the tender's spelling of a word,
 * the company's spelling of a code, where a query term comes from). Reasons only phrase it.
 */

/** Where a query term comes from: the description first, then the watchlist keywords, else won award titles. */
export type TermSource = "description" | "keywords" | "awardTitles"

export interface SharedTermEvidence extends SharedTerm {
  readonly source: TermSource
  /** The tender's own spelling of the term. */
  readonly spelling: string
}

export interface SemanticEvidence {
  /** Terms of the company's query: none means nothing to compare. */
  readonly queryTerms: number
  /** The query terms the tender contains, the biggest contribution first (ties: alphabetical). */
  readonly shared: ReadonlyArray<SharedTermEvidence>
}

export interface KeywordEvidence {
  readonly watchedKeywords: number
  readonly inTitle: ReadonlyArray<string>
  /** Found in the description and not in the title. */
  readonly inDescription: ReadonlyArray<string>
}

/** The tender code and the profile code that gave the CPV score, and the CPV node where they meet. */
export interface CpvCodePair {
  readonly tenderCode: string
  readonly main: boolean
  /** As written in the watchlist, or in the won award notice. */
  readonly profileCode: string
  readonly watched: boolean
  /** The tender code lies inside the profile code (then the node is the profile code itself). */
  readonly inside: boolean
  readonly node: string
  readonly level: CpvLevel
  readonly score: number
}

/** The learned affinity that gave the CPV score (CpvAffinity.ts): firms that win `profileCode` also win `tenderCode`. */
export interface CpvAffinityEvidence {
  readonly tenderCode: string
  readonly main: boolean
  /** The profile code (8 digits) whose class leads to the tender's. */
  readonly profileCode: string
  /** Suppliers that won in both classes, of the suppliers that won in the profile code's class. */
  readonly commonSuppliers: number
  readonly classSuppliers: number
  readonly score: number
}

/** The won contract whose title the tender reads like, when that text match gave the CPV score (WonTitles.ts). */
export interface CpvWonTitleEvidence {
  /** The won award's main code, as written in its notice. */
  readonly code: string
  readonly title: string
  /** The tender's spelling of the words they share, the biggest contribution first. */
  readonly words: ReadonlyArray<string>
  readonly score: number
}

/**
 * The company's own description and keywords, when the tender's text matching them gave the CPV score
 * (StatedText.ts): the words they share.
 */
export interface CpvStatedEvidence {
  /** The tender's spelling of the shared words, the biggest contribution first. */
  readonly words: ReadonlyArray<string>
  /** Whether the company has watchlist keywords (then the stated words are its description and keywords). */
  readonly keywords: boolean
  readonly score: number
}

export interface CpvEvidence {
  readonly profileCodes: number
  /** null when no code of the tender is near a profile code. */
  readonly match: CpvCodePair | null
  /** Set when a learned affinity, not the tree, gave the score. */
  readonly affinity?: CpvAffinityEvidence | null
  /** Set when the text of a contract the company won, not a code, gave the score. */
  readonly wonTitle?: CpvWonTitleEvidence | null
  /** Set when the company's own description and keywords, not a code, gave the score. */
  readonly stated?: CpvStatedEvidence | null
  /** The user's marks in the tender's CPV class that shifted the score (Feedback.ts); null when none. */
  readonly feedback?: ClassFeedback | null
}

export interface ValueFitEvidence {
  readonly placement: ValuePlacement
  readonly value: number | null
  readonly min: number | null
  readonly max: number | null
}

export interface HistoricalEvidence {
  readonly awards: number
  readonly fiscalCodeKnown: boolean
  readonly fromAuthority: number
  readonly inClass: number
  /** Awards outside the tender's class counted by a title the tender's text matches (WonTitles.ts). */
  readonly byTitle?: number
  /** The tender's CPV class, the one `inClass` counts. */
  readonly tenderClass: string
  /** The tender's county against the company's counties; null when either is unknown. */
  readonly place: PlaceEvidence | null
}

export interface PlaceEvidence {
  readonly tenderCounty: string
  /** The company's counties nearest to the tender's (all at `distance`), in the company's order. */
  readonly nearest: ReadonlyArray<string>
  readonly source: CompanyCounties["source"]
  /** Borders crossed to the nearest of the company's counties (0: the same county). */
  readonly distance: number
  /**
   * The share of a nearby tender's place that counted, when not all of it did: without award
   * history, as far as the tender is of the company's trade (Historical.placeShareWithoutHistory);
   * else null.
   */
  readonly share: number | null
}

export interface PairEvidence {
  readonly semantic: SemanticEvidence
  readonly keyword: KeywordEvidence
  readonly cpv: CpvEvidence
  readonly value_fit: ValueFitEvidence
  readonly historical: HistoricalEvidence
}

export interface ExplainedScore {
  readonly score: TenderScore
  readonly evidence: PairEvidence
}

const sourceOf = (company: PreparedCompany, term: string): TermSource =>
  company.descriptionTerms.has(term) ? "description" : company.keywordTerms.has(term) ? "keywords" : "awardTitles"

const semanticEvidence = (
  company: PreparedCompany,
  tender: PreparedTender,
  shared: ReadonlyArray<SharedTerm>
): SemanticEvidence => {
  const t = tender.tender
  // The tender's text as the semantic factor read it: title, description and CPV label.
  const spellings =
    shared.length === 0 ? new Map<string, string>() : spellingsOf(`${t.title} ${t.description} ${t.cpvLabel ?? ""}`)
  return {
    queryTerms: company.queryTerms.length,
    shared: [...shared]
      .sort((a, b) => b.contribution - a.contribution || (a.term < b.term ? -1 : 1))
      .map(({ term, contribution }) => ({
        term,
        contribution,
        source: sourceOf(company, term),
        spelling: spellings.get(term) ?? term
      }))
  }
}

const cpvEvidence = (company: PreparedCompany, match: CpvMatch | null): CpvEvidence => {
  const profileCodes = company.profileCodes.length
  if (match === null || match.tenderCode === null || match.profileCode === null) return { profileCodes, match: null }
  const origin = company.profileCodeOrigins.get(match.profileCode)!
  const node = meetingNode(match.tenderCode, match.profileCode, match.depth)
  return {
    profileCodes,
    match: {
      tenderCode: match.tenderCode,
      main: match.cpvType === "primary",
      profileCode: origin.written,
      watched: origin.watched,
      inside: match.depth === INSIDE,
      node,
      level: cpvLevelOf(node),
      score: match.score
    }
  }
}

const affinityEvidence = (match: AffinityMatch | null): CpvAffinityEvidence | null =>
  match === null
    ? null
    : {
        tenderCode: match.tenderCode,
        main: match.main,
        profileCode: match.reach.profileCode,
        commonSuppliers: match.reach.affinity.commonSuppliers,
        classSuppliers: match.reach.affinity.classSuppliers,
        score: match.score
      }

const wonTitleEvidence = (
  company: PreparedCompany,
  tender: PreparedTender,
  corpus: CorpusStats,
  match: { readonly award: number; readonly score: number } | null
): CpvWonTitleEvidence | null => {
  if (match === null) return null
  const award = company.company.history[match.award]!
  const t = tender.tender
  const spellings = spellingsOf(`${t.title} ${t.description} ${t.cpvLabel ?? ""}`)
  return {
    code: award.mainCpv,
    title: award.title ?? "",
    words: sharedWithWonTitle(company, tender, corpus, match.award).map(({ term }) => spellings.get(term) ?? term),
    score: match.score
  }
}

const statedEvidence = (
  company: PreparedCompany,
  tender: PreparedTender,
  corpus: CorpusStats,
  match: { readonly score: number } | null
): CpvStatedEvidence | null => {
  if (match === null) return null
  const shared: Array<SharedTerm> = []
  statedTextMatch(company, tender, corpus, shared)
  const t = tender.tender
  const spellings = spellingsOf(`${t.title} ${t.description} ${t.cpvLabel ?? ""}`)
  return {
    words: shared
      .sort((a, b) => b.contribution - a.contribution || (a.term < b.term ? -1 : 1))
      .map(({ term }) => spellings.get(term) ?? term),
    keywords: company.phrases.length > 0,
    score: match.score
  }
}

/** The share of the place that counted, when some of a nearby tender's place did not (PlaceEvidence.share). */
const partialPlaceShare = (company: PreparedCompany, score: TenderScore, proximity: number): number | null => {
  if (company.company.history.length > 0 || proximity === 0) return null
  const share = placeShareWithoutHistory(score.factors.cpv.score, score.factors.semantic.score)
  return share < 1 ? share : null
}

/**
 * Scores a pair and says why: the same scorePair as the scoring runs, asked to record what each
 * factor found. Slower than scorePair (it allocates the evidence); meant for the pairs a user reads.
 */
export const explainScore = (
  company: PreparedCompany,
  tender: PreparedTender,
  corpus: CorpusStats,
  affinity: CpvAffinity = NO_AFFINITY
): ExplainedScore => {
  const found = emptyFindings()
  const score = scorePair(company, tender, corpus, affinity, found)
  return {
    score,
    evidence: {
      semantic: semanticEvidence(company, tender, found.semantic),
      keyword: {
        watchedKeywords: company.phrases.length,
        inTitle: found.keyword.inTitle,
        inDescription: found.keyword.inDescription
      },
      cpv: {
        ...cpvEvidence(company, found.cpv),
        affinity: affinityEvidence(found.cpvAffinity),
        wonTitle: wonTitleEvidence(company, tender, corpus, found.cpvWonTitle),
        stated: statedEvidence(company, tender, corpus, found.cpvStated),
        feedback: found.cpvFeedback
      },
      value_fit: {
        placement: found.value_fit.placement,
        value: tender.tender.valueRon,
        min: found.value_fit.range?.min ?? null,
        max: found.value_fit.range?.max ?? null
      },
      historical: {
        awards: company.company.history.length,
        fiscalCodeKnown: company.company.fiscalCode != null,
        fromAuthority: found.historical.fromAuthority,
        inClass: found.historical.inClass,
        byTitle: found.historical.byTitle,
        tenderClass: cpvClassOf(tender.tender.mainCpv),
        place:
          found.place === null
            ? null
            : {
                tenderCounty: tender.tender.county!,
                nearest: company.place.counties.filter(
                  (county) => countyDistance(tender.tender.county!, county) === found.place!.distance
                ),
                source: company.place.source,
                distance: found.place.distance,
                share: partialPlaceShare(company, score, found.place.proximity)
              }
      }
    }
  }
}
