import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  bestCpvMatch,
  codeMatch,
  INSIDE,
  INSIDE_LEVEL_STEP,
  significantDigits
} from "../../src/domain/scoring/CpvMatch.js"
import { historicalScore, placeShareWithoutHistory } from "../../src/domain/scoring/Historical.js"
import {
  type CompanyInput,
  prepareCompany,
  prepareTender,
  type TenderInput,
  type WatchlistInput
} from "../../src/domain/scoring/Inputs.js"
import { containsPhrase, keywordScore } from "../../src/domain/scoring/KeywordMatch.js"
import {
  alertingWatchlists,
  CANDIDATE_MIN_CPV,
  isCandidate,
  passesWatchlist
} from "../../src/domain/scoring/Matching.js"
import {
  CONFIDENCE_PENALTIES,
  factorBreakdown,
  MODEL_VERSION,
  overallScoreOf,
  scorePair,
  VERDICT_THRESHOLDS,
  verdictOf,
  WEIGHTS
} from "../../src/domain/scoring/Model.js"
import { buildCorpusStats, emptyCorpusStats, semanticScore } from "../../src/domain/scoring/Semantic.js"
import { keywordAnchor, spellingsOf, stem, stems } from "../../src/domain/scoring/Text.js"
import { valueFitScore } from "../../src/domain/scoring/ValueFit.js"
import { watchlist } from "./TenderInputs.js"

const tender = (overrides: Partial<TenderInput> = {}): TenderInput => ({
  id: "t1",
  title: "Lucrări de reabilitare drumuri județene",
  description: "Reabilitarea drumului județean DJ 101, inclusiv asfaltare și marcaje rutiere.",
  mainCpv: "45233142-6",
  additionalCpvs: [],
  authorityId: "auth-1",
  valueRon: 2_000_000,
  ...overrides
})

const company = (overrides: Partial<CompanyInput> = {}): CompanyInput => ({
  id: "c1",
  description: "",
  watchlists: [watchlist()],
  history: [],
  ...overrides
})

const corpus = buildCorpusStats(
  [
    tender(),
    tender({ title: "Furnizare calculatoare și imprimante", description: "Echipamente IT pentru școli" }),
    tender({ title: "Servicii de curățenie", description: "Curățenie birouri și spații comune" }),
    tender({ title: "Servicii de proiectare", description: "Proiectare drumuri și poduri" }),
    tender({ title: "Furnizare mobilier școlar", description: "Bănci, scaune și catedre" }),
    // A realistic share of unrelated notices, so rare words weigh like in a real corpus.
    ...Array.from({ length: 60 }, (_, i) =>
      tender({ title: `Furnizare produse lot ${i}`, description: `Achiziție de bunuri diverse, contract ${i}` })
    )
  ].map(prepareTender)
)

describe("text", () => {
  it("folds diacritics (comma-below, cedilla, none) and stems inflections to the same stem", () => {
    expect(stems("Lucrări")).toEqual(stems("lucrari"))
    expect(stems("construcţii")).toEqual(stems("construcții"))
    expect(stem("drumurilor")).toBe(stem("drumuri"))
    expect(stem("calculatoare")).toBe(stem("calculatorul"))
    expect(stems("servicii de curățenie")).toEqual(["servic", "curatenie"].map(stem))
  })

  it("keeps stems at least five letters long, so anchors are prefixes of stems", () => {
    for (const word of ["drumuri", "scoli", "lucrari", "servicii"]) expect(stem(word).length).toBeGreaterThanOrEqual(5)
    expect(keywordAnchor("Servicii de curățenie")).toBe("curat")
    expect(keywordAnchor("de")).toBeNull()
  })

  it('reads a lower-case "pt" as "pentru" (a function word) and keeps the capitals "PT" (proiect tehnic), as spelt (tsm-1.8.0)', () => {
    expect(stems("Servicii de consultanta pt intocmire cerere")).toEqual(
      stems("Servicii de consultanta intocmire cerere")
    )
    expect(stems("Consultanță Pt. proiect")).toEqual(stems("Consultanță proiect"))
    expect(stems("elaborare DTAC+PT+DDE")).toEqual(["elaborare", "dtac", "pt", "dde"].map(stem))
    // Only the whole word: "pte", "apt" and "PT2" are other words.
    expect(stems("PTE apt pt2")).toEqual(["pte", "apt", "pt2"])
    expect(spellingsOf("Elaborare PT și consultanță pt cerere").get("pt")).toBe("pt")
    expect(spellingsOf("consultanță pt cerere").has("pt")).toBe(false)
  })
})

