import { describe, expect, it } from "@effect/vitest"
import { AFFINITY_MAX_SCORE } from "../../src/domain/scoring/CpvAffinity.js"
import { contractKindOf } from "../../src/domain/scoring/CpvMatch.js"
import { type CompanyInput, prepareCompany, prepareTender, type TenderInput } from "../../src/domain/scoring/Inputs.js"
import { scorePair } from "../../src/domain/scoring/Model.js"
import { explainPair } from "../../src/domain/scoring/Reasons.js"
import { buildCorpusStats } from "../../src/domain/scoring/Semantic.js"
import {
  STATED_TEXT_MAX_SCORE,
  STATED_TEXT_MIN_MATCH,
  statedTextMatch,
  statedTextScore
} from "../../src/domain/scoring/StatedText.js"
import { WON_TITLE_MIN_MATCH } from "../../src/domain/scoring/WonTitles.js"
import { notice, watchlist } from "./TenderInputs.js"

/**
 * The stated-text route (StatedText.ts, model tsm-1.7.0): a tender whose text reads like the
 * company's own description and keywords counts in the `cpv` factor, from 0.5, capped at 0.6, so a
 * company without award history still sees the work of its trade that a buyer coded in another CPV
 * branch (a feasibility study coded 79 for a design office watching 71).
 */

const STUDY = notice(
  "study",
  "Servicii de elaborare studiu de fezabilitate si DALI pentru reabilitarea cladirii scolii gimnaziale",
  "79311100-8"
)
const WATER_DESIGN = notice("water", "Servicii de proiectare retea de apa si canalizare in comuna", "71322000-1")
const VERIFICATION = notice("verify", "Servicii de verificare tehnica a proiectului", "71328000-3")
const SUPERVISION = notice(
  "supervision",
  "Servicii de dirigenție de șantier pentru reabilitarea școlii gimnaziale",
  "71520000-9"
)
const CATERING = notice("catering", "Servicii de catering pentru evenimentul de lansare a proiectului", "55520000-1")
const pool: ReadonlyArray<TenderInput> = [
  STUDY,
  WATER_DESIGN,
  VERIFICATION,
  SUPERVISION,
  CATERING,
  notice("roads", "Lucrări de reabilitare drumuri județene DJ 101, asfaltare și marcaje rutiere", "45233142-6"),
  notice("cleaning", "Servicii de curățenie pentru sediul primăriei", "90910000-9"),
  notice("laptops", "Echipamente IT pentru proiectul Centrul de orientare in cariera - PNRR", "30213100-6"),
  notice("books", "Achiziție cărți și materiale didactice pentru biblioteca școlară", "22111000-1"),
  notice("press", "Servicii de publicitate comunicat de presa PNRR", "79341000-6")
]
const corpus = buildCorpusStats(pool.map(prepareTender))

const DESCRIPTION = "Birou de proiectare: întocmim studii de fezabilitate și DALI pentru clădiri publice"
const designOffice = (overrides: Partial<CompanyInput> = {}) =>
  prepareCompany({
    id: "design",
    description: DESCRIPTION,
    fiscalCode: null,
    watchlists: [watchlist({ cpvCodes: ["71320000-7"] })],
    history: [],
    ...overrides
  })

