import type { Browser } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { projectFile } from "../../src/infra/config/ProjectFiles.js"
import { type AppServer, launchBrowser, logIn, openPage, startAppServer, texts } from "./support/AppServer.js"

/**
 * The Alerts and Watchlists screens of a consultant with several client companies, in a real
 * Chromium against the real API and worker over the demo data: each alert names its company, and a
 * watchlist's CPV codes show their Romanian labels (list and editor).
 */

const DOCS = projectFile("docs")

describe("alerts and watchlists in the browser app", () => {
  let server: AppServer
  let browser: Browser

  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startAppServer(), launchBrowser()])
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  const session = async () => {
    const opened = await openPage(browser)
    await logIn(opened.page, server.baseUrl, server.demo.email, server.demo.password)
    return opened
  }

  it("the Alerts screen names each alert's company, in the API's order (newest, then highest score)", async () => {
    const { page, problems, close } = await session()
    await page.click("[data-testid=nav-alerts]")
    await page.waitForSelector("[data-testid=alert-company]")
    const shown = await texts(page, "[data-testid=alert] .title")
    const companies = await texts(page, "[data-testid=alert-company]")
    const expected = await server.sql(
      (q) => q<{ title: string; company: string }>`
        SELECT t.title, c.name AS company FROM alerts a
        JOIN tenders t ON t.id = a.tender_id JOIN companies c ON c.id = a.company_id
        WHERE a.tenant_id = ${server.demo.tenantId}
        ORDER BY a.created_at DESC, a.score DESC, a.id DESC LIMIT 20`
    )
    expect(expected.length).toBeGreaterThan(0)
    expect(shown).toEqual(expected.map((row) => row.title))
    expect(companies).toEqual(expected.map((row) => row.company))
    // The demo is a consultant's workspace: its alerts span both client companies.
    const allCompanies = await server.sql(
      (q) => q<{ n: number }>`
        SELECT count(DISTINCT company_id)::int AS n FROM alerts WHERE tenant_id = ${server.demo.tenantId}`
    )
    expect(allCompanies[0]!.n).toBeGreaterThan(1)
    await page.screenshot({ path: `${DOCS}/alerts.png` })
    expect(problems).toEqual([])
    await close()
  })

  it("the Watchlists screen shows each CPV code with its Romanian label, and so does the editor's chips", async () => {
    const { page, problems, close } = await session()
    const companyId = server.demo.companyIds[0]!
    await page.goto(`${server.baseUrl}/companies/${companyId}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist-cpv] li")
    // Labels arrive after the list (one CPV search per distinct code).
    await page.waitForFunction(() =>
      [...document.querySelectorAll("[data-testid=cpv-label]")].every((label) => (label.textContent ?? "") !== "")
    )
    const shown = await page.$$eval("[data-testid=watchlist-cpv] li", (items) =>
      items.map((item) => [
        item.getAttribute("data-code") ?? "",
        item.querySelector("[data-testid=cpv-label]")?.textContent ?? ""
      ])
    )
    const codes = [...new Set(shown.map(([code]) => code!))]
    expect(codes.length).toBeGreaterThan(0)
    const table = await server.sql(
      (q) => q<{ code: string; label_ro: string }>`
        SELECT rtrim(code_full) AS code, label_ro FROM cpv_codes WHERE rtrim(code_full) = ANY(${codes})`
    )
    const labelOf = new Map(table.map((row) => [row.code, row.label_ro]))
    expect(shown).toEqual(shown.map(([code]) => [code, labelOf.get(code!)]))
    await page.screenshot({ path: `${DOCS}/watchlists.png` })

    // The editor's chips carry the same labels.
    const firstCodes = await page.$$eval(
      "[data-testid=watchlist]:first-child [data-testid=watchlist-cpv] li",
      (items) => items.map((item) => item.getAttribute("data-code") ?? "")
    )
    await page.click("[data-testid=watchlist]:first-child .actions button")
    await page.waitForSelector("[data-testid=cpv-chosen] .chip-label")
    const chips = await page.$$eval("[data-testid=cpv-chosen] .chip", (items) =>
      items.map((item) => [
        item.querySelector("code")?.textContent ?? "",
        item.querySelector(".chip-label")?.textContent ?? ""
      ])
    )
    expect(chips).toEqual(firstCodes.map((code) => [code, labelOf.get(code)]))
    expect(problems).toEqual([])
    await close()
  })
})
