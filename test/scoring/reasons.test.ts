import { describe, expect, it } from "@effect/vitest"
import { prepareCompany, prepareTender, type TenderInput } from "../../src/domain/scoring/Inputs.js"
import { explainPair } from "../../src/domain/scoring/Reasons.js"
import { buildCorpusStats } from "../../src/domain/scoring/Semantic.js"

/** The reasons name their evidence, in English for the key API and in Romanian for the browser app. */

const tender: TenderInput = {
  id: "t1",
  title: "Asfaltare drum județean DJ 107",
  description: "Lucrări de asfaltare și marcaje rutiere",
  mainCpv: "45233120-6",
  additionalCpvs: [],
  authorityId: "auth-1",
  valueRon: 1_200_000,
  cpvLabel: "Lucrări de construcţii de drumuri"
}
const prepared = prepareTender(tender)
const corpus = buildCorpusStats([
  prepared,
  ...Array.from({ length: 30 }, (_, i) =>
    prepareTender({ ...tender, id: `o${i}`, title: `Furnizare hârtie lot ${i}`, description: "", cpvLabel: "" })
  )
])

const company = prepareCompany({
  id: "c1",
  description: "Executăm asfaltare de drumuri",
  fiscalCode: "12345678",
  watchlists: [
    {
      id: "w1",
      cpvCodes: ["45233000-9"],
      keywords: ["marcaje rutiere", "semnalizare"],
      minValue: 300_000,
      maxValue: 40_000_000,
      authorityId: null,
      minScore: 50
    }
  ],
  history: [
    { authorityId: "auth-1", mainCpv: "45233140-2", valueRon: 900_000, title: "Reabilitare drum comunal" },
    { authorityId: "auth-2", mainCpv: "71320000-7", valueRon: 50_000, title: "Proiectare pod" }
  ]
})

describe("reasons", () => {
  it("in English (key API): each factor names its evidence", () => {
    expect(explainPair(company, prepared, corpus)).toEqual({
      semantic:
        "description shares: asfaltare, drumuri; keywords share: marcaje, rutiere; won award titles share: drum",
      keyword: "keywords found in the description: marcaje rutiere",
      cpv: "main CPV 45233120-6 lies in your watched category 45233",
      value_fit: "1.2 M RON inside your range 0.3-40 M RON",
      historical: "won 2 contracts: 1 from this authority, 1 in class 4523"
    })
  })

  it("in Romanian (browser app): the same evidence, with Romanian words and decimal commas", () => {
    expect(explainPair(company, prepared, corpus, "ro")).toEqual({
      semantic:
        "descrierea are în comun: asfaltare, drumuri; cuvintele cheie au în comun: marcaje, rutiere; " +
        "titlurile contractelor câștigate au în comun: drum",
      keyword: "cuvinte cheie găsite în descriere: marcaje rutiere",
      cpv: "codul CPV principal 45233120-6 se află în categoria 45233, pe care o urmăriți",
      value_fit: "1,2 mil. RON, în intervalul urmărit 0,3-40 mil. RON",
      historical: "ați câștigat 2 contracte: 1 de la această autoritate, 1 în clasa 4523"
    })
  })

  it("in Romanian, a profile with nothing to compare says so", () => {
    const empty = prepareCompany({ id: "c2", description: "", fiscalCode: null, watchlists: [], history: [] })
    expect(explainPair(empty, prepared, corpus, "ro")).toEqual({
      semantic: "nicio descriere, niciun cuvânt cheie și niciun titlu de contract câștigat de comparat",
      keyword: "nu urmăriți cuvinte cheie",
      cpv: "niciun cod CPV de comparat: nu urmăriți coduri și nu ați câștigat contracte",
      value_fit: "listele de urmărire nu au un interval de valoare",
      historical: "fără cod fiscal nu există un istoric de contracte de comparat"
    })
  })
})
