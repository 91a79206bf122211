/**
 * The history cases (1, 1x, 1t, 3b, 3c, 3d) and case 2 of `npm run eval`, in process on the scorer
 * itself: the same companies, pool, candidate rule, score floor and list order (score, then the
 * latest publication first) as the service, without PostgreSQL, in seconds. For iterating on the
 * model; the figures to publish are the full eval's (it checks the real path). Ties on the same
 * score and publication day are ordered by notice here and by tender id (random) in the service, and
 * the service's corpus snapshot may be taken before every notice is in, so an MRR may differ by up to
 * 0.01 (3c under tsm-1.5.0: 0.582 here, 0.575 listed).
 *
 *   npx tsx bench/eval/inProcess.ts   # SKIP_CASE2=1; LEGACY=1 (case 3a); RANKS=1 (the target's rank
 *                                     # per company); MISSES=watchOnly (targets out of a top 10)
 */

import {
  type CompanyInput,
  type PreparedTender,
  prepareCompany,
  prepareTender
} from "../../src/domain/scoring/Inputs.js"
import { isCandidate } from "../../src/domain/scoring/Matching.js"
import { MODEL_VERSION, scorePair } from "../../src/domain/scoring/Model.js"
import { SCORE_FLOOR } from "../../src/domain/scoring/ScoreFloor.js"
import { buildCorpusStats } from "../../src/domain/scoring/Semantic.js"
import { canonicalCounty } from "../../src/domain/tenders/CountyDistance.js"
import { type Award, awards, awardsByWinner } from "./data.js"
import { awardInputOf, tenderOf } from "./legacy.js"
import { K, mean, type TargetMetrics, targetByList, targetByScores } from "./metrics.js"
import { inTrade, TRADE_PROFILES } from "./profiles.js"
import { Bm25Index, cpvPrefixScore, hybridScores } from "./rankers.js"

const preparedOf = (a: Award, prefix: string) => prepareTender(tenderOf(a, `${prefix}${a.noticeNo}`))

const byWinner = awardsByWinner()
const pool1 = [...byWinner.values()].map((won) => won[won.length - 1]!)
const cases = [...byWinner.values()]
  .filter((won) => won.length >= 2)
  .map((won) => ({ winner: won[0]!.winner, earlier: won.slice(0, -1), target: won[won.length - 1]! }))
const describe = (c: (typeof cases)[number]) => c.earlier.map((a) => a.title.trim()).join(". ")
const countiesOf = (c: (typeof cases)[number]) => [
  ...new Set(c.earlier.flatMap((a) => canonicalCounty(a.authorityCounty) ?? []))
]

// The history database holds every award: the earlier ones as award notices, the latest as open notices.
const corpus = buildCorpusStats(awards.map((a) => preparedOf(a, "")))
const pool1Prepared = pool1.map((a) => preparedOf(a, "CN-"))

type Variant = "history" | "watchHistory" | "watchOnly" | "watchPlace"

const companyOf = (c: (typeof cases)[number], variant: Variant): CompanyInput => {
  const fiscal = variant === "history" || variant === "watchHistory"
  const watch = variant !== "history"
  return {
    id: c.winner,
    description: describe(c),
    fiscalCode: fiscal ? c.winner : null,
    watchlists: watch
      ? [
          {
            id: "w",
            cpvCodes: [...new Set(c.earlier.map((a) => a.mainCpv))],
            keywords: [],
            minValue: null,
            maxValue: null,
            authorityId: null,
            minScore: 50
          }
        ]
      : [],
    history: fiscal ? c.earlier.map(awardInputOf) : [],
    counties: variant === "watchPlace" && countiesOf(c).length > 0 ? countiesOf(c) : null
  }
}

/** The service's list: candidates scoring at least the floor, by score, then the latest publication. */
const listOf = (company: CompanyInput, pool: ReadonlyArray<PreparedTender>, dates: ReadonlyArray<string>) => {
  const prepared = prepareCompany(company)
  const rows: Array<{ i: number; score: number }> = []
  pool.forEach((t, i) => {
    if (!isCandidate(prepared, t, corpus)) return
    const score = scorePair(prepared, t, corpus).overallScore
    if (score >= SCORE_FLOOR) rows.push({ i, score })
  })
  rows.sort((a, b) => b.score - a.score || dates[b.i]!.localeCompare(dates[a.i]!) || a.i - b.i)
  return rows
}

const summary = (rows: ReadonlyArray<TargetMetrics>) =>
  `${mean(rows.map((r) => r.hit)).toFixed(3)} / ${mean(rows.map((r) => r.reciprocal)).toFixed(3)}`

