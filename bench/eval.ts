/**
 * Quality evaluation on real data: 358 SEAP direct awards (bench/data). Each winner with at least
 * two awards is profiled from its earlier awards only (their CPV codes as its watchlist, their
 * titles as its description, the awards as its history); its latest award is hidden. Its pool is
 * every award of the file not used in its profile (~355 tenders, the hidden one among them); we
 * rank the pool and ask whether the tender it really won is among its 10 best (HR@10). Ties are counted fairly: a target tied with others scores the probability that a
 * random order of the tie puts it in the top 10.
 *
 *   npm run eval
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { parse } from "csv-parse/sync"
import { bestCpvMatch } from "../src/domain/scoring/CpvMatch.js"
import {
  type AwardInput,
  type PreparedTender,
  prepareCompany,
  prepareTender,
  type TenderInput
} from "../src/domain/scoring/Inputs.js"
import { MODEL_VERSION, scorePair } from "../src/domain/scoring/Model.js"
import { buildCorpusStats } from "../src/domain/scoring/Semantic.js"

const CSV = fileURLToPath(new URL("./data/sicap_pnrr_direct_awards_until_2024-03.csv", import.meta.url))
const K = 10

interface Award {
  readonly id: string
  readonly date: string
  readonly winner: string
  readonly tender: TenderInput
}

const rows = parse(fs.readFileSync(CSV, "utf8"), { columns: true, skip_empty_lines: true }) as Array<
  Record<string, string>
>
const awards: Array<Award> = rows
  .map((row) => {
    const cpv = /^([0-9]{8}-[0-9])/.exec(row["item.cpvCode"] ?? "")
    const value = Number(row["item.awardedValue"])
    return {
      id: row["item.daAwardNoticeId"]!,
      date: row["item.publicationDate"]!,
      winner: (row["details.noticeEntityAddress.fiscalNumber"] ?? "").replace(/\D/g, ""),
      tender: {
        id: row["item.daAwardNoticeId"]!,
        title: row["item.contractObject"] ?? "",
        description: "",
        mainCpv: cpv?.[1] ?? "",
        additionalCpvs: [],
        authorityId: row["authority.fiscalNumber"] ?? "",
        valueRon: Number.isFinite(value) && value > 0 ? value : null
      }
    }
  })
  .filter((award) => award.tender.mainCpv !== "" && award.winner !== "")
  .sort((a, b) => a.date.localeCompare(b.date) || a.id.localeCompare(b.id))

// Leave-last-out: each winner with at least two awards keeps its earlier awards as its profile and
// hides its latest; its pool is every award not in its profile (the hidden one among them).
const byWinner = new Map<string, Array<Award>>()
for (const award of awards) byWinner.set(award.winner, [...(byWinner.get(award.winner) ?? []), award])
const prepared = new Map(awards.map((a) => [a, prepareTender(a.tender)]))
const cases = [...byWinner.values()]
  .filter((won) => won.length >= 2)
  .map((won) => {
    const history = won.slice(0, -1)
    const pool = awards.filter((a) => !history.includes(a))
    const target = won[won.length - 1]!
    return { history, target, pool: pool.map((a) => prepared.get(a)!), targetIndex: pool.indexOf(target) }
  })
const corpus = buildCorpusStats(awards.map((award) => prepareTender(award.tender)))

/** Probability that the target lands in the top K when ties are ordered at random. */
const hitProbability = (scores: ReadonlyArray<number>, targetIndex: number) => {
  const target = scores[targetIndex]!
  const above = scores.filter((s) => s > target).length
  const tied = scores.filter((s) => s === target).length
  return Math.min(1, Math.max(0, (K - above) / tied))
}

const evaluate = (scoreOf: (c: (typeof cases)[number], tender: PreparedTender) => number) => {
  let hits = 0
  for (const c of cases) {
    const scores = c.pool.map((tender) => scoreOf(c, tender))
    hits += hitProbability(scores, c.targetIndex)
  }
  return hits / cases.length
}

const profiles = cases.map((c) => {
  const history: Array<AwardInput> = c.history.map((a) => ({
    authorityId: a.tender.authorityId,
    mainCpv: a.tender.mainCpv,
    valueRon: a.tender.valueRon
  }))
  return prepareCompany({
    id: c.target.winner,
    description: c.history.map((a) => a.tender.title).join(". "),
    watchlists: [
      {
        id: "w",
        cpvCodes: [...new Set(c.history.map((a) => a.tender.mainCpv))],
        keywords: [],
        minValue: null,
        maxValue: null,
        authorityId: null,
        minScore: 50
      }
    ],
    history
  })
})
const profileOf = new Map(cases.map((c, i) => [c, profiles[i]!]))

// The model's overall score is rounded to integers; rank by the unrounded sum of contributions so
// ties are only real ties (the stored score is the rounded one).
const modelHr = evaluate((c, tender) => {
  const f = scorePair(profileOf.get(c)!, tender, corpus).factors
  return (
    f.semantic.contribution +
    f.keyword.contribution +
    f.cpv.contribution +
    f.value_fit.contribution +
    f.historical.contribution
  )
})
const modelRoundedHr = evaluate((c, tender) => scorePair(profileOf.get(c)!, tender, corpus).overallScore)
const cpvHr = evaluate((c, tender) => {
  const profile = profileOf.get(c)!
  return bestCpvMatch(tender.tender.mainCpv, tender.tender.additionalCpvs, profile.profileCodes).score
})

console.log(
  JSON.stringify(
    {
      data: "bench/data/sicap_pnrr_direct_awards_until_2024-03.csv",
      awards: awards.length,
      companies_evaluated: cases.length,
      pool_size: cases[0]!.pool.length,
      model_version: MODEL_VERSION,
      hr_at_10: {
        model: Number(modelHr.toFixed(3)),
        model_rounded_score: Number(modelRoundedHr.toFixed(3)),
        cpv_only_baseline: Number(cpvHr.toFixed(3)),
        random: Number(Math.min(1, K / cases[0]!.pool.length).toFixed(3))
      },
      published_anchor_cpv_hr_at_10: 0.25
    },
    null,
    2
  )
)
