import { describe, expect, it } from "@effect/vitest"
import { historicalScore } from "../../src/domain/scoring/Historical.js"
import {
  type AwardInput,
  type CompanyInput,
  prepareCompany,
  prepareTender,
  type TenderInput
} from "../../src/domain/scoring/Inputs.js"
import { emptyFindings, scorePair } from "../../src/domain/scoring/Model.js"
import { explainPair, shortTitle } from "../../src/domain/scoring/Reasons.js"
import { buildCorpusStats, termContribution } from "../../src/domain/scoring/Semantic.js"
import { STATED_TEXT_MAX_SCORE } from "../../src/domain/scoring/StatedText.js"
import { stems, workAndProjectStems } from "../../src/domain/scoring/Text.js"
import { PROJECT_NAME_WEIGHT } from "../../src/domain/scoring/WonTitleIndex.js"
import {
  bestWonTitle,
  sharedWithWonTitle,
  WON_TITLE_HISTORY_SHARE,
  WON_TITLE_MIN_MATCH,
  WORK_MATCH_SCALE,
  WORK_MIN_SHARED,
  wonTitleMatches
} from "../../src/domain/scoring/WonTitles.js"
import { notice, watchlist } from "./TenderInputs.js"

/**
 * The text route to the contracts a company won (WonTitles.ts, model tsm-1.5.0), on titles of real
 * SEAP direct awards (bench/data): a school's IT lot and its furniture lot, a press notice coded as
 * printed material and as publicity services, a feasibility study and the design that follows it.
 */

const IT_LOT = notice(
  "it-lot",
  "Achizitia de echipamente TIC (LOT 1) in cadrul proiectului: – “DOTAREA CU MOBILIER, MATERIALE DIDACTICE ȘI ECHIPAMENTE A UNITĂȚII DE ÎNVĂȚĂMÂNT PREUNIVERSITAR ȘCOALA GIMNAZIALĂ NR. 1, SAT DELEȘTI” , finantat in cadrul PNRR - Componenta C15 - Educatie",
  "30000000-9",
  { authorityId: "scoala-delesti" }
)
const FURNITURE_LOT = notice(
  "furniture-lot",
  "Achizitia de mobilier (LOT 2) in cadrul proiectului: – “DOTAREA CU MOBILIER, MATERIALE DIDACTICE ȘI ECHIPAMENTE A UNITĂȚII DE ÎNVĂȚĂMÂNT PREUNIVERSITAR ȘCOALA GIMNAZIALĂ NR. 1, SAT DELEȘTI” , finantat in cadrul PNRR - Componenta C15 - Educatie",
  "39160000-1",
  { authorityId: "scoala-delesti" }
)
const STAMPS = notice("stamps", "STAMPILE PROIECTE PNRR", "30192153-8")
const PRESS_AS_PRINT = notice(
  "press-print",
  "SERVICII PUBLICITARE- PUBLICARE COMUNICAT PRESA PROIECT PRIN PNRR C15",
  "22462000-6"
)
const PRESS_AS_ADS = notice("press-ads", "SERVICII PUBLICITARE- COMUNICAT PRESA PNRR C15", "79341000-6")

const pool: ReadonlyArray<TenderInput> = [
  IT_LOT,
  FURNITURE_LOT,
  STAMPS,
  PRESS_AS_PRINT,
  PRESS_AS_ADS,
  notice("roads", "Lucrări de reabilitare drumuri județene DJ 101, asfaltare și marcaje rutiere", "45233142-6"),
  notice("cleaning", "Servicii de curățenie pentru sediul primăriei", "90910000-9"),
  notice(
    "laptops",
    "Echipamente IT pentru proiectul Centrul de orientare in cariera de cercetator - PNRR",
    "30213100-6"
  ),
  notice("study", "Servicii de elaborare studiu de fezabilitate pentru modernizare drum comunal", "71241000-9"),
  notice("supervision", "Servicii de dirigenție de șantier pentru reabilitarea școlii gimnaziale", "71520000-9"),
  notice("books", "Achiziție cărți și materiale didactice pentru biblioteca școlară", "22111000-1"),
  notice("catering", "Servicii de catering pentru evenimentul de lansare a proiectului", "55520000-1")
]
const corpus = buildCorpusStats(pool.map(prepareTender))

const won = (t: TenderInput): AwardInput => ({
  authorityId: t.authorityId,
  mainCpv: t.mainCpv,
  valueRon: t.valueRon,
  title: t.title
})
const company = (history: ReadonlyArray<AwardInput>, overrides: Partial<CompanyInput> = {}) =>
  prepareCompany({ id: "c", description: "", fiscalCode: "123", watchlists: [], history, ...overrides })