const index1 = new Bm25Index(pool1)
const dates1 = pool1.map((a) => a.date)
const results: Record<string, string> = {}
const perCompany: Record<string, Array<number | null>> = {}
for (const variant of ["history", "watchHistory", "watchOnly", "watchPlace"] as const) {
  const rows = cases.map((c) => {
    const list = listOf(companyOf(c, variant), pool1Prepared, dates1)
    const service = targetByList(
      list.map((r) => pool1[r.i]!.key),
      c.target.key
    )
    const codes = [...new Set(c.earlier.map((a) => a.mainCpv))]
    const counties = variant === "watchPlace" ? countiesOf(c) : []
    const prefix = pool1.map((a) => {
      const p = cpvPrefixScore(a.mainCpv, codes)
      return p > 0 && counties.includes(canonicalCounty(a.authorityCounty) ?? "") ? p + 0.5 : p
    })
    const bm25 = index1.scores(describe(c))
    const targetIndex = pool1.indexOf(c.target)
    return {
      c,
      service,
      hybrid: targetByScores(hybridScores(bm25, prefix), targetIndex),
      bm25: targetByScores(bm25, targetIndex)
    }
  })
  const label = { history: "1", watchHistory: "3b", watchOnly: "3c", watchPlace: "3d" }[variant]
  const line = (sub: typeof rows) =>
    `${summary(sub.map((r) => r.service))}   (bm25 ${summary(sub.map((r) => r.bm25))}, hybrid ${summary(sub.map((r) => r.hybrid))})`
  results[label] = line(rows)
  perCompany[label] = rows.map((r) => r.service.rank)
  if (variant === "history") {
    const division = (a: Award) => a.mainCpv.slice(0, 2)
    results["1x"] = line(rows.filter((r) => r.c.earlier.every((a) => division(a) !== division(r.c.target))))
    results["1t"] = line(rows.filter((r) => r.c.earlier.length <= 2))
  }
}

// Case 2: description-only profiles against every notice, P@10.
if (process.env.SKIP_CASE2 !== "1") {
  const pool2 = awards.map((a) => preparedOf(a, "CN-"))
  const dates2 = awards.map((a) => a.date)
  const p = TRADE_PROFILES.map((profile) => {
    const list = listOf(
      { id: profile.trade, description: profile.description, watchlists: [], history: [] },
      pool2,
      dates2
    )
    return list.slice(0, K).filter((r) => inTrade(profile, awards[r.i]!.mainCpv)).length / K
  })
  results["2"] = `P@10 ${mean(p).toFixed(3)}`
}

console.log(MODEL_VERSION)
for (const [k, v] of Object.entries(results)) console.log(`${k.padEnd(3)} ${v}`)
if (process.env.RANKS === "1") console.log(JSON.stringify(perCompany))

// MISSES=<variant>: the companies whose target the service or the hybrid leaves out of its top 10.
if (process.env.MISSES !== undefined) {
  const variant = process.env.MISSES as Variant
  for (const c of cases) {
    const list = listOf(companyOf(c, variant), pool1Prepared, dates1)
    const codes = [...new Set(c.earlier.map((a) => a.mainCpv))]
    const bm25 = index1.scores(describe(c))
    const prefix = pool1.map((a) => cpvPrefixScore(a.mainCpv, codes))
    const ti = pool1.indexOf(c.target)
    const hr = targetByScores(hybridScores(bm25, prefix), ti).rank
    const sr = list.findIndex((r) => r.i === ti) + 1
    if (sr > 10 || sr === 0 || (hr ?? 99) > 10)
      console.log(
        `${c.winner} service ${sr || "-"} hybrid ${hr} bm25 ${targetByScores(bm25, ti).rank} listed ${list.length} codes ${codes.join(",")} target ${c.target.mainCpv} ${c.target.title.slice(0, 60)}`
      )
  }
}
// LEGACY=1: case 3a too (bench/eval/legacy.ts, in process already).
if (process.env.LEGACY === "1") {
  const { legacyWatchlistCase } = await import("./legacy.js")
  const l = legacyWatchlistCase()
  console.log(
    `3a  ${l.model.hr.toFixed(3)} / ${l.model.mrr.toFixed(3)}   (bm25 ${l.bm25.hr.toFixed(3)} / ${l.bm25.mrr.toFixed(3)}, hybrid ${l.hybrid.hr.toFixed(3)} / ${l.hybrid.mrr.toFixed(3)})`
  )
}
