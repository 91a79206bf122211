import { bucharestIso } from "../BucharestTime.js"
import { clipped } from "../ClippedText.js"
import { formatRoCalendarDate, formatRoDateTime, formatRoNumber } from "../RomanianFormat.js"
import type { FactorName } from "../scoring/Model.js"
import { FACTOR_LABELS_RO, VERDICT_LABELS_RO } from "../scoring/RomanianLabels.js"
import type { Verdict } from "../scoring/Verdict.js"
import type { ReportBreakdown, ReportData, ReportTender } from "./ReportData.js"
import { REPORT_MAX_TENDERS } from "./ReportJob.js"

/**
 * The report as plain HTML: every value from the database passes through `escapeHtml`, so a tender
 * title is text, never markup. No script, no external resource: the page renders offline.
 * Romanian throughout, as the app: its verdict and factor words (RomanianLabels), ro-RO numbers
 * (RomanianFormat), Bucharest dates `DD.MM.YYYY`. Scores are whole points 0-100 everywhere; a
 * factor is its share as a percentage with its weight, and its contribution in points.
 */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

/**
 * The longest title and authority name a report prints (characters, `clipped`); the API keeps them
 * whole. A notice title of thousands of characters could keep a 500-row report from rendering in its
 * time budget.
 */
export const REPORT_TITLE_MAX = 300
export const REPORT_AUTHORITY_MAX = 150

const VERDICT_COLOURS: Record<Verdict, string> = { GO: "#1b7f3b", RESEARCH: "#c98a00", SKIP: "#9aa0a6" }
const VERDICTS: ReadonlyArray<Verdict> = ["GO", "RESEARCH", "SKIP"]

/** The mark of a tender whose deadline had passed when the report was generated. */
export const PASSED_DEADLINE_MARK = "termen expirat"

/** A deadline at or before the generation time has passed: the tender no longer takes offers. */
export const deadlinePassed = (deadline: number | null, generatedAt: number): boolean =>
  deadline !== null && deadline <= generatedAt

/** The mark of a tender whose procedure was cancelled: it takes no offers whatever its deadline says. */
export const CANCELLED_MARK = "procedură anulată"

/** The mark a tender gets, if any: a cancellation is told before a passed deadline. */
const closedMark = (t: { readonly deadline: number | null; readonly cancelled: boolean }, generatedAt: number) =>
  t.cancelled ? CANCELLED_MARK : deadlinePassed(t.deadline, generatedAt) ? PASSED_DEADLINE_MARK : null

const formatRon = (value: number | null) => (value === null ? "—" : `${formatRoNumber(value)} RON`)
const formatPercent = (fraction: number) => `${formatRoNumber(fraction * 100)}%`
const formatPeriod = (params: ReportData["params"]) =>
  `${formatRoCalendarDate(params.date_from)} – ${formatRoCalendarDate(params.date_to)}`
/** `23.11.2026, 17:05, ora României (UTC+02:00)`: the generation time in Europe/Bucharest. */
const formatGeneratedAt = (millis: number) =>
  `${formatRoDateTime(millis)}, ora României (UTC${bucharestIso(millis).slice(19)})`

/** The deadline's day and hour in Bucharest, marked when it has passed or the procedure was cancelled. */
const deadlineHtml = (mark: string | null, deadline: number | null) =>
  (deadline === null ? "fără termen" : formatRoDateTime(deadline)) +
  (mark === null ? "" : `<br/><span class="passed">${mark}</span>`)

const verdictBadge = (verdict: Verdict) =>
  `<span class="verdict ${verdict.toLowerCase()}">${VERDICT_LABELS_RO[verdict]}</span>`

/** A horizontal bar chart of the verdict counts, as inline SVG. */
export const verdictChartSvg = (counts: ReportData["verdictCounts"]): string => {
  const max = Math.max(1, ...VERDICTS.map((v) => counts[v]))
  const rows = VERDICTS.map((verdict, i) => {
    const width = Math.round((counts[verdict] / max) * 300)
    const y = 10 + i * 34
    return [
      `<text x="0" y="${y + 17}" font-size="13" fill="#333">${VERDICT_LABELS_RO[verdict]}</text>`,
      `<rect x="110" y="${y}" width="${Math.max(width, 1)}" height="24" rx="3" fill="${VERDICT_COLOURS[verdict]}"/>`,
      `<text x="${116 + width}" y="${y + 17}" font-size="13" fill="#333">${formatRoNumber(counts[verdict])}</text>`
    ].join("")
  }).join("")
  return `<svg xmlns="http://www.w3.org/2000/svg" width="460" height="112" role="img" aria-label="Distribuția verdictelor">${rows}</svg>`
}

