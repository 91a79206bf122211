import { describe, expect, it } from "@effect/vitest"
import { type AwardInput, prepareCompany, prepareTender, type TenderInput } from "../../src/domain/scoring/Inputs.js"
import { MODEL_VERSION, scorePair } from "../../src/domain/scoring/Model.js"
import {
  bm25,
  buildCorpusStats,
  companySemanticScale,
  companySemanticScore,
  profileBm25,
  SEMANTIC_PROFILE_SHARE,
  SEMANTIC_SCALE,
  semanticScaleOf,
  semanticScore,
  weightedBm25
} from "../../src/domain/scoring/Semantic.js"
import { wonTitleMatches } from "../../src/domain/scoring/WonTitles.js"
import { notice as tenderNotice } from "./TenderInputs.js"

/**
 * The semantic factor's scale grows with the company's own text (Semantic.semanticScaleOf, model
 * tsm-1.6.0), on titles of real SEAP direct awards (bench/data): a firm that won technical
 * verifications of designs for the energy renovation of blocks and schools in one town (and two other
 * jobs), against the next ones, and a firm known by a two-sentence description.
 */

/** The notices of this file are of 40,000 RON. */
const notice = (id: string, title: string, mainCpv: string) => tenderNotice(id, title, mainCpv, { valueRon: 40_000 })

const WON_TITLES = [
  "Servicii de verificare tehnică a proiectarii pentru proiectul „ Renovare energetică moderată a clădirii rezidențiale multifamiliale bloc nr.U1 din Municipiul Fetești, str.Calarasi”",
  "Servicii de verificare tehnică a proiectarii pentru proiectul „Renovare energetică moderată a clădirii rezidențiale multifamiliale bloc Ansamblul 56 din Municipiul Fetești, str. Ardealului”",
  "Servicii de verificare tehnica a proiectarii, pentru proiectul „ Renovare energetică moderată a clădirii rezidențiale multifamiliale bloc nr.16PP din Municipiul Fetești, str.Ardealului”",
  "Servicii de verificare a documentatiilor tehnice in cadrul proiectului „RENOVARE ENERGETICĂ A CLĂDIRII PUBLICE DIN JUDETUL IALOMITA, MUNICIPIUL FETEȘTI, STR.CĂLĂRAȘI NR. 229-SCOALA GIMNAZIALA",
  "Servicii de verificare tehnica a proiectarii in cadrul proiectului „Renovare energetica a cladirii publice din Judetul Ialomita, Municipiul Fetesti, str. Calarasi, nr. 549”, finantat prin PNRR",
  "Servicii de verificare a proiectarii in cadrul proiectului „Construire a 5 ansambluri de locuințe nZEB plus pentru tineri în Municipiul Fetești”, derulat prin PNRR , componenta 10",
  "Servicii de proiectare și asistență tehnică pentru modernizarea iluminatului public în orașul Țăndărei",
  "Elaborare documentație tehnică pentru obținerea autorizației de securitate la incendiu a sediului primăriei"
]
const history: ReadonlyArray<AwardInput> = WON_TITLES.map((title, i) => ({
  authorityId: `fetesti-${i}`,
  mainCpv: "71328000-3",
  valueRon: 30_000,
  title
}))

