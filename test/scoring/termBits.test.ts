import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { prepareCompany, prepareTender } from "../../src/domain/scoring/Inputs.js"
import { textEvidence } from "../../src/domain/scoring/Matching.js"
import {
  BM25_B,
  BM25_K1,
  buildCorpusStats,
  inverseDocumentFrequency,
  weightedBm25
} from "../../src/domain/scoring/Semantic.js"
import { keyBitsOf, mayHaveTermBit, termBit, termBitsOf } from "../../src/domain/scoring/TermBits.js"
import { stems } from "../../src/domain/scoring/Text.js"

/**
 * The tender's word bits answer "surely absent" for the candidate rule's text check before its word
 * map is asked: they may say "maybe" for a word the tender lacks, never "no" for one it has.
 */
describe("a tender's word bits", () => {
  it("never say absent for a word of the set", () =>
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 120 }), (terms) => {
        const bits = termBitsOf(terms)
        expect(terms.every((term) => mayHaveTermBit(bits, termBit(term)))).toBe(true)
      })
    ))

  it("say absent for most words a tender of ordinary length lacks", () => {
    const tender = prepareTender({
      id: "t",
      title: "Servicii de proiectare faza Studiu de Fezabilitate și Proiect Tehnic pentru modernizarea drumurilor",
      description:
        "Elaborarea documentației tehnico-economice, asistență tehnică din partea proiectantului, " +
        "studii topografice și geotehnice, expertiză tehnică, documentații pentru avize și acorduri",
      mainCpv: "71322000-1",
      additionalCpvs: [],
      authorityId: "a",
      valueRon: null
    })
    const absent = stems(
      "furnizare echipamente informatice laptopuri imprimante mobilier scolar catering alimente " +
        "medicamente vaccinuri autoturisme combustibil energie electrica gaze naturale servicii curatenie " +
        "paza protectie publicitate tiparire brosuri pliante consultanta financiara audit contabilitate " +
        "instruire cursuri formare profesionala software licente retea fibra optica telefonie"
    ).filter((term) => !tender.termFrequencies.has(term))
    const maybe = absent.filter((term) => mayHaveTermBit(tender.termBits, termBit(term)))
    expect(absent.length).toBeGreaterThan(30)
    expect(maybe.length / absent.length).toBeLessThan(0.25)
  })

  it("leave the text evidence as the word map gives it", () => {
    const texts = [
      "reabilitare drum comunal asfaltare",
      "servicii de proiectare drumuri poduri",
      "furnizare mobilier scolar",
      "dirigentie de santier pentru reabilitare pod"
    ]
    const tenders = texts.map((title, i) =>
      prepareTender({
        id: `t${i}`,
        title,
        description: "",
        mainCpv: "45233120-6",
        additionalCpvs: [],
        authorityId: "a",
        valueRon: null
      })
    )
    const stats = buildCorpusStats(tenders)
    const company = prepareCompany({
      id: "c",
      description: "proiectare si reabilitare drumuri, poduri, asfaltare",
      watchlists: [],
      history: []
    })
    for (const tender of tenders) {
      const { shared } = textEvidence(company, tender, stats)
      const byMap = [...tender.termFrequencies.keys()].filter((term) => company.textTerms.includes(term))
      expect(shared > 0, tender.tender.title).toBe(byMap.length > 0)
    }
  })

  it("leave a walk of the tender's words against a company's word map as the map alone gives it", () => {
    const vocabulary =
      "drum pod asfalt proiect studiu fezabilitate mobilier scoala laptop retea canal apa gaz lumina".split(" ")
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 12 }),
        fc.dictionary(fc.constantFrom(...vocabulary), fc.double({ min: 0.1, max: 1, noNaN: true })),
        (words, weightsObject) => {
          const tender = prepareTender({
            id: "t",
            title: words.join(" "),
            description: "",
            mainCpv: "45233120-6",
            additionalCpvs: [],
            authorityId: "a",
            valueRon: null
          })
          const stats = buildCorpusStats([tender])
          const weights = new Map(Object.entries(weightsObject).flatMap(([word, w]) => stems(word).map((t) => [t, w])))
          expect([...weights.keys()].every((term) => mayHaveTermBit(keyBitsOf(weights), termBit(term)))).toBe(true)
          const lengthNorm = 1 - BM25_B + (BM25_B * tender.length) / stats.averageLength
          let byMap = 0
          for (const [term, tf] of tender.termFrequencies) {
            const weight = weights.get(term)
            if (weight === undefined) continue
            byMap +=
              weight * ((inverseDocumentFrequency(stats, term) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * lengthNorm))
          }
          expect(weightedBm25(weights, tender, stats)).toBe(byMap)
        }
      )
    )
  })
})
