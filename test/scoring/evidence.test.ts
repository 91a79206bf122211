import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { ADDITIONAL_CODE_FACTOR, bestCpvMatch, codeMatch } from "../../src/domain/scoring/CpvMatch.js"
import { explainScore } from "../../src/domain/scoring/Evidence.js"
import { type CompanyInput, prepareCompany, prepareTender, type TenderInput } from "../../src/domain/scoring/Inputs.js"
import { scorePair } from "../../src/domain/scoring/Model.js"
import { explainPair, PHRASEBOOKS, reasonsOf } from "../../src/domain/scoring/Reasons.js"
import { buildCorpusStats, SEMANTIC_SCALE } from "../../src/domain/scoring/Semantic.js"
import { watchlist } from "./TenderInputs.js"

/**
 * A reason is phrased from the evidence its factor recorded while scoring (Evidence.explainScore),
 * so it names what the score counted: the same code pair, keywords, placement, awards and words.
 */

const tender = (overrides: Partial<TenderInput> = {}): TenderInput => ({
  id: "t1",
  title: "Asfaltare drum județean DJ 107",
  description: "Lucrări de asfaltare și marcaje rutiere",
  mainCpv: "45233120-6",
  additionalCpvs: [],
  authorityId: "auth-1",
  valueRon: 1_200_000,
  cpvLabel: "Lucrări de construcţii de drumuri",
  ...overrides
})

const company = (overrides: Partial<CompanyInput> = {}) =>
  prepareCompany({ id: "c1", description: "", fiscalCode: "12345678", watchlists: [], history: [], ...overrides })

const corpus = buildCorpusStats([
  prepareTender(tender()),
  ...Array.from({ length: 30 }, (_, i) =>
    prepareTender(tender({ id: `o${i}`, title: `Furnizare hârtie lot ${i}`, description: "", cpvLabel: "" }))
  )
])

const explain = (c: ReturnType<typeof company>, t: TenderInput = tender()) => {
  const prepared = prepareTender(t)
  const { score, evidence } = explainScore(c, prepared, corpus)
  return { score, evidence, reasons: reasonsOf(evidence, "en"), ro: reasonsOf(evidence, "ro") }
}

describe("cpv evidence", () => {
  it("a tie between a watched and a won code goes to the watched one, in the evidence and in the reason", () => {
    // The tender code lies inside both (score 1): the factor takes the code listed first, the watched one.
    const both = company({
      watchlists: [watchlist({ cpvCodes: ["45233000-9"] })],
      history: [{ authorityId: "auth-9", mainCpv: "45000000-7", valueRon: null }]
    })
    const { score, evidence, reasons } = explain(both)
    expect(score.factors.cpv.score).toBe(1)
    expect(evidence.cpv.match).toEqual({
      tenderCode: "45233120-6",
      main: true,
      profileCode: "45233000-9",
      watched: true,
      inside: true,
      node: "45233",
      level: "category",
      score: 1
    })
    expect(reasons.cpv).toBe("main CPV 45233120-6 lies in your watched category 45233")
    const wonOnly = company({ history: [{ authorityId: "auth-9", mainCpv: "45000000-7", valueRon: null }] })
    expect(explain(wonOnly).reasons.cpv).toBe("main CPV 45233120-6 lies in division 45 of a contract you won")
  })

  it("names the shared digits and the profile code as written when the tender code is not inside it", () => {
    const c = company({ watchlists: [watchlist({ cpvCodes: ["45233200-1"] })] })
    const { score, evidence, reasons, ro } = explain(
      c,
      tender({ mainCpv: "71320000-7", additionalCpvs: ["45233142-6"] })
    )
    expect(score.factors.cpv.cpv_type).toBe("additional")
    expect(evidence.cpv.match).toMatchObject({ tenderCode: "45233142-6", main: false, inside: false, node: "45233" })
    expect(evidence.cpv.match!.score).toBe(codeMatch("45233142-6", "45233200-1") * ADDITIONAL_CODE_FACTOR)
    expect(reasons.cpv).toBe("additional CPV 45233142-6 shares category 45233 with your watched code 45233200-1")
    expect(ro.cpv).toBe("codul CPV suplimentar 45233142-6 are în comun categoria 45233 cu codul urmărit 45233200-1")
  })
})

