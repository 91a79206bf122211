import { AFFINITY_MAX_SCORE } from "./CpvAffinity.js"
import { contractKindOf } from "./CpvMatch.js"
import type { PreparedCompany, PreparedTender } from "./Inputs.js"
import { bm25, type CorpusStats, type SharedTerm, scalePerCompany, semanticScaleOf } from "./Semantic.js"
import { WON_TITLE_MIN_MATCH } from "./WonTitles.js"

/**
 * The text route from what the company says it does (model tsm-1.7.0): its description and its
 * watchlists' keywords. The won-title route (WonTitles.ts) lets a tender that reads like a contract
 * the company won count in the `cpv` factor whatever its code; a company without award history (no
 * fiscal code, or a new firm) had no such route, so a tender of its trade coded in another CPV branch
 * (a study of a town's projects coded 71 for the consultancy watching 79 that runs their procurement,
 * a feasibility study coded 79 for a design office watching 71) scored 0 on `cpv`, below any tender of its watched branch that shares little of its text. Here the
 * tender's text is matched against the company's stated words, weight 1 each, with the semantic
 * factor's own measure at the stated words' own scale (Semantic.semanticScaleOf: 0.2 × the BM25 they
 * would score against a tender holding each of them once, at least 8): coverage of what the company
 * says it does. A match of at least STATED_TEXT_MIN_MATCH (the won-title route's 0.5: a tender
 * covering about a seventh of the company's words) counts in `cpv` as a match of that strength, never
 * above STATED_TEXT_MAX_SCORE: the learned affinity's ceiling (0.6, CpvAffinity.ts), below a same-class
 * code (0.75). Weaker than the won-title route (uncapped) on purpose: a contract won is a record of
 * that very work, a description is a claim, and its words already count in the semantic factor; here
 * they only say "this is the kind of work", as the learned affinity does from other firms' awards.
 *
 * Only for a tender whose main code is of a kind of contract (works, supplies, services: the CPV's
 * split, CpvMatch.contractKindOf) that one of the company's codes is: a project's tenders share its
 * name ("Dotarea cu mobilier, materiale didactice și echipamente digitale a …"), so the consultancy that
 * writes its funding application and the publicity of it read like a supplier of school furniture;
 * a supplier does not sell services of another trade, while a study coded 79 and a design coded 71 are
 * both services.
 *
 * Only for a company with CPV codes (watched, or of contracts won): the route exists so that text
 * evidence can compete with those codes' matches. A company known by its words alone has a `cpv`
 * factor of 0 on every tender (its feedback marks aside); its list is ranked by the semantic factor,
 * and the same words counted again in `cpv` would only dilute what its feedback marks move there
 * (measured: description-only profiles with three marks each, P@10 of the rest 0.750 → 0.737).
 */
export const STATED_TEXT_MIN_MATCH = WON_TITLE_MIN_MATCH
export const STATED_TEXT_MAX_SCORE = AFFINITY_MAX_SCORE

/** The scale of the company's stated words (semanticScaleOf them) under these corpus statistics. */
const statedScaleOf = scalePerCompany((company, stats) => semanticScaleOf(company.statedTerms, stats))

/**
 * How well the tender's text covers the company's stated words (description and keywords), 0-1
 * (1 - e^(-bm25 / scale)); `shared` records each shared word when given (the reasons).
 */
export const statedTextMatch = (
  company: PreparedCompany,
  tender: PreparedTender,
  stats: CorpusStats,
  shared?: Array<SharedTerm>
): number => {
  if (company.statedTerms.length === 0) return 0
  const sum = bm25(company.statedTerms, tender, stats, undefined, shared)
  return sum === 0 ? 0 : 1 - Math.exp(-sum / statedScaleOf(company, stats))
}

/** The stated-text match as the `cpv` factor counts it: from STATED_TEXT_MIN_MATCH, capped at STATED_TEXT_MAX_SCORE; else 0. */
export const statedTextScore = (company: PreparedCompany, tender: PreparedTender, stats: CorpusStats): number => {
  // Only a tender of a kind the company's codes name (works, supplies, services): see the header.
  if (!company.profileKinds.has(contractKindOf(tender.tender.mainCpv))) return 0
  const match = statedTextMatch(company, tender, stats)
  return match >= STATED_TEXT_MIN_MATCH ? Math.min(STATED_TEXT_MAX_SCORE, match) : 0
}
