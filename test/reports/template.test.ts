import { describe, expect, it } from "@effect/vitest"
import { clipped } from "../../src/domain/ClippedText.js"
import type { ReportData } from "../../src/domain/reports/ReportData.js"
import {
  CANCELLED_MARK,
  deadlinePassed,
  REPORT_AUTHORITY_MAX,
  REPORT_TITLE_MAX,
  reportFooterHtml,
  reportHtml,
  verdictChartSvg
} from "../../src/domain/reports/ReportTemplate.js"

/** The report's HTML (the renderer prints it as is): what it shows, in Romanian, and that data is never markup. */

// 2026-11-23 15:05 UTC = 17:05 in Bucharest (UTC+2 in winter).
const GENERATED_AT = Date.parse("2026-11-23T15:05:00Z")

const REASONS = {
  semantic: "descrierea are în comun: asfaltare, drum",
  keyword: "cuvinte cheie găsite: <b>asfaltare</b>",
  cpv: "codul CPV principal 45233120-6 se află în categoria 45233, pe care o urmăriți",
  value_fit: "2 mil. RON, în intervalul urmărit 0,3-40 mil. RON",
  historical: "fără cod fiscal nu există un istoric de contracte de comparat"
}

const data = (overrides: Partial<ReportData> = {}): ReportData => ({
  tenantName: "Consultanță <Achiziții> SRL",
  companyName: "Drumuri și Poduri Transilvania SRL",
  watchlistName: 'Drumuri "județene"',
  params: { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 40, watchlist_id: null },
  generatedAt: GENERATED_AT,
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
      cpvLabel: "Lucrări de construcții de drumuri",
      authority: "Consiliul Județean Cluj",
      county: "Cluj",
      deadline: Date.parse("2026-12-15T10:00:00Z"),
      cancelled: false,
      publishDate: Date.parse("2026-11-05T09:00:00Z"),
      valueRon: 2_000_000
    },
    {
      tenderId: "t2",
      title: "Modernizare străzi în Târgu Mureș",
      score: 64,
      verdict: "RESEARCH",
      cpvCode: "45233120-6",
      cpvLabel: "Lucrări de construcții de drumuri",
      authority: "Municipiul Târgu Mureș",
      county: "Mureș",
      // Passed four days before the report: marked.
      deadline: Date.parse("2026-11-19T08:30:00Z"),
      cancelled: false,
      publishDate: Date.parse("2026-11-02T09:00:00Z"),
      valueRon: 1_400_000
    }
  ],
  breakdowns: [
    {
      tenderId: "t1",
      title: "Asfaltare DJ 107",
      score: 91,
      verdict: "GO",
      deadline: Date.parse("2026-12-15T10:00:00Z"),
      cancelled: false,
      reasons: REASONS,
      factors: [
        { name: "cpv", score: 1, weight: 0.3, contribution: 30 },
        { name: "semantic", score: 0.8, weight: 0.25, contribution: 20 },
        { name: "keyword", score: 0.5, weight: 0.15, contribution: 7.5 }
      ]
    },
    {
      tenderId: "t2",
      title: "Modernizare străzi în Târgu Mureș",
      score: 64,
      verdict: "RESEARCH",
      deadline: Date.parse("2026-11-19T08:30:00Z"),
      cancelled: false,
      reasons: null,
      factors: [{ name: "value_fit", score: 0.61, weight: 0.1, contribution: 6.1 }]
    }
  ],
  ...overrides
})

