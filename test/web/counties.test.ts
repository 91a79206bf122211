import type { HTTPRequest, Page } from "puppeteer-core"
import { describe, expect, it } from "vitest"
import { t } from "../../src/web/strings.js"
import { appAndBrowser, clickUntilShown, logInAsDemo, openPage, texts } from "./support/AppServer.js"

/** Place (issue 21) in the browser app: a company's counties and a watchlist's county filter, set and shown. */
describe("counties in the browser app", () => {
  const app = appAndBrowser()

  it("the company form sets the counties it works in; the watchlist form its county filter", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const [first] = await app.server.sql(
      (q) => q<{ id: string }>`
        SELECT id FROM companies WHERE tenant_id = ${app.server.demo.tenantId} ORDER BY created_at, id LIMIT 1`
    )
    await page.waitForSelector("[data-testid=company]")
    await page.click("[data-testid=company]:first-child .actions button")
    await page.waitForSelector("[data-testid=company-counties-picker] select")
    await page.select("[data-testid=company-counties-picker] select", "Gorj")
    await page.select("[data-testid=company-counties-picker] select", "Vâlcea")
    expect(await texts(page, "[data-testid=county-chosen] .chip")).toEqual(["Gorj×", "Vâlcea×"])
    await page.click("[data-testid=company-form] button[type=submit]")
    await page.waitForSelector("[data-testid=company-form]", { hidden: true })
    await page.waitForSelector("[data-testid=company-counties]")
    expect(await texts(page, "[data-testid=company]:first-child [data-testid=company-counties]")).toEqual([
      "Județe: Gorj, Vâlcea"
    ])
    const [stored] = await app.server.sql(
      (q) => q<{ counties: ReadonlyArray<string> }>`SELECT counties FROM companies WHERE id = ${first!.id}`
    )
    expect(stored!.counties).toEqual(["Gorj", "Vâlcea"])

    await page.goto(`${app.server.baseUrl}/companies/${first!.id}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    await clickUntilShown(
      page,
      "[data-testid=watchlist]:first-child .actions button",
      "[data-testid=watchlist-counties-picker] select"
    )
    await page.select("[data-testid=watchlist-counties-picker] select", "Dolj")
    await page.click("[data-testid=save-watchlist]")
    await page.waitForSelector("[data-testid=watchlist-counties]")
    expect(await texts(page, "[data-testid=watchlist-counties]")).toEqual(["Județe: Dolj"])
    const filtered = await app.server.sql(
      (q) => q<{ counties: ReadonlyArray<string> }>`
        SELECT counties FROM watchlists WHERE company_id = ${first!.id} AND cardinality(counties) > 0`
    )
    expect(filtered.map((w) => w.counties)).toEqual([["Dolj"]])
    expect(problems).toEqual([])
    await close()
  })

  it("counties the server refuses are marked at the picker: aria-invalid, the Romanian reason beside it", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    // What an app older than the server's county list would send: a name the server does not know.
    // The server's own 400 answers it (the request reaches it, rewritten).
    await page.setRequestInterception(true)
    page.on("request", (request: HTTPRequest) => {
      const body = request.postData()
      if (request.method() !== "PATCH" || body === undefined || !body.includes('"counties"')) return request.continue()
      return request.continue({ postData: JSON.stringify({ ...JSON.parse(body), counties: ["Atlantida"] }) })
    })
    /** The picker's list: whether it is marked refused, what describes it, and what is beside it. */
    const pickerState = (picker: string) =>
      page.$eval(`${picker} select`, (select) => ({
        ariaInvalid: select.getAttribute("aria-invalid"),
        description: document.getElementById(select.getAttribute("aria-describedby") ?? "")?.textContent ?? null,
        beside: select.closest(".field")?.querySelector("[data-testid=field-error]")?.textContent ?? null
      }))
    const refusedState = { ariaInvalid: "true", description: t.errors.reason.county, beside: t.errors.reason.county }
    const saveRefused = async (page: Page, form: string, picker: string, submit: string) => {
      expect((await pickerState(picker)).ariaInvalid).toBeNull()
      await page.select(`${picker} select`, "Olt")
      await page.click(submit)
      await page.waitForSelector(`${form} [data-testid=error]`)
      expect(await pickerState(picker)).toEqual(refusedState)
    }

    await page.click("[data-testid=company]:first-child .actions button")
    await page.waitForSelector("[data-testid=company-counties-picker] select")
    await saveRefused(
      page,
      "[data-testid=company-form]",
      "[data-testid=company-counties-picker]",
      "[data-testid=company-form] button[type=submit]"
    )
    // The form stays open with what was picked.
    expect(await texts(page, "[data-testid=company-counties-picker] .chip")).toContain("Olt×")

    const [first] = await app.server.sql(
      (q) => q<{ id: string }>`
        SELECT id FROM companies WHERE tenant_id = ${app.server.demo.tenantId} ORDER BY created_at, id LIMIT 1`
    )
    await page.goto(`${app.server.baseUrl}/companies/${first!.id}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    await clickUntilShown(
      page,
      "[data-testid=watchlist]:first-child .actions button",
      "[data-testid=watchlist-counties-picker] select"
    )
    await saveRefused(
      page,
      "[data-testid=watchlist-form]",
      "[data-testid=watchlist-counties-picker]",
      "[data-testid=save-watchlist]"
    )
    await close()
  })
})