/** The next block of the same programme: reads like most of the firm's contracts. */
const NEXT_BLOCK = notice(
  "next-block",
  "Servicii de verificare tehnica a proiectarii pentru proiectul „Renovare energetica moderata a cladirii rezidentiale multifamiliale bloc nr. 7 din Municipiul Fetesti, str. Calarasi”",
  "71328000-3"
)
/** Another town's verification of a school's design: the firm's trade, but fewer of its words. */
const OTHER_SCHOOL = notice(
  "other-school",
  "Servicii de verificare tehnica a proiectului pentru renovarea energetica a scolii gimnaziale din comuna Mihail Kogălniceanu",
  "71328000-3"
)
const pool: ReadonlyArray<TenderInput> = [
  NEXT_BLOCK,
  OTHER_SCHOOL,
  notice("roads", "Servicii de reparații curente la drumurile comunale din satele Bogdănești și Vlădeni", "45233142-6"),
  notice("cleaning", "Servicii de curățenie pentru sediul Direcției de Asistență Socială", "90910000-9"),
  notice("press", "SERVICII PUBLICITARE- PUBLICARE COMUNICAT PRESA PROIECT PRIN PNRR C15", "22462000-6"),
  notice("laptops", "Echipamente IT pentru proiectul Centrul de orientare in cariera - PNRR", "30213100-6"),
  notice("study", "Elaborare studiu de fezabilitate pentru extinderea rețelei de apă potabilă", "71241000-9"),
  notice(
    "supervision",
    "Servicii de dirigenție de șantier pentru lucrările de construire a grădiniței cu program prelungit",
    "71520000-9"
  ),
  notice("furniture", "Achizitia de mobilier scolar in cadrul proiectului PNRR C15 Educatie", "39160000-1"),
  notice("catering", "Servicii de catering - PNRR 275, PROIECT PEPER", "55500000-5"),
  notice(
    "f0",
    "Servicii de dezvoltare a unei aplicatii web-based ”Program de gestionare a impaduririlor- PNRR”",
    "48517000-5"
  ),
  notice(
    "f1",
    "Servicii de consultanta in managementul pentru fundamentarea/depunerea cererilor de finantare pentru PNRR",
    "79411000-8"
  ),
  notice("f2", "SERVICII CONSULTANTA ACCESARE LINII DE FINANTARE PNRR", "66171000-9"),
  notice("f3", "SERVICII CONSULTANTA DEPUNERE PROIECTE PNRR", "79411000-8"),
  notice("f4", "Servicii de consultanta proiect Componentei C10-Fondul Local (PNRR)", "79411000-8"),
  notice("f5", "Servicii de consultanta elaborare cerere de finantare PNRR C5", "73220000-0"),
  notice("f6", "INTOCMIRE CERERE FINANTARE PNRR APEL DE PROIECT MS-0001", "79400000-8"),
  notice("f7", "SERVICII CONSULTANTA SCRIERE PROIECTE DE FINANTARE PNRR - 2 BUC", "79421200-3"),
  notice("f8", "CONSULTANTA DEPUNERE PROIECTE PNRR -DISPENSAR UMAN SI CAMIN CULTURAL", "72224000-1"),
  notice("f9", "Servicii consultanta depunere cererei PNRR", "79411000-8"),
  notice("f10", "Achizitionare servicii de publicare comunicat de presa PNRR C10 GIS", "79341000-6"),
  notice("f11", "Robot colaborativ cu doua brate - Proiect TRADISMART - PNRR", "42997300-4"),
  notice("f12", "Calorimetru Diferential cu Scanare - Proiect TRADISMART - PNRR", "38418000-8"),
  notice("f13", "Publicare in Ziar Bursa Privind Incepere Proiect PNRR", "98390000-3"),
  notice("f14", "Panou de informare a publicului, Etapa PUZ, in cadrul PNRR/2022/C13/MMSS/I2", "35261000-1")
]
/** A corpus of ~300 tenders, as the scorer's sample is mostly other trades: the other notices, lot by lot. */
const others = pool.filter((n) => n !== NEXT_BLOCK && n !== OTHER_SCHOOL)
const corpus = buildCorpusStats(
  [
    ...pool,
    ...Array.from({ length: 11 }, (_, lot) => others.map((n) => ({ ...n, title: `${n.title} LOT ${lot + 2}` }))).flat()
  ].map(prepareTender)
)

/** The firm lists its references as its description, as a consultant copies them from its offer, and won them. */
const longProfile = prepareCompany({
  id: "verif",
  description: WON_TITLES.join(". "),
  fiscalCode: "1",
  watchlists: [],
  history
})
/** A firm known by three words of its trade. */
const shortProfile = prepareCompany({ id: "dirig", description: "Dirigenție de șantier", watchlists: [], history: [] })
/** The same references known only as won awards (no description): a word of one title in eight weighs 1/8. */
const historyOnly = prepareCompany({ id: "verif-h", description: "", fiscalCode: "1", watchlists: [], history })