describe("the text route to won contracts (tsm-1.5.0)", () => {
  it("a school's furniture lot reads like the IT lot the company won: cpv by text, ranked above stamps inside the won division", () => {
    const socub = company([won(IT_LOT)])
    const furniture = prepareTender(FURNITURE_LOT)
    const matches = wonTitleMatches(socub, furniture, corpus)
    // "Achiziția … (LOT n)" and the project's long name, which weighs half (tsm-1.8.0): above 0.9 at full weight.
    expect(matches![0]).toBeGreaterThan(0.7)
    const score = scorePair(socub, furniture, corpus)
    // The CPV tree says 30 and 39 are unrelated; the title says it is the same project's other lot.
    expect(score.factors.cpv.score).toBeCloseTo(matches![0]!, 3)
    expect(score.factors.cpv.cpv_type).toBe("none")
    const stamps = scorePair(socub, prepareTender(STAMPS), corpus)
    expect(stamps.factors.cpv.score).toBe(0.91) // inside the won division code 30000000 (graded, tsm-1.7.0)
    expect(score.overallScore).toBeGreaterThan(stamps.overallScore)
  })

  it("the same press notice, coded as printed material and won, then as publicity services", () => {
    const euroIris = company([won(PRESS_AS_PRINT)])
    const ads = prepareTender(PRESS_AS_ADS)
    const score = scorePair(euroIris, ads, corpus)
    expect(score.factors.cpv.score).toBeGreaterThanOrEqual(WON_TITLE_MIN_MATCH)
    // Without the title the tree alone knows nothing of 79 from 22.
    const { title: _, ...withoutTitle } = won(PRESS_AS_PRINT)
    const untitled = company([withoutTitle])
    expect(scorePair(untitled, ads, corpus).factors.cpv.score).toBe(0)
    expect(score.overallScore).toBeGreaterThan(scorePair(untitled, ads, corpus).overallScore)
  })

  it("a weak match (one common word) does not count", () => {
    const socub = company([won(IT_LOT)])
    const catering = prepareTender(pool.find((t) => t.id === "catering")!)
    const match = wonTitleMatches(socub, catering, corpus)?.[0] ?? 0
    expect(match).toBeLessThan(WON_TITLE_MIN_MATCH)
    expect(bestWonTitle(wonTitleMatches(socub, catering, corpus))).toBeNull()
    expect(scorePair(socub, catering, corpus).factors.cpv.score).toBe(0)
  })

  it("matches each title on its own: words spread over several contracts are the semantic factor's, not this", () => {
    const tender = prepareTender(
      notice("mixed", "Reabilitare drumuri județene și catering pentru lansare", "98000000-3")
    )
    const spread = company([
      won(notice("a", "Lucrări de reabilitare drumuri județene", "45233142-6")),
      won(notice("b", "Servicii de catering pentru lansare", "55520000-1"))
    ])
    const joined = company([
      won(notice("ab", "Lucrări de reabilitare drumuri județene. Servicii de catering pentru lansare", "45233142-6"))
    ])
    const each = wonTitleMatches(spread, tender, corpus)!
    const together = wonTitleMatches(joined, tender, corpus)![0]!
    expect(Math.max(...each)).toBeLessThan(together)
    expect(together).toBeGreaterThan(Math.max(...each))
  })

  it("in the historical factor, a won award whose title matches counts up to a same-group award, below one of the same class", () => {
    const furniture = prepareTender(FURNITURE_LOT)
    const history = [won(IT_LOT)]
    const matches = wonTitleMatches(company(history), furniture, corpus)
    const other = { ...FURNITURE_LOT, authorityId: "another-school" }
    const counts = emptyFindings().historical
    const withTitles = historicalScore(other, history, counts, null, matches)
    const without = historicalScore(other, history)
    expect(withTitles - without).toBeCloseTo(0.45 * WON_TITLE_HISTORY_SHARE * matches![0]!, 4)
    expect(counts).toEqual({ fromAuthority: 0, inClass: 0, byTitle: 1 })
    const sameClass = historicalScore(other, [{ ...won(IT_LOT), mainCpv: "39160000-1" }])
    expect(sameClass).toBeGreaterThan(withTitles)
  })

  it("needs contracts won: a description with the same words does not take this route (tsm-1.7.0: the stated-text route, capped below it, when the company has codes)", () => {
    const described = prepareCompany({
      id: "d",
      description: IT_LOT.title,
      watchlists: [],
      history: []
    })
    const furniture = prepareTender(FURNITURE_LOT)
    expect(scorePair(described, furniture, corpus).factors.cpv.score).toBe(0)
    const watching = prepareCompany({
      id: "w",
      description: IT_LOT.title,
      watchlists: [watchlist({ cpvCodes: [IT_LOT.mainCpv] })],
      history: []
    })
    const score = scorePair(watching, furniture, corpus)
    expect(score.factors.cpv.score).toBe(STATED_TEXT_MAX_SCORE)
    expect(score.factors.cpv.cpv_type).toBe("none")
    const wonIt = scorePair(company([won(IT_LOT)]), furniture, corpus)
    expect(wonIt.factors.cpv.score).toBeGreaterThan(score.factors.cpv.score)
  })

  it("goes to the best-matching contract; between equal matches, to the earlier one", () => {
    const furniture = prepareTender(FURNITURE_LOT)
    const twice = company([won(STAMPS), won(IT_LOT), won(IT_LOT)])
    const best = bestWonTitle(wonTitleMatches(twice, furniture, corpus))
    expect(best?.award).toBe(1)
  })

  it("names the contract it reads like and the words both say, in English and in Romanian", () => {
    const euroIris = company([
      won(PRESS_AS_PRINT),
      won(notice("x", "Servicii de curățenie pentru sediul primăriei", "90910000-9"))
    ])
    const ads = prepareTender(PRESS_AS_ADS)
    const en = explainPair(euroIris, ads, corpus, "en")
    expect(en.cpv).toBe(
      'the tender reads like a contract you won in 22462000-6, "SERVICII PUBLICITARE- PUBLICARE COMUNICAT PRESA PROIECT…": both say comunicat, presa, publicitare, c15, pnrr, servicii'
    )
    expect(en.historical).toBe(
      "won 2 contracts: none from this authority, none in class 7934; 1 contract with a title like this tender's"
    )
    const ro = explainPair(euroIris, ads, corpus, "ro")
    expect(ro.cpv).toBe(
      "licitația seamănă cu un contract câștigat de dvs. în 22462000-6, „SERVICII PUBLICITARE- PUBLICARE COMUNICAT PRESA PROIECT…”: ambele spun comunicat, presa, publicitare, c15, pnrr, servicii"
    )
    expect(ro.historical).toBe(
      "ați câștigat 2 contracte: niciunul de la această autoritate, niciunul în clasa 7934; un contract cu un titlu asemănător acestei licitații"
    )
  })

  it("quotes a long title by its first words", () => {
    expect(shortTitle("Servicii de curățenie")).toBe("Servicii de curățenie")
    expect(shortTitle(IT_LOT.title)).toBe("Achizitia de echipamente TIC (LOT 1) in cadrul proiectului…")
  })

  describe("a title's work and the project it was for (tsm-1.8.0)", () => {
    it("splits a title where it starts naming the project: a quote, proiectul, obiectivul, investiția", () => {
      const split = (title: string) => {
        const { work, project } = workAndProjectStems(title)
        return { work: [...work].sort(), project: [...project].sort() }
      }
      expect(split("Servicii de publicitate pentru proiectul „Construire grădiniță Gherla”")).toEqual({
        work: [...stems("servicii publicitate")].sort(),
        project: [...stems("proiectul construire grădiniță gherla")].sort()
      })
      expect(split("Servicii de verificare tehnica pentru obiectivul Renovarea integrata a Gradinitei").work).toEqual(
        [...stems("servicii verificare tehnica")].sort()
      )
      expect(split("Dirigenție de șantier, INVESTIȚIA I.2 Reabilitare termică").work).toEqual(
        [...stems("dirigenție șantier")].sort()
      )
      // "proiect tehnic" and "management de proiect" are work, not a project's name.
      expect(split("Elaborare proiect tehnic și management de proiect").project).toEqual([])
      // No project named, or a work part of fewer than two words: all of it is work.
      expect(split("Servicii consultanta depunere cererei PNRR").project).toEqual([])
      expect(split("Achiziție în cadrul proiectului „Dotare școală”").project).toEqual([])
      expect(split("„Dotarea cu mobilier” - servicii de publicitate").project).toEqual([])
    })

    it("a word only in the project's name counts PROJECT_NAME_WEIGHT of a word of the work", () => {
      const verifier = company([
        won(
          notice(
            "verification",
            "Servicii de verificare tehnică a proiectării pentru proiectul „Renovare energetică moderată a clădirii rezidențiale Fetești”",
            "71328000-3"
          )
        )
      ])
      const supervision = prepareTender(
        notice(
          "site",
          "Servicii de verificare și dirigenție de șantier pentru renovare energetică moderată, Fetești",
          "71520000-9"
        )
      )
      const shared = new Map(sharedWithWonTitle(verifier, supervision, corpus, 0).map((s) => [s.term, s.contribution]))
      const full = (term: string) => termContribution(term, supervision, corpus)
      const [verific, renov, fetest] = stems("verificare renovare fetești")
      expect(shared.get(verific!)).toBeCloseTo(full(verific!), 10)
      expect(shared.get(renov!)).toBeCloseTo(PROJECT_NAME_WEIGHT * full(renov!), 10)
      expect(shared.get(fetest!)).toBeCloseTo(PROJECT_NAME_WEIGHT * full(fetest!), 10)
      expect(PROJECT_NAME_WEIGHT).toBe(0.5)
    })
  })
})