describe("the other factors' evidence", () => {
  it("keywords: the ones the factor counted, where it counted them", () => {
    const c = company({ watchlists: [watchlist({ keywords: ["asfaltare", "marcaje rutiere", "semnalizare"] })] })
    const { evidence, reasons } = explain(c)
    expect(evidence.keyword).toEqual({ watchedKeywords: 3, inTitle: ["asfaltare"], inDescription: ["marcaje rutiere"] })
    expect(reasons.keyword).toBe("keywords found: asfaltare; in the description: marcaje rutiere")
  })

  it("value: where the factor placed the amount, a value under 1 RON counting as 1", () => {
    const ranged = company({ watchlists: [watchlist({ minValue: 2_000_000, maxValue: 40_000_000 })] })
    const below = explain(ranged)
    expect(below.evidence.value_fit.placement).toBe("below")
    expect(below.score.factors.value_fit.score).toBeLessThan(1)
    expect(below.reasons.value_fit).toBe("1.2 M RON below your range 2-40 M RON")
    const fromOne = company({ watchlists: [watchlist({ minValue: 1 })] })
    const tiny = explain(fromOne, tender({ valueRon: 0.5 }))
    expect(tiny.score.factors.value_fit.score).toBe(1)
    expect(tiny.evidence.value_fit.placement).toBe("inside")
  })

  it("historical: the awards the factor compared, from this authority and in the tender's class", () => {
    const c = company({
      history: [
        { authorityId: "auth-1", mainCpv: "45233140-2", valueRon: 900_000 },
        { authorityId: "auth-1", mainCpv: "71320000-7", valueRon: 50_000 },
        { authorityId: "auth-2", mainCpv: "45231000-6", valueRon: null }
      ]
    })
    const { evidence, reasons, ro } = explain(c)
    expect(evidence.historical).toEqual({
      awards: 3,
      fiscalCodeKnown: true,
      fromAuthority: 2,
      inClass: 2,
      // No award has a title (WonTitles.ts): none counted by one.
      byTitle: 0,
      tenderClass: "4523",
      // Neither the tender's county nor the awards' is known here: no place clause.
      place: null
    })
    expect(reasons.historical).toBe("won 3 contracts: 2 from this authority, 2 in class 4523")
    expect(ro.historical).toBe("ați câștigat 3 contracte: 2 de la această autoritate, 2 în clasa 4523")
  })

  it("semantic: the shared words that added most to the score, in the tender's spelling", () => {
    const c = company({ description: "Executăm asfaltare de drumuri, marcajele rutiere și lucrări" })
    const { score, evidence, reasons } = explain(c)
    const sum = evidence.semantic.shared.reduce((total, term) => total + term.contribution, 0)
    expect(score.factors.semantic.score).toBeCloseTo(1 - Math.exp(-sum / SEMANTIC_SCALE), 4)
    const contributions = evidence.semantic.shared.map((term) => term.contribution)
    expect(contributions).toEqual([...contributions].sort((a, b) => b - a))
    const spellings = evidence.semantic.shared.slice(0, 6).map((term) => term.spelling)
    expect(reasons.semantic).toBe(`description shares: ${spellings.join(", ")}`)
    expect(spellings).toContain("marcaje") // the company wrote "marcajele"
  })
})

