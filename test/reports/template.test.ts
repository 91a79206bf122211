import { describe, expect, it } from "@effect/vitest"
import type { ReportData } from "../../src/domain/reports/ReportData.js"
import { reportFooterHtml, reportHtml, verdictChartSvg } from "../../src/domain/reports/ReportTemplate.js"

/** The report's HTML (the renderer prints it as is): what it shows, and that data is never markup. */

const data = (overrides: Partial<ReportData> = {}): ReportData => ({
  tenantName: "Consultanță <Achiziții> SRL",
  companyName: "Drumuri și Poduri Transilvania SRL",
  watchlistName: 'Drumuri "județene"',
  params: { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 40, watchlist_id: null },
  // 2026-11-23 15:05 UTC = 17:05 in Bucharest (UTC+2 in winter).
  generatedAt: Date.parse("2026-11-23T15:05:00Z"),
  totalTenders: 3,
  verdictCounts: { GO: 2, RESEARCH: 1, SKIP: 0 },
  averageScore: 71.333,
  totalValueRon: 3_400_000,
  tenders: [
    {
      tenderId: "t1",
      title: `<img src=x onerror=alert(1)> Asfaltare DJ 107`,
      score: 91,
      verdict: "GO",
      cpvCode: "45233120-6",
      cpvLabel: "Lucrări de construcţii de drumuri",
      authority: "Consiliul Județean Cluj",
      county: "Cluj",
      deadline: Date.parse("2026-12-15T10:00:00Z"),
      publishDate: Date.parse("2026-11-05T09:00:00Z"),
      valueRon: 2_000_000
    }
  ],
  breakdowns: [
    {
      tenderId: "t1",
      title: "Asfaltare DJ 107",
      score: 91,
      factors: [
        { name: "semantic", score: 0.8, weight: 0.25, contribution: 20 },
        { name: "cpv", score: 1, weight: 0.3, contribution: 30 }
      ]
    }
  ],
  ...overrides
})

describe("report template", () => {
  it("names the tenant, the company, the period, the filters and the generation time in Bucharest", () => {
    const html = reportHtml(data())
    expect(html).toContain("Consultanță &lt;Achiziții&gt; SRL · Tender Scoring")
    expect(html).toContain("Raport de oportunități: Drumuri și Poduri Transilvania SRL")
    expect(html).toContain("Perioada: 2026-11-01 – 2026-11-30")
    expect(html).toContain("scor minim 40, listă de urmărire „Drumuri &quot;județene&quot;”")
    expect(html).toContain("Generat la 2026-11-23 17:05 (ora României, UTC+02:00)")
  })

  it("shows the summary, the verdict chart, the tender table and the factor breakdown; a title is text", () => {
    const html = reportHtml(data())
    expect(html).toContain("GO<b>2</b>")
    expect(html).toContain(`aria-label="Distribuția verdictelor"`)
    for (const column of ["Scor", "Verdict", "Titlu", "CPV", "Autoritate contractantă", "Județ", "Termen", "Valoare"])
      expect(html).toContain(`<th>${column}</th>`)
    expect(html).toContain("Consiliul Județean Cluj")
    expect(html).toContain("Lucrări de construcţii de drumuri")
    expect(html).toContain("Detalierea scorului: primele 1 licitații")
    expect(html).toContain("<td>Potrivire CPV</td>")
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt; Asfaltare DJ 107")
    expect(html).not.toContain("<img")
    expect(html).not.toMatch(/<script/i)
  })

  it("an empty period still gives a report that says so", () => {
    const html = reportHtml(
      data({
        totalTenders: 0,
        verdictCounts: { GO: 0, RESEARCH: 0, SKIP: 0 },
        averageScore: null,
        tenders: [],
        breakdowns: []
      })
    )
    expect(html).toContain("Nicio licitație în această perioadă")
    expect(html).not.toContain("Distribuția verdictelor</h2>")
  })

  it("draws bars proportional to the counts, and the footer numbers the pages", () => {
    const svg = verdictChartSvg({ GO: 4, RESEARCH: 2, SKIP: 0 })
    const widths = [...svg.matchAll(/<rect [^>]*width="(\d+)"/g)].map((m) => Number(m[1]))
    expect(widths).toEqual([300, 150, 1])
    expect(reportFooterHtml(data())).toMatch(
      /Pagina <span class="pageNumber"><\/span> din <span class="totalPages"><\/span>/
    )
  })
})