describe("cpv factor", () => {
  it("scores by the depth of the best hierarchical match", () => {
    expect(significantDigits("45233142-6")).toBe("45233142")
    expect(significantDigits("45000000-7")).toBe("45")
    expect(codeMatch("45233142-6", "45233142-6")).toBe(1) // the very code
    expect(codeMatch("45233142-6", "45233000-9")).toBe(1) // inside the watched category: graded no finer
    expect(codeMatch("45233142-6", "45230000-8")).toBe(0.97) // inside the watched class, one level below
    expect(codeMatch("45233142-6", "45200000-9")).toBe(0.94) // inside the watched group
    expect(codeMatch("45233142-6", "45000000-7")).toBe(0.91) // inside the watched division
    expect(codeMatch("45200000-9", "45200000-9")).toBe(1) // a group code watched and tendered
    expect(codeMatch("45233142-6", "45233200-1")).toBe(0.85) // shares 45233
    expect(codeMatch("45233142-6", "45234000-6")).toBe(0.75) // same class 4523
    expect(codeMatch("45233142-6", "45240000-1")).toBe(0.55) // same group 452
    expect(codeMatch("45233142-6", "45100000-8")).toBe(0.3) // same division only
    expect(codeMatch("45233142-6", "71000000-8")).toBe(0)
  })

  it("grades a match inside a watched code by the levels below it, always above any match outside (tsm-1.7.0)", () => {
    expect(INSIDE_LEVEL_STEP).toBe(0.03)
    // The same tender code under watched codes from the division down to the code itself.
    const watched = ["45000000-7", "45200000-9", "45230000-8", "45233000-9", "45233100-0", "45233142-6"]
    const scores = watched.map((code) => codeMatch("45233142-6", code))
    expect(scores).toEqual([0.91, 0.94, 0.97, 1, 1, 1])
    // Never below the best match outside a watched code (a shared category, 0.85).
    expect(Math.min(...scores)).toBeGreaterThan(codeMatch("45233142-6", "45233200-1"))
    // A tender of the watched group code itself scores above one in another category of that group.
    expect(codeMatch("79400000-8", "79400000-8")).toBeGreaterThan(codeMatch("79411000-8", "79400000-8"))
    // The candidate rule's class threshold is still reached by every match inside.
    expect(Math.min(...scores)).toBeGreaterThanOrEqual(CANDIDATE_MIN_CPV)
  })

  it("tells whether the main or an additional code matched", () => {
    // With the pair that gave the score: its evidence (the reason names it).
    expect(bestCpvMatch("45233142-6", ["71320000-7"], ["45000000-7"])).toEqual({
      score: 0.91,
      cpvType: "primary",
      tenderCode: "45233142-6",
      profileCode: "45000000-7",
      depth: INSIDE
    })
    expect(bestCpvMatch("45233142-6", ["71320000-7"], ["71300000-1"])).toEqual({
      score: 0.97 * 0.9,
      cpvType: "additional",
      tenderCode: "71320000-7",
      profileCode: "71300000-1",
      depth: INSIDE
    })
    expect(bestCpvMatch("45233142-6", [], ["30200000-1"])).toEqual({
      score: 0,
      cpvType: "none",
      tenderCode: null,
      profileCode: null,
      depth: 0
    })
  })
})

