/**
 * `npm run eval`: ranking quality on 358 real SEAP direct awards (bench/data), measured through
 * the path a user takes: companies created with the CLI (`company create`), notices imported with
 * the CLI (`tenders import`), watchlists through the account API, and each company's tender list
 * read from the key API (`GET /api/v1/tenders`, every page), with the real API and worker
 * processes running on a fresh database (dropped afterwards). Beside the service, in the same run
 * and on the same pool, the harness computes a naive baseline per case and a full-text search
 * ranking (BM25 with diacritic folding and light Romanian stemming, bench/eval/rankers.ts).
 *
 * 1. History only: every winner with at least two awards is a company with its fiscal code and a
 *    description made of its earlier award titles, no watchlist. Every winner's latest award is
 *    imported as an open contract notice (229, the pool), every earlier one as an award notice
 *    (SEAP's CSV, winners' fiscal codes in it). HR@10 and MRR@10 of the tender the company really
 *    won (its latest). Baseline: CPV-prefix match against its earlier awards' codes.
 * 2. Description only: eight consultant-written profiles (bench/eval/profiles.ts), no fiscal code,
 *    no watchlist; all 358 notices open. Relevant = main CPV in the trade's CPV families. P@10.
 *    Baseline: plain word overlap between the description and the notice text.
 * 3. Watchlist. 3a: the first eval's protocol, in process (bench/eval/legacy.ts). 3b: case 1's
 *    companies again (another tenant, same database and pool) plus one watchlist each holding
 *    their earlier awards' CPV codes, created with POST /api/v1/watchlists. 3c: the same watchlist
 *    and description without the fiscal code (no award history). 3d (place, issue 21): 3c plus the
 *    counties the company works in, set with PATCH /api/v1/companies/:id: the counties of its
 *    earlier awards' authorities (real counties of the data, set by the harness, as a consultant who
 *    knows where the client works would). Its naive baseline is the CPV prefix with the county as
 *    a tie-break (a place-aware baseline).
 *
 * 1x, 1t (issue 21, CPV affinity learned from awards): case 1's companies whose held-out target
 *    lies in another CPV division than every earlier award (cross-branch wins), and those with one
 *    or two earlier awards (thin history), each beside its CPV-prefix and BM25 baselines. The
 *    service learns the affinity from the award notices it imported; `EVAL_AFFINITY=off` empties
 *    the learned table after the award import (before any open notice is scored) and reports the
 *    same protocol without it: the "before" of these rows. The report names how many class pairs
 *    were learned.
 *
 * Every case is also measured against a BM25 + CPV hybrid (bench/eval/rankers.ts `hybridScores`:
 *    BM25 and the case's CPV baseline, each normalised to 0-1, summed); in case 2, where the profile
 *    has no codes, the hybrid is BM25 over each notice's text plus its CPV label.
 *
 *    EVAL_ONLY=history runs 3a and the history cases (1, 1x, 1t, 3b-3d) alone; EVAL_ONLY=feedback
 *    runs case 2 and 2f alone.
 *
 * Metrics (bench/eval/metrics.ts): the service as listed (its own order, ties broken by the list's
 * order) and, for comparison, with its score ties ordered at random; baselines and BM25 with ties
 * at random. A tender a ranking does not return (not listed; score 0) never counts.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run eval
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { canonicalCounty } from "../src/domain/tenders/CountyDistance.js"
import { type Award, awardNoticesCsv, awards, awardsByWinner, cpvLabelOf, openNoticesJsonl } from "./eval/data.js"
import { FEEDBACK_MARKS, type FeedbackRow, feedbackRow, markRelevant, marksOf } from "./eval/feedback.js"
import { legacyWatchlistCase } from "./eval/legacy.js"
import {
  K,
  mean,
  precisionByList,
  precisionByScores,
  type TargetMetrics,
  targetByList,
  targetByScores
} from "./eval/metrics.js"
import { inTrade, TRADE_PROFILES } from "./eval/profiles.js"
import { Bm25Index, cpvPrefixScore, hybridScores, wordOverlapScore } from "./eval/rankers.js"
import {
  bundle,
  consultantTenant,
  fullList,
  log,
  mapLimit,
  noticeNoOf,
  OUT,
  type Service,
  startService
} from "./eval/service.js"

const CLI_CONCURRENCY = 3
/** EVAL_AFFINITY=off: the history cases without the learned CPV affinity (the "before" of 1x and 1t). */
const AFFINITY_OFF = process.env.EVAL_AFFINITY === "off"
/** EVAL_ONLY=history: 3a and the history cases (1, 1x, 1t, 3b-3d) alone, without case 2 and 2f. */
const HISTORY_ONLY = process.env.EVAL_ONLY === "history"
/** Open notices close in 60 days, so the service counts them as open (and rescores them). */
const DEADLINE = new Date(Date.now() + 60 * 86_400_000).toISOString()