describe("properties", () => {
  const words = ["drumuri", "asfaltare", "calculatoare", "curatenie", "proiectare", "mobilier", "marcaje", "rutiere"]
  const cpvs = ["45233142-6", "45000000-7", "45233200-1", "30200000-1", "71320000-7", "71300000-1", "45240000-1"]
  const arbTender = fc.record({
    title: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((w) => w.join(" ")),
    description: fc.array(fc.constantFrom(...words), { maxLength: 12 }).map((w) => w.join(" ")),
    mainCpv: fc.constantFrom(...cpvs),
    additionalCpvs: fc.array(fc.constantFrom(...cpvs), { maxLength: 2 }),
    authorityId: fc.constantFrom("a1", "a2"),
    valueRon: fc.option(fc.double({ min: 0, max: 1e9, noNaN: true }), { nil: null })
  })
  const arbCompany = fc.record({
    description: fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((w) => w.join(" ")),
    fiscalCode: fc.constantFrom(null, "123"),
    watchlists: fc.array(
      fc.record({
        id: fc.constant("w"),
        cpvCodes: fc.array(fc.constantFrom(...cpvs), { maxLength: 3 }),
        keywords: fc.array(fc.constantFrom(...words, "marcaje rutiere"), { maxLength: 3 }),
        minValue: fc.option(fc.double({ min: 1, max: 1e6, noNaN: true }), { nil: null }),
        maxValue: fc.option(fc.double({ min: 1e6, max: 1e9, noNaN: true }), { nil: null }),
        authorityId: fc.constant(null),
        minScore: fc.constant(50)
      }),
      { maxLength: 3 }
    ),
    history: fc.array(
      fc.record({
        authorityId: fc.constantFrom("a1", "a2", "a3"),
        mainCpv: fc.constantFrom(...cpvs),
        valueRon: fc.option(fc.double({ min: 1, max: 1e9, noNaN: true }), { nil: null })
      }),
      { maxLength: 3 }
    )
  })

  it("explaining a pair scores it exactly as scoring does, and the CPV reason names the pair that scored", () => {
    fc.assert(
      fc.property(arbTender, arbCompany, (t, c) => {
        const prepared = prepareTender({ id: "t", ...t })
        const profile = prepareCompany({ id: "c", ...c })
        const { score, evidence } = explainScore(profile, prepared, corpus)
        expect(score).toEqual(scorePair(profile, prepared, corpus))
        const best = bestCpvMatch(t.mainCpv, t.additionalCpvs, profile.profileCodes)
        const match = evidence.cpv.match
        if (best.tenderCode === null) expect(match).toBeNull()
        const stated = evidence.cpv.stated
        if (stated !== undefined && stated !== null) {
          // The company's own words gave the score (StatedText.ts, above a weaker tree match): the
          // reason names them, and no code.
          expect(stated.score).toBeCloseTo(score.factors.cpv.score, 4)
          expect(best.score).toBeLessThan(stated.score)
          expect(score.factors.cpv.cpv_type).toBe("none")
          expect(stated.words.length).toBeGreaterThan(0)
          expect(reasonsOf(evidence, "en").cpv).toContain(stated.words[0])
        } else if (best.tenderCode !== null) {
          expect(match).not.toBeNull()
          expect(match!.tenderCode).toBe(best.tenderCode)
          expect(match!.profileCode.slice(0, 8)).toBe(best.profileCode)
          expect(match!.score).toBe(best.score)
          expect(match!.main).toBe(score.factors.cpv.cpv_type === "primary")
          const reason = reasonsOf(evidence, "en").cpv
          expect(reason).toContain(match!.tenderCode)
          expect(reason).toContain(match!.inside ? match!.node : match!.profileCode)
        }
      }),
      { numRuns: 500 }
    )
  })

  it("every reason in every language is a sentence with its placeholders filled", () => {
    fc.assert(
      fc.property(arbTender, arbCompany, (t, c) => {
        const prepared = prepareTender({ id: "t", ...t })
        const profile = prepareCompany({ id: "c", ...c })
        for (const language of Object.keys(PHRASEBOOKS) as Array<keyof typeof PHRASEBOOKS>) {
          for (const reason of Object.values(explainPair(profile, prepared, corpus, language))) {
            expect(reason.length).toBeGreaterThan(0)
            expect(reason).not.toMatch(/[{}]|undefined|null|NaN/)
          }
        }
      }),
      { numRuns: 300 }
    )
  })
})
