/**
 * `npm run bench -- reports`: 100-tender PDF reports through the renderer actor, warm browser.
 *
 * The renderer runs as the worker runs it: its own child process (src/bin/renderer.ts) driven over
 * @effect/rpc, one warm Chromium (CHROMIUM_PATH or the shipped @sparticuz/chromium), 2 renders at
 * once (RENDER_CONCURRENCY). The report is the real template (src/domain/reports/ReportTemplate.ts)
 * over 100 tenders with Romanian text and the factor breakdown of the top 5.
 *
 * 1. Start the renderer and warm it up (REPORTS_BENCH_WARMUP renders, default 5; not timed).
 * 2. Sequential: REPORTS_BENCH_SEQUENTIAL renders (default 40) one after another: p50/p95/max of
 *    template + render (the worker's time per report without the database).
 * 3. Throughput: REPORTS_BENCH_BURST renders (default 60) offered at once, 2 at a time: reports per
 *    second (the machine's load average is printed beside it: the figures mean little on a busy host).
 * Prints one JSON report.
 *
 *   npm run bench -- reports
 */
import { readdirSync, readFileSync } from "node:fs"
import { availableParallelism, loadavg } from "node:os"
import { Duration, Effect, ManagedRuntime, Option } from "effect"
import type { ReportData, ReportTender } from "../src/domain/reports/ReportData.js"
import { reportFooterHtml, reportHtml } from "../src/domain/reports/ReportTemplate.js"
import { PdfRenderer, RENDER_CONCURRENCY, RendererProcessLive } from "../src/infra/reports/PdfRenderer.js"

const WARMUP = Number(process.env.REPORTS_BENCH_WARMUP ?? 5)
const SEQUENTIAL = Number(process.env.REPORTS_BENCH_SEQUENTIAL ?? 40)
const BURST = Number(process.env.REPORTS_BENCH_BURST ?? 60)
const TENDERS = 100

const log = (line: string) => console.error(`[bench reports] ${line}`)

const report = (seed: number): ReportData => {
  const tenders: Array<ReportTender> = Array.from({ length: TENDERS }, (_, i) => {
    const score = 98 - ((i * 7 + seed) % 95)
    const verdict: ReportTender["verdict"] = score >= 70 ? "GO" : score >= 40 ? "RESEARCH" : "SKIP"
    return {
      tenderId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      title: `Reabilitare și modernizare drum județean DJ ${100 + i}, lot ${seed % 7}: poduri, podețe și șanțuri în comuna Florești`,
      score,
      verdict,
      cpvCode: "45233120-6",
      cpvLabel: "Lucrări de construcții de drumuri",
      authority: "Consiliul Județean Cluj",
      county: "Cluj",
      deadline: Date.UTC(2026, 11, 15, 10),
      cancelled: false,
      publishDate: Date.UTC(2026, 10, 1, 8),
      valueRon: 1_250_000 + i * 10_000
    }
  }).sort((a, b) => b.score - a.score)
  const count = (verdict: string) => tenders.filter((t) => t.verdict === verdict).length
  return {
    tenantName: "Demo Consultanță Achiziții SRL",
    companyName: "Drumuri și Poduri Transilvania SRL",
    watchlistName: null,
    params: { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 0, watchlist_id: null },
    generatedAt: Date.now(),
    totalTenders: TENDERS,
    verdictCounts: { GO: count("GO"), RESEARCH: count("RESEARCH"), SKIP: count("SKIP") },
    averageScore: tenders.reduce((a, t) => a + t.score, 0) / TENDERS,
    totalValueRon: tenders.reduce((a, t) => a + (t.valueRon ?? 0), 0),
    tenders,
    breakdowns: tenders.slice(0, 5).map((t) => ({
      tenderId: t.tenderId,
      title: t.title,
      score: t.score,
      verdict: t.verdict,
      deadline: t.deadline,
      cancelled: t.cancelled,
      reasons: {
        semantic: "descrierea are în comun: asfaltare, drum, județean, reabilitare",
        keyword: "cuvinte cheie găsite: asfaltare, drum județean",
        cpv: "codul CPV principal 45233120-6 se află în categoria 45233, pe care o urmăriți",
        value_fit: "1,3 mil. RON, în intervalul urmărit 0,3-40 mil. RON",
        historical: "ați câștigat 3 contracte: 2 de la această autoritate, 1 în clasa 4523"
      },
      factors: [
        { name: "semantic", score: 0.81, weight: 0.25, contribution: 20.25 },
        { name: "keyword", score: 0.55, weight: 0.15, contribution: 8.25 },
        { name: "cpv", score: 1, weight: 0.3, contribution: 30 },
        { name: "value_fit", score: 1, weight: 0.1, contribution: 10 },
        { name: "historical", score: 0.5, weight: 0.2, contribution: 10 }
      ]
    }))
  }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const summary = (times: ReadonlyArray<number>) => {
  const sorted = [...times].sort((a, b) => a - b)
  const round = (n: number) => Math.round(n * 10) / 10
  return {
    n: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    max_ms: round(sorted.at(-1)!)
  }
}

/**
 * CPU time (user + system, ms) of a process and all its descendants, from /proc (Linux): the
 * renderer process and its Chromium. Unlike wall time it hardly depends on what else the host runs.
 */
const treeCpuMs = (root: number): number => {
  const ticks = 100 // USER_HZ on Linux
  const stats = new Map<number, { ppid: number; cpu: number }>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const raw = readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = raw.slice(raw.lastIndexOf(")") + 2).split(" ")
      stats.set(Number(entry), { ppid: Number(fields[1]), cpu: Number(fields[11]) + Number(fields[12]) })
    } catch {}
  }
  let total = 0
  const visit = (pid: number) => {
    total += stats.get(pid)?.cpu ?? 0
    for (const [child, stat] of stats) if (stat.ppid === pid) visit(child)
  }
  visit(root)
  return (total * 1000) / ticks
}
const ownCpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const runtime = ManagedRuntime.make(
  RendererProcessLive({
    chromiumPath: Option.fromNullable(process.env.CHROMIUM_PATH || undefined),
    concurrency: RENDER_CONCURRENCY,
    renderTimeout: Duration.seconds(30)
  })
)