const round3 = (x: number) => Number(x.toFixed(3))
/** The mean of one figure over rows, to 3 decimals: how every case's summary reads its rows. */
const meanOf = <R>(rows: ReadonlyArray<R>, pick: (row: R) => number) => round3(mean(rows.map(pick)))

interface HistoryCase {
  readonly winner: string
  readonly name: string
  readonly earlier: ReadonlyArray<Award>
  readonly target: Award
}

const byWinner = awardsByWinner()
/** Every winner's latest award: the open notices of cases 1 and 3b. */
const pool1: ReadonlyArray<Award> = [...byWinner.values()].map((won) => won[won.length - 1]!)
const earlierAwards: ReadonlyArray<Award> = [...byWinner.values()].flatMap((won) => won.slice(0, -1))
const historyCases: ReadonlyArray<HistoryCase> = [...byWinner.values()]
  .filter((won) => won.length >= 2)
  .map((won) => ({
    winner: won[0]!.winner,
    name: won[won.length - 1]!.winnerName,
    earlier: won.slice(0, -1),
    target: won[won.length - 1]!
  }))
const describe = (c: HistoryCase) => c.earlier.map((a) => a.title.trim()).join(". ")

interface TargetRow {
  readonly label: string
  readonly service: TargetMetrics
  readonly serviceTies: TargetMetrics
  readonly listed: number
  readonly baseline: TargetMetrics
  readonly bm25: TargetMetrics
  readonly hybrid: TargetMetrics
}

const summarizeTargets = (rows: ReadonlyArray<TargetRow>) => {
  const of = (pick: (r: TargetRow) => TargetMetrics) => ({
    hr_at_10: round3(mean(rows.map((r) => pick(r).hit))),
    mrr_at_10: round3(mean(rows.map((r) => pick(r).reciprocal))),
    target_returned: round3(mean(rows.map((r) => (pick(r).rank === null ? 0 : 1))))
  })
  return {
    companies: rows.length,
    mean_list_size: meanOf(rows, (r) => r.listed),
    service: of((r) => r.service),
    service_ties_random: of((r) => r.serviceTies),
    baseline: of((r) => r.baseline),
    bm25: of((r) => r.bm25),
    bm25_cpv_hybrid: of((r) => r.hybrid)
  }
}

/**
 * What the score floor (domain/scoring/ScoreFloor.ts) may not reach: the lowest score of a target
 * found in a top K (cases 1, 3b-3d), of a relevant tender in a top K (case 2), and of anything in a
 * top K. A floor at or below the first two loses no hit and no P@K; below the third, no top K changes.
 */
const floorProbe = { lowestHit: 101, lowestRelevantInTopK: 101, lowestInTopK: 101 }
const probeTopK = (list: ReadonlyArray<{ score: number }>) => {
  for (const item of list.slice(0, K)) floorProbe.lowestInTopK = Math.min(floorProbe.lowestInTopK, item.score)
}

/** The service's own order, and its scores with ties at random, for one company's list. */
const serviceMetrics = (list: ReadonlyArray<{ key: string; score: number }>, target: string) => {
  const scores = list.map((i) => i.score + 1)
  const index = list.findIndex((i) => i.key === target)
  probeTopK(list)
  if (index >= 0 && index < K) floorProbe.lowestHit = Math.min(floorProbe.lowestHit, list[index]!.score)
  return {
    service: targetByList(
      list.map((i) => i.key),
      target
    ),
    serviceTies: index < 0 ? { hit: 0, reciprocal: 0, rank: null } : targetByScores(scores, index)
  }
}

