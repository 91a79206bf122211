import { describe, expect, it } from "vitest"
import { inStableOrder, type ListedTender } from "../../bench/eval/service.js"

/** Deterministic ranking (issue 21): the evaluation reads ties the same way in every run. */
describe("the evaluation's list order", () => {
  const item = (notice: string, score: number, day: string): ListedTender => ({
    tender_id: crypto.randomUUID(),
    title: notice,
    score,
    publish_date: `2024-01-${day}T00:00:00.000Z`,
    source_url: `https://e-licitatie.ro/pub/notices/${notice}`
  })
  const run = () => [
    item("DAN3", 70, "02"),
    item("DAN1", 70, "02"),
    item("DAN9", 90, "01"),
    item("DAN2", 70, "05"),
    item("DAN4", 40, "02")
  ]

  it("orders score desc, publish date desc, then notice number: two runs with fresh tender ids agree", () => {
    const first = inStableOrder(run()).map((t) => t.title)
    const second = inStableOrder(run().reverse()).map((t) => t.title)
    expect(first).toEqual(["DAN9", "DAN2", "DAN1", "DAN3", "DAN4"])
    expect(second).toEqual(first)
  })
})