describe(`the semantic factor's scale (${MODEL_VERSION})`, () => {
  it("is SEMANTIC_SCALE for a profile of a few words, and a share of the profile's own BM25 weight for a long one", () => {
    expect(SEMANTIC_SCALE).toBe(8)
    expect(SEMANTIC_PROFILE_SHARE).toBe(0.2)
    const short = profileBm25(shortProfile.queryTerms, corpus, shortProfile.queryWeights)
    expect(SEMANTIC_PROFILE_SHARE * short).toBeLessThan(SEMANTIC_SCALE)
    expect(companySemanticScale(shortProfile, corpus)).toBe(SEMANTIC_SCALE)
    const long = profileBm25(longProfile.queryTerms, corpus, longProfile.queryWeights)
    expect(companySemanticScale(longProfile, corpus)).toBeCloseTo(SEMANTIC_PROFILE_SHARE * long, 10)
    expect(companySemanticScale(longProfile, corpus)).toBeGreaterThan(SEMANTIC_SCALE)
  })

  it("the profile's weight is weight × idf summed over its query: a word of one title in eight counts an eighth", () => {
    const idfOf = (term: string) => {
      const df = corpus.documentFrequencies.get(term) ?? 0
      return Math.log(1 + (corpus.documentCount - df + 0.5) / (df + 0.5))
    }
    let expected = 0
    for (const term of historyOnly.queryTerms) expected += historyOnly.queryWeights.get(term)! * idfOf(term)
    expect(profileBm25(historyOnly.queryTerms, corpus, historyOnly.queryWeights)).toBeCloseTo(expected, 10)
    // "iluminat" is in one won title of eight: it weighs 1/8; a description's words weigh 1.
    const term = [...historyOnly.awardTerms].find((t) => t.startsWith("ilumin"))!
    expect(historyOnly.queryWeights.get(term)).toBeCloseTo(1 / 8, 10)
    expect(longProfile.queryWeights.get(term)).toBe(1)
    expect(companySemanticScale(historyOnly, corpus)).toBeLessThan(companySemanticScale(longProfile, corpus))
  })

  it("tells the next contract of the firm's programme from a tender sharing only its trade better than one fixed scale", () => {
    const next = prepareTender(NEXT_BLOCK)
    const other = prepareTender(OTHER_SCHOOL)
    const atFixedScale = (t: typeof next) =>
      semanticScore(longProfile.queryTerms, t, corpus, longProfile.queryWeights, undefined, SEMANTIC_SCALE)
    // At the fixed scale the next block is at the factor's ceiling and the other school near it:
    // 0.25 × their difference is under 3 points of the overall score.
    expect(atFixedScale(next)).toBeGreaterThan(0.99)
    expect(atFixedScale(other)).toBeGreaterThan(0.85)
    expect(0.25 * 100 * (atFixedScale(next) - atFixedScale(other))).toBeLessThan(3)
    // At the company's scale neither is at the ceiling and the gap is over 7 points.
    const nextScore = companySemanticScore(longProfile, next, corpus)
    const otherScore = companySemanticScore(longProfile, other, corpus)
    expect(nextScore).toBeLessThan(0.7)
    expect(0.25 * 100 * (nextScore - otherScore)).toBeGreaterThan(7)
    const pair = (t: typeof next) => scorePair(longProfile, t, corpus)
    expect(pair(next).factors.semantic.score).toBeCloseTo(nextScore, 4)
    expect(pair(next).overallScore).toBeGreaterThan(pair(other).overallScore)
  })

  it("leaves a short profile's semantic factor as the fixed scale gave it", () => {
    const t = prepareTender(pool.find((n) => n.id === "supervision")!)
    const fixed = semanticScore(
      shortProfile.queryTerms,
      t,
      corpus,
      shortProfile.queryWeights,
      undefined,
      SEMANTIC_SCALE
    )
    expect(fixed).toBeGreaterThan(0.5)
    expect(companySemanticScore(shortProfile, t, corpus)).toBeCloseTo(fixed, 12)
    expect(scorePair(shortProfile, t, corpus).factors.semantic.score).toBeCloseTo(fixed, 4)
  })

  it("walking the tender's words gives the BM25 of walking the query's, and the same shared words", () => {
    for (const input of pool) {
      const t = prepareTender(input)
      for (const company of [longProfile, historyOnly, shortProfile]) {
        const byQuery: Array<{ term: string; contribution: number }> = []
        const byTender: Array<{ term: string; contribution: number }> = []
        const a = bm25(company.queryTerms, t, corpus, company.queryWeights, byQuery)
        const b = weightedBm25(company.queryWeights, t, corpus, byTender)
        expect(b).toBeCloseTo(a, 10)
        const sorted = (xs: typeof byQuery) => [...xs].sort((x, y) => (x.term < y.term ? -1 : 1))
        expect(sorted(byTender)).toEqual(sorted(byQuery))
      }
    }
  })

  it("is worked out again for a new corpus snapshot", () => {
    const smaller = buildCorpusStats(pool.slice(0, 4).map(prepareTender))
    const before = companySemanticScale(longProfile, corpus)
    const after = companySemanticScale(longProfile, smaller)
    expect(after).toBeCloseTo(semanticScaleOf(longProfile.queryTerms, smaller, longProfile.queryWeights), 10)
    expect(after).not.toBeCloseTo(before, 3)
    expect(companySemanticScale(longProfile, corpus)).toBe(before)
  })

  it("does not change the won-title route's own scale: one title is matched at SEMANTIC_SCALE", () => {
    const matches = wonTitleMatches(longProfile, prepareTender(NEXT_BLOCK), corpus)
    expect(matches).not.toBeNull()
    expect(Math.max(...matches!)).toBeGreaterThan(0.9)
    // A tender sharing a word or two with the titles reaches no title's threshold: no matches at all.
    expect(wonTitleMatches(longProfile, prepareTender(pool.find((n) => n.id === "cleaning")!), corpus)).toBeNull()
  })
})