const readList = async (service: Service, apiKey: string, companyId: string) =>
  (await fullList(service, apiKey, companyId)).map((i) => ({
    key: noticeNoOf(i),
    score: i.score,
    tenderId: i.tender_id
  }))

/**
 * The history-pool variants, one tenant each on one database: what the company is created with.
 * Case 1 has no watchlist; 3b adds one to case 1; 3c is a watchlist and a description without a
 * fiscal code (the onboarding the service had before issue 11).
 */
const VARIANTS = [
  { key: "history", label: "history only", fiscalCode: true, watchlist: false, counties: false },
  { key: "watchHistory", label: "watchlist + history", fiscalCode: true, watchlist: true, counties: false },
  { key: "watchOnly", label: "watchlist, no fiscal code", fiscalCode: false, watchlist: true, counties: false },
  {
    key: "watchPlace",
    label: "watchlist + counties, no fiscal code",
    fiscalCode: false,
    watchlist: true,
    counties: true
  }
] as const

/** The counties of a company's earlier awards' authorities (case 3d), in the service's spelling. */
const countiesOf = (c: HistoryCase) => [...new Set(c.earlier.flatMap((a) => canonicalCounty(a.authorityCounty) ?? []))]
type VariantKey = (typeof VARIANTS)[number]["key"]