/** The text a reader sees: tags and the style sheet removed, entities left escaped. */
const visibleText = (html: string) =>
  html
    .replace(/<style>[\s\S]*?<\/style>/, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")

const rowOf = (html: string, title: string) =>
  /<tr[^>]*>(?:(?!<\/tr>).)*<\/tr>/g.exec(html.slice(html.indexOf(title) - 400))?.[0] ?? ""

describe("report template", () => {
  it("names the tenant, the company, the period, the filters and the generation time, in Romanian dates", () => {
    const html = reportHtml(data())
    expect(html).toContain("Consultanță &lt;Achiziții&gt; SRL · Tender Scoring")
    expect(html).toContain("Raport de oportunități: Drumuri și Poduri Transilvania SRL")
    expect(html).toContain("Perioada: 01.11.2026 – 30.11.2026")
    expect(html).toContain("scor minim 40, listă de urmărire „Drumuri &quot;județene&quot;”")
    expect(html).toContain("Generat la 23.11.2026, 17:05, ora României (UTC+02:00)")
    expect(reportFooterHtml(data())).toContain("Drumuri și Poduri Transilvania SRL · 01.11.2026 – 30.11.2026")
  })

  it("shows verdicts with the app's Romanian words, never GO / RESEARCH / SKIP", () => {
    const html = reportHtml(data())
    expect(html).toContain("MERITĂ<b>2</b>")
    expect(html).toContain("DE ANALIZAT<b>1</b>")
    expect(html).toContain("NU MERITĂ<b>0</b>")
    expect(html).toContain(`<span class="verdict go">MERITĂ</span>`)
    expect(html).toContain(`<span class="verdict research">DE ANALIZAT</span>`)
    expect(verdictChartSvg({ GO: 1, RESEARCH: 2, SKIP: 3 })).toContain(">NU MERITĂ</text>")
    expect(visibleText(html)).not.toMatch(/\b(GO|RESEARCH|SKIP)\b/)
  })

  it("writes numbers as ro-RO does: decimal comma, '.' between thousands; scores in whole points, factors in %", () => {
    const html = reportHtml(data())
    const text = visibleText(html)
    expect(html).toContain("Scor mediu<b>71,3</b>")
    expect(html).toContain("Valoare estimată totală<b>3.400.000 RON</b>")
    expect(text).toContain("2.000.000 RON")
    // Factor: share and weight as percentages, contribution in points (7,5), one decimal at most.
    expect(html).toMatch(
      /Cuvinte cheie<\/td><td class="num">50%<\/td><td class="num">15%<\/td><td class="num">7,5<\/td>/
    )
    expect(html).toMatch(/Coduri CPV<\/td><td class="num">100%<\/td><td class="num">30%<\/td><td class="num">30<\/td>/)
    expect(html).toMatch(/Valoare<\/td><td class="num">61%<\/td><td class="num">10%<\/td><td class="num">6,1<\/td>/)
    // No English decimal point anywhere a reader sees (dates use dots between day, month and year).
    expect(text).not.toMatch(/\d\.\d{1,2}(?![\d.])/)
    expect(text).not.toMatch(/\d,\d{3}\b/)
  })

  it("writes deadlines as Bucharest day and hour, and marks those passed at the generation time", () => {
    const html = reportHtml(data())
    expect(html).toContain("15.12.2026, 12:00")
    expect(html).toContain("19.11.2026, 10:30")
    expect(rowOf(html, "Modernizare străzi în Târgu Mureș</td>")).toContain("termen expirat")
    expect(rowOf(html, "Asfaltare DJ 107</td>")).not.toContain("termen expirat")
    expect(html).toContain("O licitație are termenul de depunere depășit la data raportului")
    expect(html.match(/termen expirat<\/span>/g)).toHaveLength(2) // its row and its breakdown
    // The rule: at or before the generation time.
    expect(deadlinePassed(GENERATED_AT, GENERATED_AT)).toBe(true)
    expect(deadlinePassed(GENERATED_AT + 1, GENERATED_AT)).toBe(false)
    expect(deadlinePassed(null, GENERATED_AT)).toBe(false)
    // Summer time: UTC+3.
    const summer = reportHtml(
      data({ generatedAt: Date.parse("2026-07-01T09:00:00Z"), breakdowns: [], tenders: [data().tenders[0]!] })
    )
    expect(summer).toContain("Generat la 01.07.2026, 12:00, ora României (UTC+03:00)")
    expect(summer).not.toContain("termen expirat")
  })

  it("marks a cancelled procedure, in the table and the breakdown, whatever its deadline, and counts it", () => {
    const [first, second] = data().tenders
    const [top] = data().breakdowns
    const html = reportHtml(
      data({ tenders: [{ ...first!, cancelled: true }, second!], breakdowns: [{ ...top!, cancelled: true }] })
    )
    // Its deadline is still to come: without the mark the report would read as open for offers.
    expect(deadlinePassed(first!.deadline, GENERATED_AT)).toBe(false)
    const row = /<tr[^>]*>(?:(?!<\/tr>).)*Asfaltare DJ 107<\/td>(?:(?!<\/tr>).)*<\/tr>/.exec(html)?.[0] ?? ""
    expect(row).toContain(`<tr class="closed">`)
    expect(row).toContain(CANCELLED_MARK)
    expect(row).not.toContain("termen expirat")
    expect(html.match(new RegExp(`${CANCELLED_MARK}</span>`, "g"))).toHaveLength(2) // its row and its breakdown
    expect(visibleText(html)).toContain(`O procedură a fost anulată (marcate „${CANCELLED_MARK}”)`)
    expect(rowOf(html, "Modernizare străzi în Târgu Mureș</td>")).not.toContain(CANCELLED_MARK)
    expect(reportHtml(data())).not.toContain(CANCELLED_MARK)
  })

  it("gives the top tenders their Romanian reason sentences, escaped, factors in the model's order", () => {
    const html = reportHtml(data())
    expect(html).toContain("De ce aceste scoruri: primele 2 licitații")
    expect(html).toContain(
      `<td class="reason">codul CPV principal 45233120-6 se află în categoria 45233, pe care o urmăriți</td>`
    )
    expect(html).toContain("cuvinte cheie găsite: &lt;b&gt;asfaltare&lt;/b&gt;")
    expect(html).toContain(`<td class="reason">descrierea are în comun: asfaltare, drum</td>`)
    const first = html.slice(html.indexOf("Asfaltare DJ 107</b>"))
    expect(first.indexOf("Potrivire cu descrierea")).toBeLessThan(first.indexOf("Cuvinte cheie"))
    expect(first.indexOf("Cuvinte cheie")).toBeLessThan(first.indexOf("Coduri CPV"))
    // A breakdown without reasons says so with a dash, not with English.
    expect(html).toContain(`<td class="reason">—</td>`)
  })

  it("shows the tender table with the CPV label as stored; a title is text", () => {
    const html = reportHtml(data())
    for (const column of ["Scor", "Verdict", "Titlu", "CPV", "Autoritate contractantă", "Județ", "Termen", "Valoare"])
      expect(html).toContain(`<th>${column}</th>`)
    expect(html).toContain(`aria-label="Distribuția verdictelor"`)
    expect(html).toContain("Consiliul Județean Cluj")
    expect(html).toContain("Lucrări de construcții de drumuri")
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt; Asfaltare DJ 107")
    expect(html).not.toContain("<img")
    expect(html).not.toMatch(/<script/i)
  })

  it("prints a very long title or authority name shortened at a word, with an ellipsis; a short one whole", () => {
    const longTitle = `Reabilitare ${"drum comunal și podețe ".repeat(1_000)}etapa a doua`
    const longAuthority = `Unitatea Administrativ Teritorială ${"Comuna Sânpetru de Câmpie ".repeat(100)}`
    const [first, second] = data().tenders
    const html = reportHtml(
      data({
        tenders: [{ ...first!, title: longTitle, authority: longAuthority }, second!],
        breakdowns: [{ ...data().breakdowns[0]!, title: longTitle }]
      })
    )
    const printed = visibleText(html)
    const shortened =
      /Reabilitare (?:drum comunal și podețe )*(?:drum comunal și podețe|drum comunal și|drum comunal|drum)…/g
    const titles = printed.match(shortened) ?? []
    // Once in the table, once in the top tenders' breakdown; never the whole title.
    expect(titles).toHaveLength(2)
    for (const title of titles) expect([...title].length).toBeLessThanOrEqual(REPORT_TITLE_MAX)
    expect(printed).not.toContain("etapa a doua")
    const authority = /Unitatea Administrativ Teritorială [^…]*…/.exec(printed)?.[0] ?? ""
    expect([...authority].length).toBeGreaterThan(REPORT_AUTHORITY_MAX / 2)
    expect([...authority].length).toBeLessThanOrEqual(REPORT_AUTHORITY_MAX)
    expect(html.length).toBeLessThan(40_000)
    expect(printed).toContain("Modernizare străzi în Târgu Mureș")
    expect(clipped("Asfaltare DJ 107", 16)).toBe("Asfaltare DJ 107")
    expect(clipped("Asfaltare DJ 1071", 16)).toBe("Asfaltare DJ…")
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
    expect(html).toContain("între 01.11.2026 – 30.11.2026")
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