describe("the stated-text route (tsm-1.7.0)", () => {
  it("a study coded 79 that reads like a design office's description counts in cpv, above its watched class's tenders with nothing in common", () => {
    const office = designOffice()
    const study = prepareTender(STUDY)
    const match = statedTextMatch(office, study, corpus)
    expect(match).toBeGreaterThanOrEqual(STATED_TEXT_MIN_MATCH)
    expect(match).toBeLessThan(STATED_TEXT_MAX_SCORE)
    const score = scorePair(office, study, corpus)
    // The tree says 79 and 71 are unrelated; the text says it is the office's work.
    expect(score.factors.cpv.score).toBeCloseTo(match, 4)
    expect(score.factors.cpv.cpv_type).toBe("none")
    const verification = scorePair(office, prepareTender(VERIFICATION), corpus)
    expect(verification.factors.cpv.score).toBeGreaterThan(0.9) // inside the watched class 7132
    expect(verification.factors.semantic.score).toBe(0)
    expect(score.overallScore).toBeGreaterThan(verification.overallScore)
    // Without the description, the study has no route to the cpv factor.
    const codesOnly = designOffice({ description: "" })
    expect(scorePair(codesOnly, study, corpus).factors.cpv.score).toBe(0)
  })

  it("is capped at the learned affinity's ceiling, below a same-class code and below a won contract's title", () => {
    expect(STATED_TEXT_MAX_SCORE).toBe(AFFINITY_MAX_SCORE)
    expect(STATED_TEXT_MIN_MATCH).toBe(WON_TITLE_MIN_MATCH)
    // A description that is the tender's own title: the match is near 1, the cpv factor 0.6.
    const copy = designOffice({ description: STUDY.title })
    const study = prepareTender(STUDY)
    expect(statedTextMatch(copy, study, corpus)).toBeGreaterThan(0.75)
    expect(statedTextScore(copy, study, corpus)).toBe(STATED_TEXT_MAX_SCORE)
    expect(scorePair(copy, study, corpus).factors.cpv.score).toBe(STATED_TEXT_MAX_SCORE)
    // The same words as a contract won take the won-title route, uncapped.
    const won = designOffice({
      description: "",
      fiscalCode: "1",
      history: [{ authorityId: "x", mainCpv: "71320000-7", valueRon: null, title: STUDY.title }]
    })
    expect(scorePair(won, study, corpus).factors.cpv.score).toBeGreaterThan(STATED_TEXT_MAX_SCORE + 0.1)
  })

  it("never lowers a code match: a tender inside a watched code keeps the tree's score", () => {
    const office = designOffice()
    const water = prepareTender(WATER_DESIGN)
    expect(statedTextScore(office, water, corpus)).toBe(0) // one word in common: below the threshold
    expect(scorePair(office, water, corpus).factors.cpv).toMatchObject({ score: 0.97, cpv_type: "primary" })
  })

  it("a weak match (a word or two in common) does not count", () => {
    const office = designOffice()
    for (const tender of [SUPERVISION, CATERING]) {
      const prepared = prepareTender(tender)
      expect(statedTextMatch(office, prepared, corpus)).toBeLessThan(STATED_TEXT_MIN_MATCH)
      expect(statedTextScore(office, prepared, corpus)).toBe(0)
    }
    // Supervision shares the division 71 with the watched code: the tree's 0.3 stands.
    expect(scorePair(office, prepareTender(SUPERVISION), corpus).factors.cpv.score).toBe(0.3)
  })

  it("reads the watchlists' keywords as stated words too", () => {
    const keywords = ["studiu de fezabilitate", "DALI", "clădiri publice"]
    const keywordsOnly = designOffice({
      description: "",
      watchlists: [watchlist({ cpvCodes: ["71320000-7"], keywords })]
    })
    expect(keywordsOnly.statedTerms).toEqual(["cladir", "dali", "fezabilitat", "public", "studi"])
    const study = prepareTender(STUDY)
    // The same words as a description or as keywords: the same match.
    const described = designOffice({ description: keywords.join(", "), watchlists: [] })
    expect(statedTextMatch(keywordsOnly, study, corpus)).toBeCloseTo(statedTextMatch(described, study, corpus), 10)
    const score = scorePair(keywordsOnly, study, corpus)
    expect(score.factors.cpv.score).toBeGreaterThanOrEqual(STATED_TEXT_MIN_MATCH)
    expect(score.factors.cpv.cpv_type).toBe("none")
  })

  it("is not taken by a company without codes: nothing for the text to compete with, the semantic factor ranks it", () => {
    const wordsOnly = designOffice({ watchlists: [] })
    const study = prepareTender(STUDY)
    expect(wordsOnly.profileCodes).toEqual([])
    expect(statedTextMatch(wordsOnly, study, corpus)).toBeGreaterThanOrEqual(STATED_TEXT_MIN_MATCH)
    expect(scorePair(wordsOnly, study, corpus).factors.cpv.score).toBe(0)
    // A watched code anywhere opens the route.
    const watchingCleaning = designOffice({ watchlists: [watchlist({ cpvCodes: ["90910000-9"] })] })
    expect(scorePair(watchingCleaning, study, corpus).factors.cpv.score).toBeGreaterThanOrEqual(STATED_TEXT_MIN_MATCH)
  })

  it("counts only for a tender of a kind of contract the company's codes name: a project's consultancy does not read like its supplier", () => {
    expect(
      ["45233142-6", "30213100-6", "48000000-8", "03000000-1", "79411000-8", "71320000-7"].map(contractKindOf)
    ).toEqual(["works", "supplies", "supplies", "supplies", "services", "services"])
    const supplier = designOffice({
      description: "Furnizăm mobilier școlar, materiale didactice și echipamente digitale pentru școli",
      watchlists: [watchlist({ cpvCodes: ["39160000-1"] })]
    })
    const project = "pentru proiectul Dotarea cu mobilier scolar, materiale didactice si echipamente digitale a scolii"
    const consultancy = prepareTender(notice("consultancy", `Servicii de consultanta ${project}`, "79411000-8"))
    const laptops = prepareTender(notice("it", `Furnizare echipamente digitale ${project}`, "30213100-6"))
    // Both read like the supplier's description...
    expect(statedTextMatch(supplier, consultancy, corpus)).toBeGreaterThanOrEqual(STATED_TEXT_MIN_MATCH)
    expect(statedTextMatch(supplier, laptops, corpus)).toBeGreaterThanOrEqual(STATED_TEXT_MIN_MATCH)
    // ...but only the supply counts in cpv: the consultancy is a service, the supplier's code a supply.
    expect(scorePair(supplier, consultancy, corpus).factors.cpv.score).toBe(0)
    expect(scorePair(supplier, laptops, corpus).factors.cpv.score).toBeGreaterThanOrEqual(STATED_TEXT_MIN_MATCH)
  })

  it("names the words the tender shares with the description, in English and in Romanian", () => {
    const office = designOffice()
    const study = prepareTender(STUDY)
    expect(explainPair(office, study, corpus, "en").cpv).toBe(
      "the tender reads like your description: both say cladirii, dali, fezabilitate, studiu"
    )
    expect(explainPair(office, study, corpus, "ro").cpv).toBe(
      "licitația seamănă cu descrierea dvs.: ambele spun cladirii, dali, fezabilitate, studiu"
    )
    const withKeywords = designOffice({ watchlists: [watchlist({ cpvCodes: ["71320000-7"], keywords: ["DALI"] })] })
    expect(explainPair(withKeywords, study, corpus, "en").cpv).toMatch(
      /^the tender reads like your description and keywords: both say /
    )
    expect(explainPair(withKeywords, study, corpus, "ro").cpv).toMatch(
      /^licitația seamănă cu descrierea și cuvintele cheie ale dvs\.: ambele spun /
    )
    // A code match keeps its own reason.
    expect(explainPair(office, prepareTender(WATER_DESIGN), corpus, "en").cpv).toBe(
      "main CPV 71322000-1 lies in your watched class 7132"
    )
  })
})