describe("keyword factor", () => {
  it("matches phrases as contiguous stems, in title or description, and grows with hits", () => {
    expect(containsPhrase(["a", "b", "c"], ["b", "c"])).toBe(true)
    expect(containsPhrase(["a", "b", "c"], ["a", "c"])).toBe(false)
    const t = prepareTender(tender())
    const phrases = (keywords: Array<string>) =>
      prepareCompany(company({ watchlists: [watchlist({ keywords })] })).phrases
    expect(keywordScore(phrases([]), t)).toBe(0)
    expect(keywordScore(phrases(["marcaje rutiere"]), t)).toBeGreaterThan(0) // description only
    expect(keywordScore(phrases(["reabilitare drumuri"]), t)).toBeGreaterThan(
      keywordScore(phrases(["marcaje rutiere"]), t)
    )
    expect(keywordScore(phrases(["drumuri reabilitare"]), t)).toBe(0) // order matters in a phrase
    expect(keywordScore(phrases(["reabilitare drumuri", "marcaje rutiere"]), t)).toBeGreaterThan(
      keywordScore(phrases(["reabilitare drumuri"]), t)
    )
  })
})

describe("semantic factor", () => {
  it("is higher for a profile about the tender's subject, zero with nothing in common", () => {
    const t = prepareTender(tender())
    const roads = prepareCompany(
      company({ description: "Construim și reabilităm drumuri, asfaltare, marcaje rutiere" })
    )
    const it = prepareCompany(company({ description: "Furnizăm calculatoare și imprimante" }))
    expect(semanticScore(roads.queryTerms, t, corpus)).toBeGreaterThan(0.3)
    expect(semanticScore(it.queryTerms, t, corpus)).toBe(0)
    expect(semanticScore(roads.queryTerms, t, emptyCorpusStats)).toBeGreaterThan(0)
  })
})

describe("value fit factor", () => {
  it("is 1 inside the range, decays smoothly outside, neutral without data", () => {
    expect(valueFitScore(500, 100, 1000)).toBe(1)
    expect(valueFitScore(2000, 100, 1000)).toBeCloseTo(Math.exp(-0.5), 6)
    expect(valueFitScore(4000, 100, 1000)).toBeLessThan(valueFitScore(2000, 100, 1000))
    expect(valueFitScore(50, 100, 1000)).toBeCloseTo(Math.exp(-0.5), 6)
    expect(valueFitScore(null, 100, 1000)).toBe(0.5)
    expect(valueFitScore(500, null, null)).toBe(0.5)
  })
})

describe("historical factor", () => {
  it("is neutral without history, rises with same authority, CPV class and similar value", () => {
    const t = tender()
    expect(historicalScore(t, [])).toBe(0.5)
    const unrelated = historicalScore(t, [{ authorityId: "other", mainCpv: "30200000-1", valueRon: 10 }])
    const sameClass = historicalScore(t, [{ authorityId: "other", mainCpv: "45233000-9", valueRon: 10 }])
    const full = historicalScore(t, [{ authorityId: "auth-1", mainCpv: "45233000-9", valueRon: 2_000_000 }])
    expect(unrelated).toBeLessThan(sameClass)
    expect(sameClass).toBeLessThan(full)
    expect(full).toBeCloseTo(1, 6)
  })

  it("without history, counts a nearby tender's place as far as the tender is of the trade (tsm-1.11.0)", () => {
    const t = tender()
    const inCounty = { distance: 0, proximity: 1 }
    expect(historicalScore(t, [], undefined, inCounty)).toBeCloseTo(0.35 + 0.65 * 0.5, 6)
    expect(historicalScore(t, [], undefined, inCounty, null, 0.4)).toBeCloseTo(0.35 * 0.4 + 0.65 * 0.5, 6)
    // Not of its trade: as if it were far away.
    expect(historicalScore(t, [], undefined, inCounty, null, 0)).toBeCloseTo(0.65 * 0.5, 6)
    // The better of the cpv and semantic factors: codes or words.
    expect(placeShareWithoutHistory(0.6, 0.8)).toBe(0.8)
    expect(placeShareWithoutHistory(1, 0.2)).toBe(1)
    // With history the share is not asked: the whole place share counts (0.7 × proximity).
    const award = { authorityId: "other", mainCpv: "30200000-1", valueRon: null }
    expect(historicalScore(t, [award], undefined, inCounty, null, 0)).toBe(
      historicalScore(t, [award], undefined, inCounty, null, 1)
    )
  })
})

