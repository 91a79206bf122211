import { describe, expect, it } from "@effect/vitest"
import { type MatchedTender, tenderMatchedPayload } from "../../src/domain/scoring/MatchEvent.js"

const tender: MatchedTender = {
  id: "7f1c6a4e-0000-4000-8000-000000000001",
  title: "Furnizare ecograf",
  cpvCodes: ["33112200-0", "33100000-1"],
  deadline: new Date("2026-03-01T10:00:00Z"),
  estimatedValueRon: 400_000,
  sourceUrl: "https://example.test/n"
}

describe("tender.matched payload (spec 6.1)", () => {
  it("carries the company, the tender's fields in wire names, its score and verdict, and the time", () => {
    const at = new Date("2026-02-01T08:30:00.123Z")
    expect(tenderMatchedPayload("c1", tender, { overallScore: 82, verdict: "GO" }, at)).toEqual({
      event: "tender.matched",
      company_id: "c1",
      tender: {
        id: tender.id,
        title: "Furnizare ecograf",
        score: 82,
        verdict: "GO",
        cpv_codes: ["33112200-0", "33100000-1"],
        deadline: "2026-03-01T10:00:00.000Z",
        estimated_value_ron: 400_000,
        source_url: "https://example.test/n"
      },
      timestamp: "2026-02-01T08:30:00.123Z"
    })
  })

  it("keeps an unknown deadline and value as null", () => {
    const payload = tenderMatchedPayload(
      "c1",
      { ...tender, deadline: null, estimatedValueRon: null },
      { overallScore: 45, verdict: "RESEARCH" },
      new Date(0)
    )
    expect(payload.tender.deadline).toBeNull()
    expect(payload.tender.estimated_value_ron).toBeNull()
    expect(payload.tender.verdict).toBe("RESEARCH")
  })
})
