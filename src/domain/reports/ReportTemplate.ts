import { bucharestDate, bucharestIso } from "../BucharestTime.js"
import type { Verdict } from "../scoring/Verdict.js"
import type { ReportData, ReportTender } from "./ReportData.js"
import { REPORT_MAX_TENDERS } from "./ReportJob.js"

/**
 * The report as plain HTML: every value from the database passes through `escapeHtml`, so a tender
 * title is text, never markup. No script, no external resource: the page renders offline.
 */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

const VERDICT_COLOURS: Record<Verdict, string> = { GO: "#1b7f3b", RESEARCH: "#c98a00", SKIP: "#9aa0a6" }
const VERDICTS: ReadonlyArray<Verdict> = ["GO", "RESEARCH", "SKIP"]
const FACTOR_LABELS: Record<string, string> = {
  semantic: "Similaritate text",
  keyword: "Cuvinte cheie",
  cpv: "Potrivire CPV",
  value_fit: "Încadrare valoare",
  historical: "Istoric câștiguri"
}

const ron = new Intl.NumberFormat("ro-RO", { maximumFractionDigits: 0 })
const decimal = new Intl.NumberFormat("ro-RO", { maximumFractionDigits: 1 })

const formatRon = (value: number | null) => (value === null ? "—" : `${ron.format(value)} lei`)
const formatDate = (millis: number | null) => (millis === null ? "—" : bucharestDate(millis))
/** `2026-11-23 17:05 (+02:00)`: the generation time in Europe/Bucharest. */
const formatBucharestTime = (millis: number) => {
  const iso = bucharestIso(millis)
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} (ora României, UTC${iso.slice(19)})`
}

/** A horizontal bar chart of the verdict counts, as inline SVG. */
export const verdictChartSvg = (counts: ReportData["verdictCounts"]): string => {
  const max = Math.max(1, ...VERDICTS.map((v) => counts[v]))
  const rows = VERDICTS.map((verdict, i) => {
    const width = Math.round((counts[verdict] / max) * 300)
    const y = 10 + i * 34
    return [
      `<text x="0" y="${y + 17}" font-size="13" fill="#333">${verdict}</text>`,
      `<rect x="90" y="${y}" width="${Math.max(width, 1)}" height="24" rx="3" fill="${VERDICT_COLOURS[verdict]}"/>`,
      `<text x="${96 + width}" y="${y + 17}" font-size="13" fill="#333">${counts[verdict]}</text>`
    ].join("")
  }).join("")
  return `<svg xmlns="http://www.w3.org/2000/svg" width="460" height="112" role="img" aria-label="Distribuția verdictelor">${rows}</svg>`
}

const tenderRow = (t: ReportTender) =>
  `<tr><td class="num">${t.score}</td><td><span class="verdict ${t.verdict.toLowerCase()}">${t.verdict}</span></td>` +
  `<td>${escapeHtml(t.title)}</td>` +
  `<td><span class="cpv">${escapeHtml(t.cpvCode)}</span><br/><small>${escapeHtml(t.cpvLabel)}</small></td>` +
  `<td>${escapeHtml(t.authority)}</td><td>${escapeHtml(t.county ?? "—")}</td>` +
  `<td class="nowrap">${formatDate(t.deadline)}</td><td class="num nowrap">${formatRon(t.valueRon)}</td></tr>`

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
  .cpv { font-family: monospace; }
  .verdict { font-weight: bold; padding: 1px 4px; border-radius: 3px; color: #fff; font-size: 8px; }
  .verdict.go { background: ${VERDICT_COLOURS.GO}; } .verdict.research { background: ${VERDICT_COLOURS.RESEARCH}; }
  .verdict.skip { background: ${VERDICT_COLOURS.SKIP}; }
  .empty { border: 1px dashed #aab; padding: 16px; text-align: center; font-size: 12px; color: #555; }
  .breakdown { margin-bottom: 8px; page-break-inside: avoid; }
`