const tenderRow = (generatedAt: number) => (t: ReportTender) => {
  const mark = closedMark(t, generatedAt)
  return (
    `<tr${mark === null ? "" : ` class="closed"`}><td class="num">${t.score}</td><td>${verdictBadge(t.verdict)}</td>` +
    `<td class="wrap">${escapeHtml(clipped(t.title, REPORT_TITLE_MAX))}</td>` +
    `<td><span class="cpv">${escapeHtml(t.cpvCode)}</span><br/><small>${escapeHtml(t.cpvLabel)}</small></td>` +
    `<td class="wrap">${escapeHtml(clipped(t.authority, REPORT_AUTHORITY_MAX))}</td><td>${escapeHtml(t.county ?? "—")}</td>` +
    `<td class="nowrap">${deadlineHtml(mark, t.deadline)}</td><td class="num nowrap">${formatRon(t.valueRon)}</td></tr>`
  )
}

const FACTOR_ORDER: ReadonlyArray<FactorName> = ["semantic", "keyword", "cpv", "value_fit", "historical"]

/** One of the top tenders: its verdict and deadline, each factor with its share, weight, points and reason. */
const breakdownHtml = (generatedAt: number) => (b: ReportBreakdown) => {
  const factors = [...b.factors].sort((x, y) => FACTOR_ORDER.indexOf(x.name) - FACTOR_ORDER.indexOf(y.name))
  const mark = closedMark(b, generatedAt)
  return (
    `<div class="breakdown wrap"><b>${escapeHtml(clipped(b.title, REPORT_TITLE_MAX))}</b> · scor ${b.score} · ${verdictBadge(b.verdict)} · termen ${b.deadline === null ? "fără termen" : formatRoDateTime(b.deadline)}` +
    (mark === null ? "" : ` <span class="passed">${mark}</span>`) +
    `<table><thead><tr><th>Factor</th><th class="num">Potrivire</th><th class="num">Pondere</th><th class="num">Puncte</th><th>De ce</th></tr></thead><tbody>` +
    factors
      .map(
        (f) =>
          `<tr><td class="nowrap">${FACTOR_LABELS_RO[f.name]}</td><td class="num">${formatPercent(f.score)}</td>` +
          `<td class="num">${formatPercent(f.weight)}</td><td class="num">${formatRoNumber(f.contribution, 1)}</td>` +
          `<td class="reason">${escapeHtml(b.reasons?.[f.name] ?? "—")}</td></tr>`
      )
      .join("") +
    `</tbody></table></div>`
  )
}

const STYLE = `
  @page { size: A4; margin: 18mm 12mm 18mm 12mm; }
  * { box-sizing: border-box; }
  body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 10px; color: #222; margin: 0; }
  header { border-bottom: 3px solid #123c69; padding-bottom: 8px; margin-bottom: 12px; }
  header .brand { color: #123c69; font-size: 11px; letter-spacing: .04em; }
  h1 { font-size: 20px; margin: 4px 0; color: #123c69; }
  h2 { font-size: 14px; color: #123c69; margin: 16px 0 6px; }
  .meta { color: #555; }
  .cards { display: flex; gap: 8px; margin: 8px 0; }
  .card { flex: 1; border: 1px solid #d5dbe3; border-radius: 4px; padding: 6px 8px; }
  .card b { display: block; font-size: 16px; color: #123c69; }
  table { width: 100%; border-collapse: collapse; }
  th, td { border-bottom: 1px solid #e3e7ec; padding: 3px 4px; text-align: left; vertical-align: top; }
  th { background: #eef2f7; font-size: 9px; text-transform: uppercase; }
  tr { page-break-inside: avoid; }
  .num { text-align: right; }
  .nowrap { white-space: nowrap; }
  /* Notice text may hold a run with no break (a file name, a code list): it wraps inside its cell.
     Without it the table outgrows the page and Chromium shrinks the whole report to fit. */
  .wrap { overflow-wrap: anywhere; }
  .cpv { font-family: monospace; }
  .verdict { font-weight: bold; padding: 1px 4px; border-radius: 3px; color: #fff; font-size: 8px; }
  .verdict.go { background: ${VERDICT_COLOURS.GO}; } .verdict.research { background: ${VERDICT_COLOURS.RESEARCH}; }
  .verdict.skip { background: ${VERDICT_COLOURS.SKIP}; }
  .empty { border: 1px dashed #aab; padding: 16px; text-align: center; font-size: 12px; color: #555; }
  .breakdown { margin-bottom: 8px; page-break-inside: avoid; }
  .breakdown table { margin-top: 3px; }
  .reason { color: #444; }
  .passed { color: #a61b1b; font-weight: bold; font-size: 8px; text-transform: uppercase; }
  tr.closed td { color: #777; }
`

