/**
 * Case 3a: the watchlist protocol of the first `npm run eval`, unchanged, kept so figures stay
 * comparable across model versions. In process, on the scorer itself (no database): each winner
 * with at least two awards is profiled from its earlier awards only (their CPV codes as its
 * watchlist, their titles as its description, the awards as its history); its latest award is
 * hidden in a pool of every award not used in its profile (~357); the awards carry their titles, as
 * the service reads them. Ranked by the unrounded sum of
 * contributions (ties are only real ties); the CPV-only baseline is the model's own `cpv` factor.
 * Beside them, as in the other cases: BM25 of the description over each company's pool, and the
 * BM25 + CPV hybrid (rankers.ts `hybridScores`, with the CPV prefix of the watched codes).
 */
import { bestCpvMatch } from "../../src/domain/scoring/CpvMatch.js"
import {
  type AwardInput,
  type PreparedTender,
  prepareCompany,
  prepareTender,
  type TenderInput
} from "../../src/domain/scoring/Inputs.js"
import { MODEL_VERSION, scorePair } from "../../src/domain/scoring/Model.js"
import { buildCorpusStats } from "../../src/domain/scoring/Semantic.js"
import { canonicalCounty } from "../../src/domain/tenders/CountyDistance.js"
import { type Award, awards, awardsByWinner, cpvLabelOf } from "./data.js"
import { mean, type TargetMetrics, targetByScores } from "./metrics.js"
import { Bm25Index, cpvPrefixScore, hybridScores } from "./rankers.js"

/** An award as the scorer reads a notice of it; `id` the notice number unless given. */
export const tenderOf = (a: Award, id: string = a.noticeNo): TenderInput => ({
  id,
  title: a.title,
  description: "",
  mainCpv: a.mainCpv,
  additionalCpvs: [],
  authorityId: a.authorityFiscalCode,
  valueRon: a.valueRon,
  // As the service reads a tender (ScoringReads): its main code's label is part of its text, and its
  // authority's county places it.
  cpvLabel: cpvLabelOf(a.mainCpv),
  county: canonicalCounty(a.authorityCounty)
})

/** An award as the scorer reads it in a winner's history (the award notices naming its fiscal code). */
export const awardInputOf = (a: Award): AwardInput => ({
  authorityId: a.authorityFiscalCode,
  mainCpv: a.mainCpv,
  valueRon: a.valueRon,
  title: a.title,
  county: canonicalCounty(a.authorityCounty)
})

export const legacyWatchlistCase = () => {
  const prepared = new Map(awards.map((a) => [a, prepareTender(tenderOf(a))]))
  const corpus = buildCorpusStats([...prepared.values()])
  const cases = [...awardsByWinner().values()]
    .filter((won) => won.length >= 2)
    .map((won) => {
      const history = won.slice(0, -1)
      const target = won[won.length - 1]!
      const pool = awards.filter((a) => !history.includes(a))
      const company = prepareCompany({
        id: target.winner,
        description: history.map((a) => a.title).join(". "),
        fiscalCode: target.winner,
        watchlists: [
          {
            id: "w",
            cpvCodes: [...new Set(history.map((a) => a.mainCpv))],
            keywords: [],
            minValue: null,
            maxValue: null,
            authorityId: null,
            minScore: 50
          }
        ],
        history: history.map(awardInputOf)
      })
      const codes = [...new Set(history.map((a) => a.mainCpv))]
      const bm25 = new Bm25Index(pool).scores(history.map((a) => a.title).join(". "))
      const prefix = pool.map((a) => cpvPrefixScore(a.mainCpv, codes))
      return {
        company,
        pool: pool.map((a) => prepared.get(a)!),
        targetIndex: pool.indexOf(target),
        bm25,
        hybrid: hybridScores(bm25, prefix)
      }
    })

  const evaluate = (scoreOf: (c: (typeof cases)[number], t: PreparedTender) => number) => {
    const results = cases.map((c) =>
      // +1 keeps a zero score listed: this protocol ranks the whole pool.
      targetByScores(
        c.pool.map((t) => scoreOf(c, t) + 1),
        c.targetIndex
      )
    )
    return { hr: mean(results.map((r) => r.hit)), mrr: mean(results.map((r) => r.reciprocal)) }
  }
  const model = evaluate((c, t) => {
    const f = scorePair(c.company, t, corpus).factors
    return (
      f.semantic.contribution +
      f.keyword.contribution +
      f.cpv.contribution +
      f.value_fit.contribution +
      f.historical.contribution
    )
  })
  // The text baselines count as the other cases' do: a notice scoring 0 is not returned.
  const ofScores = (pick: (c: (typeof cases)[number]) => ReadonlyArray<number>) => {
    const results: Array<TargetMetrics> = cases.map((c) => targetByScores(pick(c), c.targetIndex))
    return { hr: mean(results.map((r) => r.hit)), mrr: mean(results.map((r) => r.reciprocal)) }
  }
  const cpvOnly = evaluate(
    (c, t) => bestCpvMatch(t.tender.mainCpv, t.tender.additionalCpvs, c.company.profileCodes).score
  )
  return {
    modelVersion: MODEL_VERSION,
    companies: cases.length,
    poolSize: cases[0]!.pool.length,
    model,
    cpvOnly,
    bm25: ofScores((c) => c.bm25),
    hybrid: ofScores((c) => c.hybrid),
    random: { hr: Math.min(1, 10 / cases[0]!.pool.length) }
  }
}