/** The page footer: Chromium fills `pageNumber` and `totalPages` (puppeteer's footerTemplate). */
export const reportFooterHtml = (data: ReportData): string =>
  `<div style="width:100%;font-size:8px;color:#666;padding:0 12mm;display:flex;justify-content:space-between;font-family:Arial,sans-serif">` +
  `<span>${escapeHtml(data.companyName)} · ${escapeHtml(data.params.date_from)} – ${escapeHtml(data.params.date_to)}</span>` +
  `<span>Pagina <span class="pageNumber"></span> din <span class="totalPages"></span></span></div>`

export const reportHtml = (data: ReportData): string => {
  const { params } = data
  const period = `${escapeHtml(params.date_from)} – ${escapeHtml(params.date_to)}`
  const filters = [
    `scor minim ${params.min_score}`,
    ...(data.watchlistName === null ? [] : [`listă de urmărire „${escapeHtml(data.watchlistName)}”`])
  ].join(", ")
  const summary =
    `<div class="cards">` +
    `<div class="card">Licitații<b>${data.totalTenders}</b></div>` +
    `<div class="card">GO<b>${data.verdictCounts.GO}</b></div>` +
    `<div class="card">RESEARCH<b>${data.verdictCounts.RESEARCH}</b></div>` +
    `<div class="card">SKIP<b>${data.verdictCounts.SKIP}</b></div>` +
    `<div class="card">Scor mediu<b>${data.averageScore === null ? "—" : decimal.format(data.averageScore)}</b></div>` +
    `<div class="card">Valoare estimată totală<b>${formatRon(data.totalValueRon)}</b></div>` +
    `</div>`
  const body =
    data.totalTenders === 0
      ? `<p class="empty">Nicio licitație în această perioadă: niciun anunț publicat între ${period} nu are, pentru această companie, un scor de cel puțin ${params.min_score}.</p>`
      : [
          `<h2>Distribuția verdictelor</h2>`,
          verdictChartSvg(data.verdictCounts),
          `<h2>Licitații (${data.tenders.length}${data.totalTenders > data.tenders.length ? ` din ${data.totalTenders}, primele ${REPORT_MAX_TENDERS} după scor` : ""})</h2>`,
          `<table><thead><tr><th>Scor</th><th>Verdict</th><th>Titlu</th><th>CPV</th><th>Autoritate contractantă</th><th>Județ</th><th>Termen</th><th>Valoare</th></tr></thead>`,
          `<tbody>${data.tenders.map(tenderRow).join("")}</tbody></table>`,
          `<h2>Detalierea scorului: primele ${data.breakdowns.length} licitații</h2>`,
          ...data.breakdowns.map(
            (b) =>
              `<div class="breakdown"><b>${escapeHtml(b.title)}</b> · scor ${b.score}<table><thead><tr><th>Factor</th><th class="num">Scor (0-1)</th><th class="num">Pondere</th><th class="num">Contribuție</th></tr></thead><tbody>` +
              b.factors
                .map(
                  (f) =>
                    `<tr><td>${FACTOR_LABELS[f.name] ?? f.name}</td><td class="num">${f.score.toFixed(2)}</td><td class="num">${f.weight.toFixed(2)}</td><td class="num">${f.contribution.toFixed(2)}</td></tr>`
                )
                .join("") +
              `</tbody></table></div>`
          )
        ].join("")
  return (
    `<!DOCTYPE html><html lang="ro"><head><meta charset="utf-8"/><title>Raport licitații – ${escapeHtml(data.companyName)}</title>` +
    `<style>${STYLE}</style></head><body>` +
    `<header><div class="brand">${escapeHtml(data.tenantName)} · Tender Scoring</div>` +
    `<h1>Raport de oportunități: ${escapeHtml(data.companyName)}</h1>` +
    `<div class="meta">Perioada: ${period} · Filtre: ${filters} · Generat la ${formatBucharestTime(data.generatedAt)}</div></header>` +
    `<h2>Sumar</h2>${summary}${body}</body></html>`
  )
}