describe("overall score", () => {
  it("sums weight × score × 100 into a rounded 0-100 score with verdict and confidence", () => {
    expect(Object.values(WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10)
    const c = prepareCompany(
      company({
        description: "Reabilitare drumuri județene și asfaltare",
        watchlists: [
          watchlist({ cpvCodes: ["45233000-9"], keywords: ["reabilitare drumuri"], minValue: 1e6, maxValue: 5e6 })
        ]
      })
    )
    const score = scorePair(c, prepareTender(tender()), corpus)
    const f = score.factors
    const sum = [f.semantic, f.keyword, f.cpv, f.value_fit, f.historical].reduce((a, x) => a + x.contribution, 0)
    expect(score.overallScore).toBe(Math.round(sum))
    expect(f.cpv).toMatchObject({ score: 1, weight: WEIGHTS.cpv, contribution: 30, cpv_type: "primary" })
    expect(score.verdict).toBe("GO")
    expect(score.overallConfidence).toBeCloseTo(1 - CONFIDENCE_PENALTIES.noCompanyHistory, 6)
    const bare = scorePair(c, prepareTender(tender({ description: "", valueRon: null })), corpus)
    expect(bare.overallConfidence).toBeLessThan(score.overallConfidence)
  })

  it("has verdict thresholds GO ≥ 70, RESEARCH 40-69, SKIP < 40, pinned with the model version", () => {
    expect([verdictOf(70), verdictOf(69), verdictOf(40), verdictOf(39)]).toEqual(["GO", "RESEARCH", "RESEARCH", "SKIP"])
    // Changing a weight or threshold must come with a new model version.
    expect({ MODEL_VERSION, WEIGHTS, VERDICT_THRESHOLDS }).toEqual({
      MODEL_VERSION: "tsm-1.12.0",
      WEIGHTS: { semantic: 0.25, keyword: 0.15, cpv: 0.3, value_fit: 0.1, historical: 0.2 },
      VERDICT_THRESHOLDS: { go: 70, research: 40 }
    })
  })

  it("rounds each contribution in exact hundredths, a half up, and the score from their exact sum (tsm-1.8.0)", () => {
    const halves = factorBreakdown({
      semantic: 0.0002, // 0.25 × 0.0002 × 100 = 0.005
      keyword: 0.0001, // 0.15 × 0.0001 × 100 = 0.0015
      cpv: 0.5455, // 0.3 × 0.5455 × 100 = 16.365 (16.364999… in floating point)
      value_fit: 0.0005, // 0.005
      historical: 0.1235, // 2.47
      cpvType: "primary"
    })
    expect(
      [halves.semantic, halves.keyword, halves.cpv, halves.value_fit, halves.historical].map((f) => f.contribution)
    ).toEqual([0.01, 0, 16.37, 0.01, 2.47])
  })

  it("scores the exact sum of the contributions, a total of x.50 rounding up, for any factor scores", () => {
    const fourDecimals = fc.integer({ min: 0, max: 10_000 })
    fc.assert(
      fc.property(fourDecimals, fourDecimals, fourDecimals, fourDecimals, fourDecimals, (s, k, c, v, h) => {
        const factors = factorBreakdown({
          semantic: s / 10_000,
          keyword: k / 10_000,
          cpv: c / 10_000,
          value_fit: v / 10_000,
          historical: h / 10_000,
          cpvType: "primary"
        })
        // In integers: weight in hundredths × score in ten-thousandths = contribution in millionths.
        const hundredths = [25 * s, 15 * k, 30 * c, 10 * v, 20 * h].map((millionths) =>
          Math.floor((millionths + 50) / 100)
        )
        expect(factors.cpv.contribution).toBe(hundredths[2]! / 100)
        expect(overallScoreOf(factors)).toBe(Math.floor((hundredths.reduce((a, b) => a + b, 0) + 50) / 100))
      })
    )
  })

  it("is deterministic", () => {
    const c = prepareCompany(company({ description: "drumuri", watchlists: [watchlist({ keywords: ["drumuri"] })] }))
    expect(scorePair(c, prepareTender(tender()), corpus)).toEqual(scorePair(c, prepareTender(tender()), corpus))
  })
})

describe("matching", () => {
  const t = prepareTender(tender())
  it("a watchlist's filters must all hold", () => {
    const pass = (w: Partial<WatchlistInput>) =>
      passesWatchlist(prepareCompany(company({ watchlists: [watchlist(w)] })).watchlists[0]!, t)
    expect(pass({})).toBe(true)
    expect(pass({ cpvCodes: ["45200000-9"] })).toBe(true)
    expect(pass({ cpvCodes: ["71000000-8"] })).toBe(false)
    expect(pass({ keywords: ["asfaltare"] })).toBe(true)
    expect(pass({ keywords: ["calculatoare"] })).toBe(false)
    expect(pass({ minValue: 3e6 })).toBe(false)
    expect(pass({ maxValue: 3e6 })).toBe(true)
    expect(pass({ authorityId: "auth-2" })).toBe(false)
  })

  it("alerts only watchlists whose threshold the score reaches", () => {
    const c = prepareCompany(
      company({
        watchlists: [
          watchlist({ id: "low", cpvCodes: ["45000000-7"], minScore: 10 }),
          watchlist({ id: "high", cpvCodes: ["45000000-7"], minScore: 100 })
        ]
      })
    )
    const score = scorePair(c, t, corpus)
    expect(alertingWatchlists(c, t, score).map((w) => w.watchlist.id)).toEqual(["low"])
  })

  it("candidates: CPV at class depth, keyword, authority or award history", () => {
    const candidate = (c: Partial<CompanyInput>) => isCandidate(prepareCompany(company(c)), t)
    expect(candidate({ watchlists: [watchlist({ cpvCodes: ["45234000-6"] })] })).toBe(true)
    expect(candidate({ watchlists: [watchlist({ cpvCodes: ["45200000-9"] })] })).toBe(true)
    expect(candidate({ watchlists: [watchlist({ cpvCodes: ["45240000-1"] })] })).toBe(false)
    expect(candidate({ watchlists: [watchlist({ cpvCodes: ["45100000-8"] })] })).toBe(false)
    expect(candidate({ watchlists: [watchlist({ keywords: ["marcaje rutiere"] })] })).toBe(true)
    expect(candidate({ watchlists: [watchlist({ authorityId: "auth-1" })] })).toBe(true)
    expect(candidate({ history: [{ authorityId: "auth-1", mainCpv: "30200000-1", valueRon: null }] })).toBe(true)
  })

  it("candidates by text: words shared with the description or won award titles, floor or coverage", () => {
    const candidate = (c: Partial<CompanyInput>, stats = corpus) =>
      isCandidate(prepareCompany(company({ watchlists: [], ...c })), t, stats)
    // A short description: "asfaltare" is a third of its words' specificity (coverage ≥ 0.25).
    expect(candidate({ description: "Executăm asfaltare de străzi" })).toBe(true)
    // A long one that shares only that word covers too little of it, once a watchlist (on another
    // trade) says more about the company than its words.
    const long =
      "Executăm asfaltare, proiectare de poduri, curățenie de birouri, mobilier școlar, bănci și echipamente IT"
    const elsewhere = [watchlist({ cpvCodes: ["30200000-1"] })]
    expect(candidate({ description: long, watchlists: elsewhere })).toBe(false)
    // Known by its words alone, the company is matched by one specific shared word, as a search would.
    expect(candidate({ description: long })).toBe(true)
    expect(candidate({ description: "Executăm asfaltări" })).toBe(true) // stemmed: asfaltari ~ asfaltare
    expect(candidate({ description: "Furnizăm mobilier de birou" })).toBe(false)
    expect(candidate({ description: "" })).toBe(false)
    // From won award titles (found by fiscal code), not only the description.
    const award = { authorityId: "auth-9", mainCpv: "30200000-1", valueRon: null }
    expect(candidate({ history: [{ ...award, title: "Marcaje rutiere pe drumuri comunale" }] })).toBe(true)
    expect(candidate({ history: [{ ...award, title: "Furnizare hârtie" }] })).toBe(false)
    // A word that most tenders contain (over 30% of them) draws no candidates.
    const common = buildCorpusStats(
      Array.from({ length: 100 }, (_, i) => prepareTender(tender({ id: `c${i}`, title: `Asfaltare lot ${i}` })))
    )
    expect(candidate({ description: "Executăm asfaltare de străzi" }, common)).toBe(false)
  })
})

describe("properties", () => {
  const words = [
    "drumuri",
    "asfaltare",
    "calculatoare",
    "curatenie",
    "proiectare",
    "mobilier",
    "reabilitare",
    "marcaje"
  ]
  const cpvs = ["45233142-6", "45000000-7", "30200000-1", "90910000-9", "71320000-7", "39160000-1", "45240000-1"]
  const arbTender = fc.record({
    title: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((w) => w.join(" ")),
    description: fc.array(fc.constantFrom(...words), { maxLength: 12 }).map((w) => w.join(" ")),
    mainCpv: fc.constantFrom(...cpvs),
    additionalCpvs: fc.array(fc.constantFrom(...cpvs), { maxLength: 2 }),
    authorityId: fc.constantFrom("a1", "a2"),
    valueRon: fc.option(fc.double({ min: 1, max: 1e9, noNaN: true }), { nil: null })
  })
  const arbWatchlist = fc.record({
    cpvCodes: fc.array(fc.constantFrom(...cpvs), { maxLength: 3 }),
    keywords: fc.array(fc.constantFrom(...words), { maxLength: 3 }),
    minValue: fc.option(fc.double({ min: 1, max: 1e6, noNaN: true }), { nil: null }),
    maxValue: fc.option(fc.double({ min: 1e6, max: 1e9, noNaN: true }), { nil: null })
  })
  const arbCompany = fc.record({
    description: fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((w) => w.join(" ")),
    watchlists: fc.array(arbWatchlist, { minLength: 1, maxLength: 3 }),
    history: fc.array(
      fc.record({
        authorityId: fc.constantFrom("a1", "a2", "a3"),
        mainCpv: fc.constantFrom(...cpvs),
        valueRon: fc.option(fc.double({ min: 1, max: 1e9, noNaN: true }), { nil: null })
      }),
      { maxLength: 3 }
    )
  })
  const build = (
    t: Omit<TenderInput, "id">,
    c: Omit<CompanyInput, "id" | "watchlists"> & {
      watchlists: Array<Omit<WatchlistInput, "id" | "authorityId" | "minScore">>
    }
  ) => ({
    tender: prepareTender({ id: "t", ...t }),
    company: (extraKeyword?: string) =>
      prepareCompany({
        id: "c",
        description: c.description,
        history: c.history,
        watchlists: c.watchlists.map((w, i) => ({
          id: `w${i}`,
          authorityId: null,
          minScore: 50,
          ...w,
          keywords: i === 0 && extraKeyword !== undefined ? [...w.keywords, extraKeyword] : w.keywords
        }))
      })
  })

  it("every factor and the overall score stay within bounds", () => {
    fc.assert(
      fc.property(arbTender, arbCompany, (t, c) => {
        const pair = build(t, c)
        const score = scorePair(pair.company(), pair.tender, corpus)
        expect(score.overallScore).toBeGreaterThanOrEqual(0)
        expect(score.overallScore).toBeLessThanOrEqual(100)
        expect(Number.isInteger(score.overallScore)).toBe(true)
        expect(score.overallConfidence).toBeGreaterThan(0)
        expect(score.overallConfidence).toBeLessThanOrEqual(1)
        for (const f of Object.values(score.factors)) {
          expect(f.score).toBeGreaterThanOrEqual(0)
          expect(f.score).toBeLessThanOrEqual(1)
        }
      }),
      { numRuns: 500 }
    )
  })

  it("adding a keyword that the tender contains never lowers the score", () => {
    fc.assert(
      fc.property(arbTender, arbCompany, fc.nat(), (t, c, pick) => {
        const pair = build(t, c)
        const present = t.title.split(" ")
        const keyword = present[pick % present.length]!
        const before = scorePair(pair.company(), pair.tender, corpus)
        const after = scorePair(pair.company(keyword), pair.tender, corpus)
        expect(after.overallScore).toBeGreaterThanOrEqual(before.overallScore)
      }),
      { numRuns: 500 }
    )
  })
})
