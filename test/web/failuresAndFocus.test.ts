import type { HTTPRequest, Page } from "puppeteer-core"
import { describe, expect, it, vi } from "vitest"
import { t } from "../../src/web/strings.js"
import { appAndBrowser, logInAsDemo, openPage } from "./support/AppServer.js"

/**
 * What the app does when a load fails, a browser refuses, or an action removes the button that had
 * the focus: the user is told, can retry, and keeps a place on the page.
 */
describe("failures and focus in the browser app", () => {
  const app = appAndBrowser()

  /** Answers the first GET whose URL `matches` with a 503 (a passing failure), then lets the rest through. */
  const failFirst = async (page: Page, matches: RegExp | ((url: URL) => boolean)) => {
    const test = typeof matches === "function" ? matches : (url: URL) => matches.test(url.pathname)
    let failed = 0
    await page.setRequestInterception(true)
    page.on("request", (request: HTTPRequest) => {
      if (request.method() === "GET" && test(new URL(request.url())) && failed === 0) {
        failed++
        return request.respond({ status: 503, contentType: "text/plain", body: "busy" })
      }
      return request.continue()
    })
    return () => failed
  }

  const heading = (page: Page) => page.$eval("h1", (h) => h.textContent ?? "")
  const unreadCount = async () =>
    (
      await app.server.sql(
        (q) => q<{ n: number }>`
          SELECT count(*)::int AS n FROM alerts WHERE tenant_id = ${app.server.demo.tenantId} AND NOT read`
      )
    )[0]!.n

  it("'mark all read' under a filter asks first (it marks every alert of the account); declined, nothing is marked", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const before = await unreadCount()
    expect(before).toBeGreaterThan(0)
    const questions: Array<string> = []
    let accept = false
    page.on("dialog", (dialog) => {
      questions.push(dialog.message())
      void (accept ? dialog.accept() : dialog.dismiss())
    })
    await page.goto(`${app.server.baseUrl}/alerts?verdict=GO`)
    await page.waitForSelector("[data-testid=alert]")
    await page.click("[data-testid=mark-all-read]")
    await vi.waitFor(() => expect(questions).toEqual([t.alerts.confirmMarkAllFiltered]))
    expect(await unreadCount()).toBe(before)
    // Accepted: every alert of the account is read, as the question said.
    accept = true
    await page.click("[data-testid=mark-all-read]")
    await page.waitForSelector("[data-testid=notice]")
    expect(await unreadCount()).toBe(0)
    expect(questions).toHaveLength(2)
    // Without a filter the list shows what the button marks: no question.
    await app.server.sql((q) => q`UPDATE alerts SET read = false WHERE tenant_id = ${app.server.demo.tenantId}`)
    await page.goto(`${app.server.baseUrl}/alerts`)
    await page.waitForSelector("[data-testid=alert]")
    await page.click("[data-testid=mark-all-read]")
    await page.waitForSelector("[data-testid=notice]")
    expect(questions).toHaveLength(2)
    expect(await unreadCount()).toBe(0)
    expect(problems).toEqual([])
    await close()
  })

  it("a new key's 'Copiază' without a clipboard (plain http on another host) selects the key and says to copy it by hand", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await page.evaluateOnNewDocument(() => {
      Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true })
    })
    await logInAsDemo(page, app.server)
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=create-key]")
    await page.type("input[name=keyName]", "fără clipboard")
    await page.click("[data-testid=create-key]")
    await page.waitForSelector("[data-testid=new-key-value]")
    await page.click("[data-testid=copy-key]")
    await page.waitForSelector("[data-testid=copy-failed]")
    expect(await page.$eval("[data-testid=copy-failed]", (n) => n.textContent)).toBe(t.settings.copyFailed)
    const key = await page.$eval("[data-testid=new-key-value]", (n) => n.textContent)
    expect(key).toMatch(/^svc_[0-9a-f]{64}$/)
    expect(await page.evaluate(() => window.getSelection()?.toString())).toBe(key)
    expect(await page.$eval("[data-testid=copy-key]", (n) => n.textContent)).toBe(t.settings.copy)
    expect(problems).toEqual([])
    await close()
  })

  it("the reports card says when the company list failed to load, with a retry that fills it", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const failed = await failFirst(page, /^\/api\/v1\/companies$/)
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=reports] [data-testid=error] button")
    expect(failed()).toBe(1)
    expect(await page.$$eval("[data-testid=reports] select option", (options) => options.length)).toBe(0)
    await page.click("[data-testid=reports] [data-testid=error] button")
    await page.waitForSelector("[data-testid=reports] select option")
    expect(await page.$("[data-testid=reports] [data-testid=error]")).toBeNull()
    await close()
  })

  it("a screen whose company or tender cannot be loaded has a heading of its own, not 'Se încarcă…'", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const unknown = "6f1d2a8e-1c8b-4c55-9f0e-7a2b3c4d5e6f"
    await page.goto(`${app.server.baseUrl}/companies/${unknown}/tenders`)
    await page.waitForSelector("[data-testid=error]")
    await page.waitForFunction((loading) => document.querySelector("h1")?.textContent !== loading, {}, t.loading)
    expect(await heading(page)).toBe(t.tenders.titleWithoutCompany)
    await page.goto(`${app.server.baseUrl}/companies/${unknown}/watchlists`)
    await page.waitForSelector("[data-testid=error]")
    await page.waitForFunction((loading) => document.querySelector("h1")?.textContent !== loading, {}, t.loading)
    expect(await heading(page)).toBe(t.watchlists.titleWithoutCompany)
    await page.goto(`${app.server.baseUrl}/companies/${app.server.demo.companyIds[0]}/tenders/${unknown}`)
    await page.waitForSelector("[data-testid=error]")
    expect(await heading(page)).toBe(t.detail.titleUnloaded)
    expect(await page.title()).toContain(t.detail.titleUnloaded)
    await close()
  })

  it("a filter change whose load fails shows the error, not the last filter's alerts under the new one", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    await page.goto(`${app.server.baseUrl}/alerts`)
    await page.waitForSelector("[data-testid=alert]")
    const failed = await failFirst(
      page,
      (url) => url.pathname === "/api/v1/alerts" && url.searchParams.get("verdict") === "GO"
    )
    await page.select("main .filters label:nth-child(3) select", "GO")
    await page.waitForSelector("main [data-testid=error]")
    expect(failed()).toBe(1)
    expect(await page.$$("[data-testid=alert]")).toHaveLength(0)
    // Retried: the GO alerts.
    await page.click("main [data-testid=error] button")
    await page.waitForSelector("[data-testid=alert]")
    expect(await page.$("main [data-testid=error]")).toBeNull()
    await close()
  })

  it("an alert's read / unread button keeps the focus; under 'necitite' it goes to the next alert's", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    await app.server.sql((q) => q`UPDATE alerts SET read = false WHERE tenant_id = ${app.server.demo.tenantId}`)
    const focused = () =>
      page.evaluate(() => ({
        testId: document.activeElement?.getAttribute("data-testid") ?? null,
        alert: document.activeElement?.closest("[data-testid=alert]")?.getAttribute("data-alert-id") ?? null
      }))
    const alertIds = () =>
      page.$$eval("[data-testid=alert]", (items) => items.map((item) => item.getAttribute("data-alert-id")))

    // Every alert listed: the card stays, its button says "mark unread" now and keeps the focus.
    await page.goto(`${app.server.baseUrl}/alerts`)
    await page.waitForSelector("[data-testid=alert] [data-testid=mark-read]")
    const [first] = await alertIds()
    await page.focus("[data-testid=alert]:first-child [data-testid=mark-read]")
    await page.keyboard.press("Enter")
    await page.waitForSelector("[data-testid=alert]:first-child [data-testid=mark-unread]")
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "mark-unread")
    expect(await focused()).toEqual({ testId: "mark-unread", alert: first })

    // Only the unread: the card goes, the focus goes to the same button of the alert in its place.
    await page.goto(`${app.server.baseUrl}/alerts?unread=true`)
    await page.waitForSelector("[data-testid=alert] [data-testid=mark-read]")
    const [gone, next] = await alertIds()
    await page.focus("[data-testid=alert]:first-child [data-testid=mark-read]")
    await page.keyboard.press("Enter")
    await page.waitForFunction(
      (id) => document.querySelector(`[data-testid=alert][data-alert-id="${id}"]`) === null,
      {},
      gone!
    )
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "mark-read")
    expect(await focused()).toEqual({ testId: "mark-read", alert: next })
    expect(problems).toEqual([])
    await close()
  })

  it("a key revoked from the keyboard gives the focus of its button to its 'revocată' badge", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    page.on("dialog", (dialog) => void dialog.accept())
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=create-key]")
    await page.type("input[name=keyName]", "de revocat")
    await page.click("[data-testid=create-key]")
    await page.waitForSelector("[data-testid=new-key-value]")
    const [created] = await app.server.sql(
      (q) => q<{ id: string }>`
        SELECT id FROM api_keys WHERE tenant_id = ${app.server.demo.tenantId} AND name = 'de revocat'`
    )
    const row = `[data-testid=key][data-key-id="${created!.id}"]`
    await page.waitForSelector(`${row} [data-testid=revoke-key]`)
    await page.focus(`${row} [data-testid=revoke-key]`)
    await page.keyboard.press("Enter")
    await page.waitForSelector(`${row} [data-testid=key-revoked]`)
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "key-revoked")
    expect(
      await page.evaluate(() => document.activeElement?.closest("[data-testid=key]")?.getAttribute("data-key-id"))
    ).toBe(created!.id)
    expect(problems).toEqual([])
    await close()
  })

  it("the unread badge keeps the newest count: a poll sent before a 'mark read' that answers after it is dropped", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await page.evaluateOnNewDocument(() => {
      ;(window as unknown as { tssUnreadPollMs: number }).tssUnreadPollMs = 2_000
    })
    await app.server.sql((q) => q`UPDATE alerts SET read = false WHERE tenant_id = ${app.server.demo.tenantId}`)
    const before = await unreadCount()
    await logInAsDemo(page, app.server)
    const badge = () => page.$eval("[data-testid=unread-count]", (n) => n.textContent)
    const isCount = (url: URL) =>
      url.pathname === "/api/v1/alerts" &&
      url.searchParams.get("unread") === "true" &&
      url.searchParams.get("limit") === "1"
    // An answer of the count as it was (before the mark), to send late for a poll held back.
    let oldAnswer: string | undefined
    let held: HTTPRequest | undefined
    await page.setRequestInterception(true)
    page.on("request", (request: HTTPRequest) => {
      if (oldAnswer !== undefined && held === undefined && isCount(new URL(request.url()))) {
        held = request
        return
      }
      return request.continue()
    })
    page.on("response", (response) => {
      if (oldAnswer !== undefined || !isCount(new URL(response.url())) || !response.ok()) return
      // A body the page no longer holds (an answer that came as it navigated) is skipped: the next one serves.
      response.text().then(
        (body) => {
          oldAnswer ??= body
        },
        () => undefined
      )
    })
    await page.goto(`${app.server.baseUrl}/alerts`)
    await page.waitForSelector("[data-testid=alert] [data-testid=mark-read]")
    await vi.waitFor(() => expect(held).toBeDefined(), { timeout: 15_000 })
    await page.click("[data-testid=alert]:first-child [data-testid=mark-read]")
    await page.waitForFunction(
      (n) => document.querySelector("[data-testid=unread-count]")?.textContent === n,
      {},
      String(before - 1)
    )
    // The poll sent before the mark answers now, with the count before it.
    // (Checked before the next poll, 2 s after the held one, could mend it.)
    await held!.respond({ status: 200, contentType: "application/json", body: oldAnswer! })
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(await badge()).toBe(String(before - 1))
    expect(problems).toEqual([])
    await close()
  })

  it("what is only drawn is also said: the section shown (aria-current) and each day's credit use", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const current = () => page.$$eval("a[aria-current=page]", (links) => links.map((a) => a.textContent))
    expect(await current()).toEqual([t.nav.companies])
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=daily-use] li")
    expect(await current()).toEqual([t.nav.settings])
    // Read as a screen reader does: the accessible text of each day, not the bar's title.
    const days = await page.$$eval("[data-testid=daily-use] li", (items) =>
      items.map((item) => ({ title: item.getAttribute("title"), said: item.querySelector(".sr-only")?.textContent }))
    )
    expect(days.length).toBeGreaterThan(0)
    for (const day of days) expect(day.said).toBe(day.title)
    expect(problems).toEqual([])
    await close()
  })

  it("feedback: a failed load of the marks offers a retry; an undo gives the focus to 'Relevantă'", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const companyId = app.server.demo.companyIds[0]!
    const [top] = await app.server.sql(
      (q) => q<{ tender_id: string }>`
        SELECT tender_id FROM tender_scores WHERE company_id = ${companyId} ORDER BY overall_score DESC, tender_id LIMIT 1`
    )
    const failed = await failFirst(page, /\/feedback$/)
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/tenders/${top!.tender_id}`)
    await page.waitForSelector("[data-testid=feedback] [data-testid=error] button")
    expect(failed()).toBe(1)
    expect(await page.$eval("[data-testid=mark-relevant]", (b) => (b as HTMLButtonElement).disabled)).toBe(true)
    await page.click("[data-testid=feedback] [data-testid=error] button")
    await page.waitForSelector("[data-testid=feedback][data-mark=none]")
    await page.click("[data-testid=mark-relevant]")
    await page.waitForSelector("[data-testid=unmark]")
    await page.focus("[data-testid=unmark]")
    await page.keyboard.press("Enter")
    await page.waitForSelector("[data-testid=feedback][data-mark=none]")
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "mark-relevant")
    expect(problems.filter((p) => !/503/.test(p))).toEqual([])
    await close()
  })
})