/**
 * Work with work (tsm-1.12.0), on real SEAP titles (bench/data, shortened): a publicity firm that won
 * publicity for one project (coded 22462000) and whose next contract was publicity for another
 * (79341000), while a consultancy tender for the same funding programme shares the won title's
 * project and programme words.
 */
describe("a won title compared work with work (tsm-1.12.0)", () => {
  const PUBLICITY_WON = notice(
    "publicity-won",
    'Servicii de publicitate si informare pe toata perioada de implementare a proiectului "Construirea de insule ecologice digitalizate supraterane în orașul Petrila, județul Hunedoara", finanțat prin Planul Național de Redresare și Reziliență, Componenta 3-Managementul deșeurilor',
    "22462000-6"
  )
  const PUBLICITY_NEXT = notice(
    "publicity-next",
    'Servicii de informare si publicitate pentru proiectul cod F- PNRR- Dotari - 2023 - 3582 intitulat "Dotarea cu mobilier, materiale didactice si echipamente digitale a unitatilor de invatamant preuniversitar din Municipiul Petrosani"',
    "79341000-6"
  )
  const SAME_PROGRAMME = notice(
    "same-programme",
    "Servicii de consultanță pentru derularea contractului de finanțare obținut prin Apelul de proiecte PNRR/2022/C3/S/I.1.B, Componenta C3 – Managementul Deșeurilor, Subinvestiția I1.B. - Construirea de insule ecologice digitalizate pentru proiectul ”Construirea de insule ecologice digitalizate în municipiul Suceava”",
    "72224000-1"
  )
  const ADS = notice("ads", "Servicii de publicitate pentru proiectul Dotarea scolii", "79341000-6")
  const ISLANDS = notice("islands", "Construirea de insule ecologice digitalizate supraterane", "45000000-7")
  const works = [PUBLICITY_WON, PUBLICITY_NEXT, SAME_PROGRAMME, ADS, ISLANDS]
  const worksCorpus = buildCorpusStats([...pool, ...works].map(prepareTender))
  const publicityFirm = company([won(PUBLICITY_WON)])
  const matchOf = (t: TenderInput) => wonTitleMatches(publicityFirm, prepareTender(t), worksCorpus)?.[0] ?? 0

  it("a tender whose title names the work the company won, for another project, matches it: WORK_MATCH_SCALE when the won work has all its work words", () => {
    expect(prepareTender(PUBLICITY_NEXT).titleWork).toEqual(stems("Servicii de informare si publicitate"))
    expect(matchOf(PUBLICITY_NEXT)).toBe(WORK_MATCH_SCALE)
    const next = scorePair(publicityFirm, prepareTender(PUBLICITY_NEXT), worksCorpus)
    expect(next.factors.cpv).toMatchObject({ score: WORK_MATCH_SCALE, cpv_type: "none" })
    // Another trade's tender for the same programme shares many more of the won title's words, none of its work.
    const programme = scorePair(publicityFirm, prepareTender(SAME_PROGRAMME), worksCorpus)
    expect(next.overallScore).toBeGreaterThan(programme.overallScore + 10)
    expect(WORK_MATCH_SCALE).toBe(0.9)
  })

  it("two work words shared are a coincidence, and the won title's project name is not its work", () => {
    expect(WORK_MIN_SHARED).toBe(3)
    // "Servicii de publicitate": two of the won work's words, one of them as general as they come.
    expect(prepareTender(ADS).titleWork).toEqual(stems("Servicii de publicitate"))
    expect(matchOf(ADS)).toBe(0)
    // The project the publicity was for, as a works tender: every word of its title is in the won title's
    // project name, so as work it would match WORK_MATCH_SCALE; it keeps the BM25 of those words at half weight.
    expect(prepareTender(ISLANDS).titleWork.length).toBeGreaterThan(WORK_MIN_SHARED)
    expect(matchOf(ISLANDS)).toBeLessThan(WORK_MATCH_SCALE - 0.3)
  })

  it("names the contract and the words both say in the reason", () => {
    const reasons = explainPair(publicityFirm, prepareTender(PUBLICITY_NEXT), worksCorpus, "en")
    expect(reasons.cpv).toContain("Servicii de publicitate si informare")
    expect(reasons.cpv).toMatch(/informar|publicitat/)
  })
})
