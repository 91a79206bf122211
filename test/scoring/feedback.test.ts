import { describe, expect, it } from "@effect/vitest"
import {
  FEEDBACK_MAX_SHIFT,
  type FeedbackMark,
  feedbackByClass,
  feedbackShift
} from "../../src/domain/scoring/Feedback.js"
import { type CompanyInput, prepareCompany, prepareTender, type TenderInput } from "../../src/domain/scoring/Inputs.js"
import { scorePair } from "../../src/domain/scoring/Model.js"
import { explainPair } from "../../src/domain/scoring/Reasons.js"
import { buildCorpusStats } from "../../src/domain/scoring/Semantic.js"
import { watchlist } from "./TenderInputs.js"

/** Feedback in the pure model: a bounded shift of the cpv factor per CPV class, named in its reason. */

const tender: TenderInput = {
  id: "t1",
  title: "Asfaltare drum județean",
  description: "Lucrări de asfaltare",
  mainCpv: "45233120-6",
  additionalCpvs: [],
  authorityId: "auth-1",
  valueRon: 1_200_000
}
const prepared = prepareTender(tender)
const corpus = buildCorpusStats([prepared])
const base: CompanyInput = {
  id: "c1",
  description: "asfaltare drumuri",
  watchlists: [watchlist({ cpvCodes: ["45000000-7"] })],
  history: []
}
const withMarks = (marks: ReadonlyArray<FeedbackMark>) => prepareCompany({ ...base, feedback: marks })

describe("feedback", () => {
  it("counts marks per CPV class and bounds the net shift", () => {
    const byClass = feedbackByClass([
      { mainCpv: "45233140-2", relevant: true },
      { mainCpv: "45233120-6", relevant: false },
      { mainCpv: "45233000-9", relevant: true },
      { mainCpv: "71322000-1", relevant: true }
    ])
    expect(byClass.get("4523")).toEqual({ cpvClass: "4523", relevant: 2, notRelevant: 1 })
    expect(feedbackShift(byClass.get("4523")!)).toBeCloseTo(0.1)
    expect(feedbackShift({ cpvClass: "4523", relevant: 40, notRelevant: 0 })).toBe(FEEDBACK_MAX_SHIFT)
    expect(feedbackShift({ cpvClass: "4523", relevant: 0, notRelevant: 40 })).toBe(-FEEDBACK_MAX_SHIFT)
  })

  it("moves only the cpv factor of tenders in a marked class; no marks is the score without feedback", () => {
    const none = scorePair(withMarks([]), prepared, corpus)
    expect(scorePair(prepareCompany(base), prepared, corpus)).toEqual(none)
    const dampened = scorePair(withMarks([{ mainCpv: "45233140-2", relevant: false }]), prepared, corpus)
    expect(dampened.factors.cpv.score).toBeCloseTo(none.factors.cpv.score - 0.1)
    expect(dampened.overallScore).toBe(none.overallScore - 3)
    expect({ ...dampened.factors, cpv: none.factors.cpv }).toEqual(none.factors)
    // Another class's marks leave this tender alone.
    expect(scorePair(withMarks([{ mainCpv: "71322000-1", relevant: false }]), prepared, corpus)).toEqual(none)
  })

  it("the cpv reason names the marks of the tender's class, in both languages", () => {
    const company = withMarks([
      { mainCpv: "45233140-2", relevant: true },
      { mainCpv: "45233141-9", relevant: true },
      { mainCpv: "45233000-9", relevant: false }
    ])
    expect(explainPair(company, prepared, corpus, "en").cpv).toBe(
      "main CPV 45233120-6 lies in your watched division 45; you marked 2 tenders of CPV class 4523 relevant; you marked 1 tender of CPV class 4523 not relevant"
    )
    expect(explainPair(company, prepared, corpus, "ro").cpv).toBe(
      "codul CPV principal 45233120-6 se află în diviziunea 45, pe care o urmăriți; ați marcat 2 licitații din clasa CPV 4523 ca relevante; ați marcat o licitație din clasa CPV 4523 ca nerelevantă"
    )
    expect(explainPair(withMarks([]), prepared, corpus, "en").cpv).toBe(
      "main CPV 45233120-6 lies in your watched division 45"
    )
  })
})
