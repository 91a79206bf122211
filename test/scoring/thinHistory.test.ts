import { describe, expect, it } from "vitest"
import { type AwardInput, prepareCompany, prepareTender } from "../../src/domain/scoring/Inputs.js"
import {
  isCandidate,
  knownMostlyByText,
  TEXT_CANDIDATE_COVERAGE,
  TEXT_CANDIDATE_FLOOR,
  TEXT_ONLY_CANDIDATE_FLOOR,
  textEvidence
} from "../../src/domain/scoring/Matching.js"
import { buildCorpusStats } from "../../src/domain/scoring/Semantic.js"
import { notice, watchlist } from "./TenderInputs.js"

/**
 * tsm-1.10.0: a company that won one contract is known by little more than that contract's title, so
 * its text draws candidates on the lenient floor, as a description-only company's does (the issue's
 * "thin history, nothing listed": a consultancy that won "depunere proiecte PNRR" under 72224000 had
 * no candidate for the next one, under 79411000).
 */
describe("one award won: the text floor of a company known mostly by its words", () => {
  const rare = ["dispensar", "uman", "camin", "cultural", "renovare"]
  const corpus = buildCorpusStats(
    [
      ...Array.from({ length: 100 }, (_, i) => notice(`f${i}`, `filler${i} mobilier`, "39100000-3")),
      ...Array.from({ length: 8 }, (_, i) => notice(`d${i}`, `depunere alpha${i}`, "71000000-8")),
      ...Array.from({ length: 40 }, (_, i) => notice(`c${i}`, `consultanta beta${i}`, "71000000-8")),
      ...rare.flatMap((w) => [notice(`${w}1`, `${w} gamma`, "45000000-7"), notice(`${w}2`, `${w} delta`, "45000000-7")])
    ].map(prepareTender)
  )
  // The next contract of its trade, under a code of another division than the one it won.
  const tender = prepareTender(notice("t", "Servicii consultanta depunere cerere", "79411000-8"))
  const won: AwardInput = {
    authorityId: "primaria-a",
    mainCpv: "72224000-1",
    valueRon: 20_000,
    title: "Consultanta depunere proiecte dispensar uman camin cultural renovare"
  }
  const paving: AwardInput = { authorityId: "primaria-b", mainCpv: "45233000-9", valueRon: 300_000, title: "Asfaltare" }
  const companyWith = (history: ReadonlyArray<AwardInput>, watchlists = [watchlist()]) =>
    prepareCompany({ id: "c", description: "", fiscalCode: "123", watchlists, history })

  it("its shared words reach the lenient floor only (the case the rule is for)", () => {
    const { shared, total } = textEvidence(companyWith([won]), tender, corpus)
    expect(shared).toBeGreaterThanOrEqual(TEXT_ONLY_CANDIDATE_FLOOR)
    expect(shared).toBeLessThan(TEXT_CANDIDATE_FLOOR)
    expect(shared).toBeLessThan(TEXT_CANDIDATE_COVERAGE * total)
  })

  it("with one award (and a watchlist of filters only, or none) the tender is a candidate", () => {
    for (const company of [companyWith([won]), companyWith([won], [])]) {
      expect(knownMostlyByText(company)).toBe(true)
      expect(isCandidate(company, tender, corpus)).toBe(true)
    }
  })

  it("two awards, or a watchlist with codes, draw candidates of their own: the stricter floor", () => {
    for (const company of [companyWith([won, paving]), companyWith([won], [watchlist({ cpvCodes: ["72000000-5"] })])]) {
      expect(knownMostlyByText(company)).toBe(false)
      expect(isCandidate(company, tender, corpus)).toBe(false)
    }
  })
})
