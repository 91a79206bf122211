import { describe, expect, it } from "vitest"
import { prepareCompany, prepareTender } from "../../src/domain/scoring/Inputs.js"
import { isCandidate, knownMostlyByText } from "../../src/domain/scoring/Matching.js"
import { scorePair } from "../../src/domain/scoring/Model.js"
import { explainPair } from "../../src/domain/scoring/Reasons.js"
import { buildCorpusStats } from "../../src/domain/scoring/Semantic.js"
import { notice, watchlist } from "./TenderInputs.js"

/** tsm-1.9.0: what several watchlists say about a company, each on its own. */
describe("value fit over several watchlists: the best of their ranges", () => {
  const roads = (ranges: ReadonlyArray<{ minValue: number | null; maxValue: number | null }>) =>
    prepareCompany({
      id: "c",
      description: "asfaltare drumuri",
      watchlists: ranges.map((range, i) => watchlist({ id: `w${i}`, cpvCodes: ["45233000-9"], ...range })),
      history: []
    })
  const tenderOf = (valueRon: number) =>
    prepareTender(notice(`t${valueRon}`, "Asfaltare drum", "45233120-6", { valueRon }))
  const corpus = buildCorpusStats([tenderOf(50_000), tenderOf(5_000_000)])
  const fitOf = (company: ReturnType<typeof roads>, valueRon: number) =>
    scorePair(company, tenderOf(valueRon), corpus).factors.value_fit.score

  it("'at least 1 M' beside 'at most 100 k': a value inside either is inside, and the reason names that range", () => {
    const company = roads([
      { minValue: 1_000_000, maxValue: null },
      { minValue: null, maxValue: 100_000 }
    ])
    expect(fitOf(company, 5_000_000)).toBe(1)
    expect(fitOf(company, 50_000)).toBe(1)
    expect(fitOf(company, 400_000)).toBeLessThan(1)
    expect(explainPair(company, tenderOf(5_000_000), corpus, "en").value_fit).toMatch(/inside/)
  })

  it("two ranges apart: a value between them is outside both, scored against the nearer", () => {
    const apart = roads([
      { minValue: 100_000, maxValue: 200_000 },
      { minValue: 5_000_000, maxValue: 10_000_000 }
    ])
    const near = roads([{ minValue: 100_000, maxValue: 200_000 }])
    expect(fitOf(apart, 300_000)).toBeLessThan(1)
    expect(fitOf(apart, 300_000)).toBe(fitOf(near, 300_000))
    expect(fitOf(apart, 7_000_000)).toBe(1)
  })

  it("overlapping ranges score as their union did before", () => {
    const overlapping = roads([
      { minValue: 5_000, maxValue: 600_000 },
      { minValue: 3_000, maxValue: 400_000 }
    ])
    const union = roads([{ minValue: 3_000, maxValue: 600_000 }])
    for (const value of [1_000, 3_000, 450_000, 600_000, 1_200_000]) {
      expect(fitOf(overlapping, value)).toBe(fitOf(union, value))
    }
  })
})

describe("a watchlist of filters only keeps a description-only company on the lenient text floor", () => {
  const words = ["dirigentie", "santier", "supraveghere", "autorizare", "receptie"]
  const corpus = buildCorpusStats(
    [
      ...Array.from({ length: 100 }, (_, i) => notice(`f${i}`, `filler${i} mobilier`, "39100000-3")),
      ...words.flatMap((w, i) => [
        notice(`${i}a`, `${w} alpha`, "71000000-8"),
        notice(`${i}b`, `${w} beta`, "71000000-8")
      ])
    ].map(prepareTender)
  )
  const tender = prepareTender(notice("t", "Servicii dirigentie pentru scoala", "71520000-9"))
  const companyWith = (watchlists: Parameters<typeof prepareCompany>[0]["watchlists"]) =>
    prepareCompany({ id: "c", description: words.join(" "), watchlists, history: [] })

  it("an alert threshold, a value range or counties bring no candidates: the floor stays 0.5", () => {
    for (const company of [
      companyWith([]),
      companyWith([watchlist({ minScore: 60, minValue: 100_000, maxValue: 5_000_000 })]),
      companyWith([watchlist({ counties: ["Cluj"] })])
    ]) {
      expect(knownMostlyByText(company)).toBe(true)
      expect(isCandidate(company, tender, corpus)).toBe(true)
    }
  })

  it("a watchlist with codes, keywords or an authority brings its own: the stricter floor", () => {
    for (const company of [
      companyWith([watchlist({ cpvCodes: ["45233000-9"] })]),
      companyWith([watchlist({ keywords: ["asfaltare"] })]),
      companyWith([watchlist({ authorityId: "a1" })])
    ]) {
      expect(knownMostlyByText(company)).toBe(false)
      expect(isCandidate(company, tender, corpus)).toBe(false)
    }
  })
})
