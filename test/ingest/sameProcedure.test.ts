import { describe, expect, it } from "vitest"
import { type ProcedureFacts, sameProcedure, titleSimilarity } from "../../src/domain/ingest/SameProcedure.js"

const seap: ProcedureFacts = {
  authorityFiscalCode: "4267117",
  mainCpv: "72267000-4",
  publishDate: new Date("2026-11-20T08:00:00Z"),
  deadline: new Date("2026-12-20T08:00:00Z"),
  title: "SERVICII DE MENTENANTA A SISTEMELOR INFORMATICE ALE PRIMARIEI - LOT 1",
  valueRon: 250_000
}
const ted: ProcedureFacts = {
  ...seap,
  mainCpv: "72267100-0",
  publishDate: new Date("2026-11-23T10:00:00Z"),
  deadline: new Date("2026-12-20T10:00:00Z"),
  title: "Servicii de mentenanță a sistemelor informatice ale Primăriei",
  valueRon: 251_000
}

describe("one procedure on two sources, by its facts", () => {
  it("joins the other source's spelling of the same notice (case, diacritics, lot suffix, filler words)", () => {
    expect(titleSimilarity(seap.title, ted.title)).toBe(1)
    expect(sameProcedure(seap, ted)).toBe(true)
  })

  it("keeps apart what differs in buyer, CPV class, week, deadline, value or title", () => {
    expect(sameProcedure(seap, { ...ted, authorityFiscalCode: "4267118" })).toBe(false)
    expect(sameProcedure({ ...seap, authorityFiscalCode: null }, { ...ted, authorityFiscalCode: null })).toBe(false)
    expect(sameProcedure(seap, { ...ted, mainCpv: "72500000-0" })).toBe(false)
    expect(sameProcedure(seap, { ...ted, publishDate: new Date("2026-11-28T09:00:00Z") })).toBe(false)
    expect(sameProcedure(seap, { ...ted, deadline: new Date("2026-12-23T10:00:00Z") })).toBe(false)
    expect(sameProcedure(seap, { ...ted, valueRon: 300_000 })).toBe(false)
    expect(
      sameProcedure(seap, { ...ted, title: "Servicii de mentenanță a sistemelor de iluminat ale Primăriei" })
    ).toBe(false)
  })

  it("a missing deadline or value is no evidence either way", () => {
    expect(sameProcedure({ ...seap, deadline: null, valueRon: null }, ted)).toBe(true)
  })
})