/** The page footer: Chromium fills `pageNumber` and `totalPages` (puppeteer's footerTemplate). */
export const reportFooterHtml = (data: ReportData): string =>
  `<div style="width:100%;font-size:8px;color:#666;padding:0 12mm;display:flex;justify-content:space-between;font-family:Arial,sans-serif">` +
  `<span>${escapeHtml(data.companyName)} · ${escapeHtml(formatPeriod(data.params))}</span>` +
  `<span>Pagina <span class="pageNumber"></span> din <span class="totalPages"></span></span></div>`

export const reportHtml = (data: ReportData): string => {
  const { params, generatedAt } = data
  const period = escapeHtml(formatPeriod(params))
  const filters = [
    `scor minim ${params.min_score}`,
    ...(data.watchlistName === null ? [] : [`listă de urmărire „${escapeHtml(data.watchlistName)}”`])
  ].join(", ")
  const passedListed = data.tenders.filter((t) => closedMark(t, generatedAt) === PASSED_DEADLINE_MARK).length
  const cancelledListed = data.tenders.filter((t) => t.cancelled).length
  const summary =
    `<div class="cards">` +
    `<div class="card">Licitații<b>${formatRoNumber(data.totalTenders)}</b></div>` +
    VERDICTS.map(
      (verdict) =>
        `<div class="card">${VERDICT_LABELS_RO[verdict]}<b>${formatRoNumber(data.verdictCounts[verdict])}</b></div>`
    ).join("") +
    `<div class="card">Scor mediu<b>${data.averageScore === null ? "—" : formatRoNumber(data.averageScore, 1)}</b></div>` +
    `<div class="card">Valoare estimată totală<b>${formatRon(data.totalValueRon)}</b></div>` +
    `</div>`
  const body =
    data.totalTenders === 0
      ? `<p class="empty">Nicio licitație în această perioadă: niciun anunț publicat între ${period} nu are, pentru această companie, un scor de cel puțin ${params.min_score}.</p>`
      : [
          `<h2>Distribuția verdictelor</h2>`,
          verdictChartSvg(data.verdictCounts),
          `<h2>Licitații (${formatRoNumber(data.tenders.length)}${data.totalTenders > data.tenders.length ? ` din ${formatRoNumber(data.totalTenders)}, primele ${REPORT_MAX_TENDERS} după scor` : ""})</h2>`,
          passedListed === 0
            ? ""
            : `<p class="meta">${passedListed === 1 ? "O licitație are" : `${formatRoNumber(passedListed)} licitații au`} termenul de depunere depășit la data raportului (marcate „${PASSED_DEADLINE_MARK}”).</p>`,
          cancelledListed === 0
            ? ""
            : `<p class="meta">${cancelledListed === 1 ? "O procedură a fost anulată" : `${formatRoNumber(cancelledListed)} proceduri au fost anulate`} (marcate „${CANCELLED_MARK}”): nu se mai pot depune oferte.</p>`,
          `<table><thead><tr><th>Scor</th><th>Verdict</th><th>Titlu</th><th>CPV</th><th>Autoritate contractantă</th><th>Județ</th><th>Termen</th><th>Valoare</th></tr></thead>`,
          `<tbody>${data.tenders.map(tenderRow(generatedAt)).join("")}</tbody></table>`,
          `<h2>De ce aceste scoruri: ${data.breakdowns.length === 1 ? "prima licitație" : `primele ${data.breakdowns.length} licitații`}</h2>`,
          ...data.breakdowns.map(breakdownHtml(generatedAt))
        ].join("")
  return (
    `<!DOCTYPE html><html lang="ro"><head><meta charset="utf-8"/><title>Raport licitații – ${escapeHtml(data.companyName)}</title>` +
    `<style>${STYLE}</style></head><body>` +
    `<header><div class="brand">${escapeHtml(data.tenantName)} · Tender Scoring</div>` +
    `<h1>Raport de oportunități: ${escapeHtml(data.companyName)}</h1>` +
    `<div class="meta">Perioada: ${period} · Filtre: ${filters} · Generat la ${formatGeneratedAt(generatedAt)}</div></header>` +
    `<h2>Sumar</h2>${summary}${body}</body></html>`
  )
}