/** Template + render of one report through the actor; its own time in ms and the PDF's size. */
const renderOne = (seed: number) =>
  Effect.gen(function* () {
    const renderer = yield* PdfRenderer
    const started = performance.now()
    const data = report(seed)
    const pdf = yield* renderer.render({ html: reportHtml(data), footerHtml: reportFooterHtml(data) })
    return { ms: performance.now() - started, bytes: pdf.byteLength }
  })

const main = Effect.gen(function* () {
  const startedAt = performance.now()
  yield* renderOne(0)
  const firstMs = performance.now() - startedAt
  log(`renderer process + Chromium started, first report in ${Math.round(firstMs)} ms`)
  for (let i = 1; i < WARMUP; i++) yield* renderOne(i)
  const rendererPid = Option.getOrThrow(yield* Effect.flatMap(PdfRenderer, (r) => r.rendererPid))
  const cpuBefore = treeCpuMs(rendererPid) + ownCpuMs()
  const sequential: Array<number> = []
  let bytes = 0
  for (let i = 0; i < SEQUENTIAL; i++) {
    const one = yield* renderOne(100 + i)
    sequential.push(one.ms)
    bytes = one.bytes
  }
  const cpuPerReport = (treeCpuMs(rendererPid) + ownCpuMs() - cpuBefore) / SEQUENTIAL
  log(`sequential: ${JSON.stringify(summary(sequential))}, ${Math.round(cpuPerReport)} ms CPU per report`)
  const burstStart = performance.now()
  yield* Effect.all(
    Array.from({ length: BURST }, (_, i) => renderOne(1000 + i)),
    { concurrency: "unbounded" }
  )
  const burstSeconds = (performance.now() - burstStart) / 1000
  return {
    bench: "reports",
    tenders_per_report: TENDERS,
    cores: availableParallelism(),
    render_concurrency: RENDER_CONCURRENCY,
    cold_first_report_ms: Math.round(firstMs),
    pdf_bytes: bytes,
    sequential: summary(sequential),
    // Template + IPC + Chromium, all processes: the cost of a report on an idle core.
    cpu_ms_per_report: Math.round(cpuPerReport),
    burst: {
      reports: BURST,
      seconds: Math.round(burstSeconds * 100) / 100,
      reports_per_second: Math.round((BURST / burstSeconds) * 100) / 100
    },
    load_average_1m: Math.round(loadavg()[0]! * 10) / 10
  }
})

const result = await runtime.runPromise(main).finally(() => runtime.dispose())
console.log(JSON.stringify(result, null, 2))