/** An account user of the tenant, logged in: an access token for the account API. */
const loginAs = async (service: Service, tenantId: string, name: string) => {
  const email = `eval-${name.toLowerCase()}-${process.pid}@eval.example`
  const password = "eval-password-2026"
  await service.cli(["user", "create", "--tenant", tenantId, "--email", email, "--password", password])
  const login = await fetch(`${service.baseUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password })
  })
  return ((await login.json()) as any).data.accessToken as string
}

/** Cases 1, 3b and 3c: one database, the same notices, one tenant per variant. */
const runHistoryCases = async () => {
  const service = await startService("history")
  try {
    const lists = new Map<VariantKey, Array<Array<{ key: string; score: number }>>>()
    const tenants = new Map<VariantKey, { tenantId: string; apiKey: string; companies: Array<string> }>()
    for (const variant of VARIANTS) {
      const tenant = await consultantTenant(service, `Eval: ${variant.label}`)
      log(`${variant.label}: creating ${historyCases.length} companies with the CLI`)
      const companies = await mapLimit(historyCases, CLI_CONCURRENCY, async (c) => {
        const created = await service.cli([
          "company",
          "create",
          "--tenant",
          tenant.tenantId,
          "--name",
          c.name,
          "--description",
          describe(c),
          ...(variant.fiscalCode ? ["--fiscal-code", c.winner] : [])
        ])
        return created.companyId as string
      })
      if (variant.watchlist) {
        const accessToken = await loginAs(service, tenant.tenantId, variant.key)
        for (const [i, c] of historyCases.entries()) {
          await service.http("POST", "/api/v1/watchlists", accessToken, {
            name: "Coduri CPV din contractele câștigate",
            companyId: companies[i]!,
            cpvCodes: [...new Set(c.earlier.map((a) => a.mainCpv))],
            keywords: [],
            minScore: 50
          })
          if (variant.counties && countiesOf(c).length > 0) {
            await service.http("PATCH", `/api/v1/companies/${companies[i]!}`, accessToken, { counties: countiesOf(c) })
          }
        }
      }
      tenants.set(variant.key, { ...tenant, companies })
    }

    const awardsFile = path.join(OUT, "history-award-notices.csv")
    const openFile = path.join(OUT, "history-open-notices.jsonl")
    fs.writeFileSync(awardsFile, awardNoticesCsv(earlierAwards))
    fs.writeFileSync(openFile, openNoticesJsonl(pool1, DEADLINE))
    log(`importing ${earlierAwards.length} award notices (SEAP CSV) and ${pool1.length} open notices (JSON)`)
    const importedAwards = await service.cli(["tenders", "import", awardsFile, "--format", "sicap"])
    await service.drained()
    const [learned] = await service.query<{ pairs: number; suppliers: number }>(
      "SELECT (SELECT count(*)::int FROM cpv_class_affinity) AS pairs, suppliers FROM cpv_affinity_state"
    )
    log(
      `CPV affinity learned from the award notices: ${learned!.pairs} class pairs (both directions), ${learned!.suppliers} suppliers`
    )
    if (AFFINITY_OFF) {
      // The service without affinity: the table emptied and its revision moved, so every scorer reloads it.
      await service.query("DELETE FROM cpv_class_affinity")
      await service.query("UPDATE cpv_affinity_state SET revision = revision + 1")
    }
    const importedOpen = await service.cli(["tenders", "import", openFile, "--format", "json"])
    log(`imports: ${JSON.stringify(importedAwards)} ${JSON.stringify(importedOpen)}; waiting for the worker`)
    await service.drained()

    for (const [key, tenant] of tenants) {
      lists.set(key, await mapLimit(tenant.companies, 4, (id) => readList(service, tenant.apiKey, id)))
    }
    return { lists, imports: { awards: importedAwards, open: importedOpen }, affinity: learned! }
  } finally {
    await service.stop()
  }
}

/** Case 2, its own database: all notices open, eight description-only companies. */
const runDescriptionCase = async () => {
  const service = await startService("description")
  try {
    const tenant = await consultantTenant(service, "Eval: description only")
    log(`case 2: creating ${TRADE_PROFILES.length} companies with the CLI`)
    const companyIds = await mapLimit(TRADE_PROFILES, CLI_CONCURRENCY, async (p) => {
      const created = await service.cli([
        "company",
        "create",
        "--tenant",
        tenant.tenantId,
        "--name",
        p.name,
        "--description",
        p.description
      ])
      return created.companyId as string
    })
    const openFile = path.join(OUT, "description-open-notices.jsonl")
    fs.writeFileSync(openFile, openNoticesJsonl(awards, DEADLINE))
    const imported = await service.cli(["tenders", "import", openFile, "--format", "json"])
    log(`import: ${JSON.stringify(imported)}; waiting for the worker`)
    await service.drained()
    const lists = await mapLimit(companyIds, 4, (id) => readList(service, tenant.apiKey, id))
    // Simulated feedback (bench/eval/feedback.ts): the top relevant tenders of each list marked relevant.
    const accessToken = await loginAs(service, tenant.tenantId, "feedback")
    const mainCpvOf = new Map(awards.map((a) => [a.key, a.mainCpv]))
    const marks = lists.map((list, i) => marksOf(list, (key) => inTrade(TRADE_PROFILES[i]!, mainCpvOf.get(key) ?? "")))
    for (const [i, companyId] of companyIds.entries()) await markRelevant(service, accessToken, companyId, marks[i]!)
    log(`feedback: ${marks.flat().length} tenders marked relevant; waiting for the worker`)
    await service.drained()
    const afterFeedback = await mapLimit(companyIds, 4, (id) => readList(service, tenant.apiKey, id))
    return { lists, imports: imported, marks, afterFeedback }
  } finally {
    await service.stop()
  }
}

/** Case 2f: P@10 on the rest of each list, before and after the simulated marks (bench/eval/feedback.ts). */
const feedbackCase = (descriptionRun: Awaited<ReturnType<typeof runDescriptionCase>>) => {
  const index2 = new Bm25Index(awards)
  const index2Labels = new Bm25Index(awards.map((a) => ({ ...a, description: cpvLabelOf(a.mainCpv) })))
  const rows: Array<FeedbackRow & { trade: string }> = TRADE_PROFILES.map((p, i) => ({
    trade: p.trade,
    ...feedbackRow({
      before: descriptionRun.lists[i]!,
      after: descriptionRun.afterFeedback[i]!,
      marks: descriptionRun.marks[i]!,
      pool: awards,
      index: index2,
      labelIndex: index2Labels,
      description: p.description,
      isRelevant: (key) => inTrade(p, awards.find((a) => a.key === key)?.mainCpv ?? "")
    })
  }))
  const summary = {
    profiles: rows.length,
    marks_per_company: FEEDBACK_MARKS,
    marked: rows.reduce((n, r) => n + r.marked, 0),
    p_at_10_rest: {
      service_before: meanOf(rows, (r) => r.before),
      service_after: meanOf(rows, (r) => r.after),
      bm25: meanOf(rows, (r) => r.bm25),
      bm25_with_cpv_labels: meanOf(rows, (r) => r.bm25Labels),
      bm25_with_feedback_titles: meanOf(rows, (r) => r.bm25Feedback),
      ideal: meanOf(rows, (r) => r.ideal)
    }
  }
  return { rows, summary }
}

/** Case 2 and 2f from the description run: P@10 per profile beside word overlap, BM25 and BM25 + CPV label. */
const descriptionCases = (descriptionRun: Awaited<ReturnType<typeof runDescriptionCase>>) => {
  const index2 = new Bm25Index(awards)
  const index2Labels = new Bm25Index(awards.map((a) => ({ ...a, description: cpvLabelOf(a.mainCpv) })))
  const case2Rows = TRADE_PROFILES.map((p, i) => {
    const relevant = awards.map((a) => inTrade(p, a.mainCpv))
    const relevantKeys = new Set(awards.filter((a) => inTrade(p, a.mainCpv)).map((a) => a.key))
    const list = descriptionRun.lists[i]!
    const listScores = list.map((item) => item.score + 1)
    probeTopK(list)
    for (const item of list.slice(0, K)) {
      if (relevantKeys.has(item.key))
        floorProbe.lowestRelevantInTopK = Math.min(floorProbe.lowestRelevantInTopK, item.score)
    }
    return {
      trade: p.trade,
      relevantInPool: relevantKeys.size,
      ideal: Math.min(K, relevantKeys.size) / K,
      listed: list.length,
      service: precisionByList(
        list.map((item) => item.key),
        (key) => relevantKeys.has(key)
      ),
      serviceTies: precisionByScores(
        listScores,
        list.map((item) => relevantKeys.has(item.key))
      ),
      baseline: precisionByScores(
        awards.map((a) => wordOverlapScore(p.description, a)),
        relevant
      ),
      bm25: precisionByScores(index2.scores(p.description), relevant),
      bm25Labels: precisionByScores(index2Labels.scores(p.description), relevant)
    }
  })
  const { rows: feedbackRows, summary: case2Feedback } = feedbackCase(descriptionRun)
  const case2 = {
    profiles: case2Rows.length,
    pool_size: awards.length,
    mean_list_size: meanOf(case2Rows, (r) => r.listed),
    p_at_10: {
      service: meanOf(case2Rows, (r) => r.service),
      service_ties_random: meanOf(case2Rows, (r) => r.serviceTies),
      baseline_word_overlap: meanOf(case2Rows, (r) => r.baseline),
      bm25: meanOf(case2Rows, (r) => r.bm25),
      bm25_with_cpv_labels: meanOf(case2Rows, (r) => r.bm25Labels),
      ideal: meanOf(case2Rows, (r) => r.ideal)
    }
  }

  return { case2Rows, case2, feedbackRows, case2Feedback }
}

const pad = (cells: ReadonlyArray<string | number>) => `| ${cells.join(" | ")} |`
const fmt = (x: number) => x.toFixed(3)
const rankText = (m: TargetMetrics) =>
  m.rank === null ? "–" : Number.isInteger(m.rank) ? `${m.rank}` : m.rank.toFixed(1)

const main = async () => {
  const started = Date.now()
  log("bundling the CLI, API and worker entry points")
  await bundle()
  // EVAL_ONLY=feedback: case 2 and its simulated feedback only (a few minutes instead of ~16).
  if (process.env.EVAL_ONLY === "feedback") {
    const { rows, summary } = feedbackCase(await runDescriptionCase())
    console.log(JSON.stringify({ measured_at: new Date().toISOString(), case2f_feedback: summary, rows }, null, 2))
    return
  }

  // Case 3a first: no database, seconds.
  const legacy = legacyWatchlistCase()

  const historyRun = await runHistoryCases()
  const index1 = new Bm25Index(pool1)
  const poolKeys1 = pool1.map((a) => a.key)
  /** The CPV prefix, and half a digit more in one of the company's counties: the place-aware baseline of 3d. */
  const prefixThenCounty = (a: Award, codes: ReadonlyArray<string>, counties: ReadonlyArray<string>) => {
    const prefix = cpvPrefixScore(a.mainCpv, codes)
    return prefix > 0 && counties.includes(canonicalCounty(a.authorityCounty) ?? "") ? prefix + 0.5 : prefix
  }
  const rowsFor = (variant: VariantKey) =>
    historyCases.map((c, i): TargetRow => {
      const list = historyRun.lists.get(variant)![i]!
      const targetIndex = poolKeys1.indexOf(c.target.key)
      const codes = [...new Set(c.earlier.map((a) => a.mainCpv))]
      const counties = variant === "watchPlace" ? countiesOf(c) : []
      const baseline = pool1.map((a) => prefixThenCounty(a, codes, counties))
      const bm25 = index1.scores(describe(c))
      return {
        label: `${c.name} (${c.winner})`,
        ...serviceMetrics(list, c.target.key),
        listed: list.length,
        baseline: targetByScores(baseline, targetIndex),
        bm25: targetByScores(bm25, targetIndex),
        hybrid: targetByScores(hybridScores(bm25, baseline), targetIndex)
      }
    })
  const case1Rows = rowsFor("history")
  const divisionOf = (a: Award) => a.mainCpv.slice(0, 2)
  const crossBranch = (c: HistoryCase) => c.earlier.every((a) => divisionOf(a) !== divisionOf(c.target))
  const thinHistory = (c: HistoryCase) => c.earlier.length <= 2
  const case1xRows = case1Rows.filter((_, i) => crossBranch(historyCases[i]!))
  const case1tRows = case1Rows.filter((_, i) => thinHistory(historyCases[i]!))
  const case3bRows = rowsFor("watchHistory")
  const case3cRows = rowsFor("watchOnly")
  const case3dRows = rowsFor("watchPlace")

  const descriptionRun = HISTORY_ONLY ? null : await runDescriptionCase()
  const described = descriptionRun === null ? null : descriptionCases(descriptionRun)

  const case1 = { pool_size: pool1.length, award_notices: earlierAwards.length, ...summarizeTargets(case1Rows) }
  const case1x = { pool_size: pool1.length, ...summarizeTargets(case1xRows) }
  const case1t = { pool_size: pool1.length, ...summarizeTargets(case1tRows) }
  const case3b = { pool_size: pool1.length, ...summarizeTargets(case3bRows) }
  const case3c = { pool_size: pool1.length, ...summarizeTargets(case3cRows) }
  const case3d = { pool_size: pool1.length, ...summarizeTargets(case3dRows) }
  const result = {
    data: "bench/data/sicap_pnrr_direct_awards_until_2024-03.csv",
    measured_at: new Date().toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    model_version_in_process: legacy.modelVersion,
    cpv_affinity: { off: AFFINITY_OFF, learned_from_award_notices: historyRun.affinity },
    case1_history_only: case1,
    case1x_cross_branch_wins: case1x,
    case1t_thin_history: case1t,
    ...(described === null
      ? {}
      : { case2_description_only: described.case2, case2f_feedback: described.case2Feedback }),
    case3a_watchlist_in_process: {
      companies: legacy.companies,
      pool_size: legacy.poolSize,
      hr_at_10: {
        model: round3(legacy.model.hr),
        cpv_only_baseline: round3(legacy.cpvOnly.hr),
        bm25: round3(legacy.bm25.hr),
        bm25_cpv_hybrid: round3(legacy.hybrid.hr),
        random: round3(legacy.random.hr)
      },
      mrr_at_10: {
        model: round3(legacy.model.mrr),
        cpv_only_baseline: round3(legacy.cpvOnly.mrr),
        bm25: round3(legacy.bm25.mrr),
        bm25_cpv_hybrid: round3(legacy.hybrid.mrr)
      }
    },
    case3b_watchlist_and_history: case3b,
    case3c_watchlist_no_fiscal_code: case3c,
    case3d_place_counties_set_no_fiscal_code: case3d,
    imports: { history: historyRun.imports, description: descriptionRun?.imports ?? null },
    score_floor_probe: {
      lowest_score_of_a_top10_hit: floorProbe.lowestHit,
      lowest_score_of_a_relevant_tender_in_a_top10: floorProbe.lowestRelevantInTopK,
      lowest_score_in_any_top10: floorProbe.lowestInTopK
    }
  }

  // The per-case tables, as Markdown: summary on stdout, everything in .bench-out/eval/report.md.
  type TargetSummary = ReturnType<typeof summarizeTargets>
  const targetLines = (title: string, c: TargetSummary, note: string) => [
    pad([
      `${title} (${c.companies} companies, pool ${pool1.length})`,
      "HR@10",
      fmt(c.service.hr_at_10),
      fmt(c.service_ties_random.hr_at_10),
      fmt(c.baseline.hr_at_10),
      fmt(c.bm25.hr_at_10),
      fmt(c.bm25_cpv_hybrid.hr_at_10),
      note
    ]),
    pad([
      "",
      "MRR@10",
      fmt(c.service.mrr_at_10),
      fmt(c.service_ties_random.mrr_at_10),
      fmt(c.baseline.mrr_at_10),
      fmt(c.bm25.mrr_at_10),
      fmt(c.bm25_cpv_hybrid.mrr_at_10),
      `mean list size ${c.mean_list_size.toFixed(1)}; target listed ${fmt(c.service.target_returned)}`
    ])
  ]
  const descriptionLines = (d: NonNullable<typeof described>) => [
    pad([
      `2. description only (${d.case2.profiles} profiles, pool ${d.case2.pool_size})`,
      "P@10",
      fmt(d.case2.p_at_10.service),
      fmt(d.case2.p_at_10.service_ties_random),
      fmt(d.case2.p_at_10.baseline_word_overlap),
      fmt(d.case2.p_at_10.bm25),
      fmt(d.case2.p_at_10.bm25_with_cpv_labels),
      `baseline: word overlap; hybrid: BM25 over text + CPV label (no codes in the profile); ideal ${fmt(d.case2.p_at_10.ideal)}; mean list size ${d.case2.mean_list_size.toFixed(1)}`
    ]),
    pad([
      `2f. description + feedback (${FEEDBACK_MARKS} relevant marks each, the rest)`,
      "P@10",
      fmt(d.case2Feedback.p_at_10_rest.service_after),
      "–",
      fmt(d.case2Feedback.p_at_10_rest.service_before),
      fmt(d.case2Feedback.p_at_10_rest.bm25),
      fmt(d.case2Feedback.p_at_10_rest.bm25_with_cpv_labels),
      `baseline: the service before the marks; hybrid: BM25 over text + CPV label; BM25 + marked titles ${fmt(d.case2Feedback.p_at_10_rest.bm25_with_feedback_titles)}; ideal ${fmt(d.case2Feedback.p_at_10_rest.ideal)}`
    ])
  ]
  const summary = [
    pad([
      "case",
      "metric",
      "service (as listed)",
      "service (ties random)",
      "naive baseline",
      "BM25 full text",
      "BM25 + CPV hybrid",
      "note"
    ]),
    pad(["---", "---", "---", "---", "---", "---", "---", "---"]),
    ...targetLines("1. history only", case1, "baseline: CPV prefix"),
    ...targetLines(
      "1x. cross-branch wins (case 1, target in another CPV division)",
      case1x,
      `baseline: CPV prefix; affinity ${AFFINITY_OFF ? "off" : "on"}, ${historyRun.affinity.pairs} class pairs learned`
    ),
    ...targetLines("1t. thin history (case 1, 1-2 earlier awards)", case1t, "baseline: CPV prefix"),
    ...(described === null ? [] : descriptionLines(described)),
    pad([
      `3a. watchlist + history, in process (${legacy.companies} companies, pool ${legacy.poolSize})`,
      "HR@10",
      fmt(legacy.model.hr),
      "–",
      fmt(legacy.cpvOnly.hr),
      fmt(legacy.bm25.hr),
      fmt(legacy.hybrid.hr),
      `baseline: the model's cpv factor; model ${legacy.modelVersion}`
    ]),
    pad([
      "",
      "MRR@10",
      fmt(legacy.model.mrr),
      "–",
      fmt(legacy.cpvOnly.mrr),
      fmt(legacy.bm25.mrr),
      fmt(legacy.hybrid.mrr),
      ""
    ]),
    ...targetLines("3b. watchlist + history", case3b, "baseline: CPV prefix"),
    ...targetLines("3c. watchlist + description, no fiscal code", case3c, "baseline: CPV prefix"),
    ...targetLines(
      "3d. place: 3c + counties of the earlier awards set",
      case3d,
      "baseline: CPV prefix, county as tie-break"
    )
  ].join("\n")

  const perTarget = (rows: ReadonlyArray<TargetRow>) =>
    [
      pad(["company (fiscal code)", "listed", "service rank", "CPV-prefix rank", "BM25 rank", "hybrid rank"]),
      pad(["---", "---", "---", "---", "---", "---"]),
      ...rows.map((r) =>
        pad([
          r.label.replace(/\|/g, "/"),
          r.listed,
          rankText(r.service),
          rankText(r.baseline),
          rankText(r.bm25),
          rankText(r.hybrid)
        ])
      )
    ].join("\n")
  const perProfile = (case2Rows: NonNullable<typeof described>["case2Rows"]) =>
    [
      pad([
        "trade",
        "relevant in pool",
        "listed",
        "service P@10",
        "ties random",
        "word overlap",
        "BM25",
        "BM25 + CPV label",
        "ideal"
      ]),
      pad(["---", "---", "---", "---", "---", "---", "---", "---", "---"]),
      ...case2Rows.map((r) =>
        pad([
          r.trade,
          r.relevantInPool,
          r.listed,
          fmt(r.service),
          fmt(r.serviceTies),
          fmt(r.baseline),
          fmt(r.bm25),
          fmt(r.bm25Labels),
          fmt(r.ideal)
        ])
      )
    ].join("\n")
  const descriptionReport = (d: NonNullable<typeof described>) => [
    "## Case 2, per profile",
    "",
    perProfile(d.case2Rows),
    "",
    "## Case 2f, feedback, per profile (P@10 on the rest)",
    "",
    [
      pad(["trade", "marked", "before", "after", "BM25", "BM25 + CPV label", "BM25 + marked titles", "ideal"]),
      pad(["---", "---", "---", "---", "---", "---", "---", "---"]),
      ...d.feedbackRows.map((r) =>
        pad([
          r.trade,
          r.marked,
          fmt(r.before),
          fmt(r.after),
          fmt(r.bm25),
          fmt(r.bm25Labels),
          fmt(r.bm25Feedback),
          fmt(r.ideal)
        ])
      )
    ].join("\n"),
    ""
  ]
  const report = [
    `# npm run eval, ${result.measured_at}`,
    "",
    summary,
    "",
    ...(described === null ? [] : descriptionReport(described)),
    "## Case 1, per company (ranks; expected rank inside a tie group; – = not returned)",
    "",
    perTarget(case1Rows),
    "",
    "## Case 1x (cross-branch wins), per company",
    "",
    perTarget(case1xRows),
    "",
    "## Case 1t (thin history), per company",
    "",
    perTarget(case1tRows),
    "",
    "## Case 3b, per company",
    "",
    perTarget(case3bRows),
    "",
    "## Case 3c, per company",
    "",
    perTarget(case3cRows),
    "",
    "## Case 3d (place), per company",
    "",
    perTarget(case3dRows),
    ""
  ].join("\n")
  fs.writeFileSync(path.join(OUT, "report.md"), report)
  fs.writeFileSync(path.join(OUT, "result.json"), JSON.stringify(result, null, 2))

  console.log(JSON.stringify(result, null, 2))
  const profiles = described === null ? "" : `${perProfile(described.case2Rows)}\n\n`
  console.log(`\n${summary}\n\n${profiles}per-company tables: ${path.join(OUT, "report.md")}`)
}

await main()
