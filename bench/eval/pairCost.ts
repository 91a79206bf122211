/**
 * Per-pair cost of scorePair, two model sources alternated in one process (ALT_SRC: the other
 * source tree's root, e.g. an exported earlier commit): every pair of the eval's 358 notices × its
 * 73 winners with their awards, plus 20 companies of 50 awards each (long profiles), or, SHORT=1, ×
 * 93 companies of a five-word description and a watchlist of one code and one keyword. ROUNDS
 * rounds (5), median µs per pair.
 *
 *   ALT_SRC=/tmp/old npx tsx bench/eval/pairCost.ts
 */
import * as path from "node:path"
import { awards, awardsByWinner } from "./data.js"
import { awardInputOf, tenderOf } from "./legacy.js"

type ScoringModules = {
  inputs: typeof import("../../src/domain/scoring/Inputs.js")
  model: typeof import("../../src/domain/scoring/Model.js")
  semantic: typeof import("../../src/domain/scoring/Semantic.js")
}
const load = async (root: string): Promise<ScoringModules> => ({
  inputs: await import(path.join(root, "domain/scoring/Inputs.ts")),
  model: await import(path.join(root, "domain/scoring/Model.ts")),
  semantic: await import(path.join(root, "domain/scoring/Semantic.ts"))
})

const setUp = (m: ScoringModules) => {
  const tenders = awards.map((a) => m.inputs.prepareTender(tenderOf(a)))
  const corpus = m.semantic.buildCorpusStats(tenders)
  const companies = [...awardsByWinner().values()].filter((won) => won.length >= 2).map((won) => won.slice(0, -1))
  for (let i = 0; i < 20; i++) companies.push(awards.slice(i * 15, i * 15 + 50))
  const long = companies.map((won, i) =>
    m.inputs.prepareCompany({
      id: `c${i}`,
      description: won.map((a) => a.title).join(". "),
      fiscalCode: `f${i}`,
      watchlists: [],
      history: won.map(awardInputOf)
    })
  )
  // SHORT=1: profiles of a few words and a watchlist, no history (as the scoring bench's companies).
  const short = awards.slice(0, 93).map((a, i) =>
    m.inputs.prepareCompany({
      id: `s${i}`,
      description: a.title.split(/\s+/).slice(0, 5).join(" "),
      watchlists: [
        {
          id: "w",
          cpvCodes: [a.mainCpv],
          keywords: [a.title.split(/\s+/).slice(3, 5).join(" ")],
          minValue: null,
          maxValue: null,
          authorityId: null,
          minScore: 50
        }
      ],
      history: []
    })
  )
  return { tenders, corpus, prepared: process.env.SHORT === "1" ? short : long }
}

const run = (m: ScoringModules, s: ReturnType<typeof setUp>) => {
  const started = process.hrtime.bigint()
  let sum = 0
  for (const company of s.prepared)
    for (const tender of s.tenders) sum += m.model.scorePair(company, tender, s.corpus).overallScore
  const ns = Number(process.hrtime.bigint() - started)
  return { us: ns / 1000 / (s.prepared.length * s.tenders.length), sum }
}

const here = path.resolve(import.meta.dirname, "../../src")
const sources = [
  { name: "this tree", root: here },
  { name: process.env.ALT_SRC ?? "", root: process.env.ALT_SRC ?? "" }
].filter((x) => x.root !== "")
const loaded = await Promise.all(sources.map(async (x) => ({ ...x, m: await load(x.root) })))
const setups = loaded.map((x) => setUp(x.m))
const times: Array<Array<number>> = loaded.map(() => [])
for (let round = 0; round < Number(process.env.ROUNDS ?? 5); round++) {
  loaded.forEach((x, i) => {
    const r = run(x.m, setups[i]!)
    times[i]!.push(r.us)
  })
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const [i, x] of loaded.entries()) {
  console.log(
    `${x.m.model.MODEL_VERSION} (${x.name}): ${setups[i]!.prepared.length * setups[i]!.tenders.length} pairs, median ${median(times[i]!).toFixed(2)} µs/pair, rounds ${times[i]!.map((t) => t.toFixed(2)).join(" ")}`
  )
}
