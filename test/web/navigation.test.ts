import type { HTTPRequest, Page } from "puppeteer-core"
import { afterAll, describe, expect, it } from "vitest"
import { t } from "../../src/web/strings.js"
import { appAndBrowser, logInAsDemo, openPage } from "./support/AppServer.js"

/**
 * Moving between the app's screens, and a session that ends under an open screen, as a consultant
 * (with a screen reader, or ten minutes into a form) meets them: a real Chromium against the real API
 * and worker over the demo data.
 */
describe("moving between screens, and a session that ends, in the browser app", () => {
  const app = appAndBrowser()
  const closers: Array<() => Promise<void>> = []

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined)
  })

  /** A fresh browser context, logged in through the form. */
  const session = async (): Promise<Page> => {
    const opened = await openPage(app.browser)
    closers.push(opened.close)
    await logInAsDemo(opened.page, app.server)
    return opened.page
  }

  /** Where the focus is, and whether it is the screen's <h1>. */
  const focus = (page: Page) =>
    page.evaluate(() => {
      const active = document.activeElement
      return {
        onBody: active === document.body || active === null,
        insideMain: active !== null && document.querySelector("main")?.contains(active) === true,
        onHeading: active !== null && active === document.querySelector("main h1")
      }
    })

  it("following a link moves focus into the screen it opens and names it in the page title", async () => {
    const page = await session()
    const titleBefore = await page.title()
    await page.click("[data-testid=company] [data-testid=company-tenders]")
    await page.waitForFunction(() => document.querySelector("h1")?.textContent?.startsWith("Licitații pentru"))
    await page.waitForFunction(() => document.title.startsWith("Licitații pentru"))
    // Without it a screen reader user hears nothing after the click: focus falls back to <body> when
    // the link is removed, and a <title> the same on every screen names none.
    expect({ ...(await focus(page)), titleChanged: (await page.title()) !== titleBefore }).toEqual({
      onBody: false,
      insideMain: true,
      onHeading: true,
      titleChanged: true
    })
    const heading = await page.$eval("main h1", (h1) => h1.textContent ?? "")
    expect(await page.title()).toBe(`${heading} — ${t.appName}`)
    // The browser's Back button too.
    await page.goBack()
    await page.waitForFunction(
      (title) => document.querySelector("main h1")?.textContent === title,
      {},
      t.companies.title
    )
    await page.waitForFunction(() => document.activeElement === document.querySelector("main h1"))
    expect(await page.title()).toBe(`${t.companies.title} — ${t.appName}`)
    // A filter change (a new address of the same screen) is no new screen: the focus stays in the filter.
    await page.click("[data-testid=nav-alerts]")
    await page.waitForSelector("[data-testid=alert]")
    await page.focus(".filters select")
    await page.select(".filters select", "true")
    await page.waitForFunction(() => window.location.search.includes("unread=true"))
    expect(await page.evaluate(() => document.activeElement === document.querySelector(".filters select"))).toBe(true)
    expect(await page.title()).toBe(`${t.alerts.title} — ${t.appName}`)
  })

  it("Back from a tender returns to the list as it was left: the pages loaded and the scroll; a filter change starts at page 1", async () => {
    // The demo's rescores done first: the list's order stays the same throughout (a reload compares it).
    await app.server.whenJobsIdle()
    const page = await session()
    const companyId = app.server.demo.companyIds[0]!
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/tenders`)
    await page.waitForSelector("[data-testid=tender]")
    const links = () => page.$$eval("[data-testid=tender-link]", (as) => as.map((a) => a.getAttribute("href") ?? ""))
    const count = () => page.$$eval("[data-testid=tender]", (items) => items.length)
    const settled = (n: number) =>
      page.waitForFunction(
        (n) =>
          document.querySelectorAll("[data-testid=tender]").length === n && !document.querySelector("[aria-busy=true]"),
        {},
        n
      )
    // "Mai multe" clicked where it is: scrolled to, the list's sentinel would load the page itself meanwhile.
    const more = async (n: number) => {
      await page.$eval("[data-testid=load-more]", (button) => (button as HTMLButtonElement).click())
      await settled(n)
    }
    await settled(20)
    // Two pages ("Mai multe"), then scrolled to the 30th tender, which is opened.
    await more(40)
    const twoPages = await links()
    // Scrolled as a consultant scrolls: the page's scroll event comes before the next click.
    const scrollTo = (y: number) =>
      page.evaluate(async (y) => {
        window.scrollTo(0, y)
        await new Promise((frame) => requestAnimationFrame(() => requestAnimationFrame(frame)))
        return window.scrollY
      }, y)
    const scrollY = await scrollTo(
      await page.$eval(
        "[data-testid=tender]:nth-child(30)",
        (item) => item.getBoundingClientRect().top + window.scrollY - 100
      )
    )
    expect(scrollY).toBeGreaterThan(1000)
    const scrolled = () => page.evaluate(() => window.scrollY)
    const open = async (index: number) => {
      await page.evaluate((index) => {
        document.querySelectorAll<HTMLElement>("[data-testid=tender-link]")[index]!.click()
      }, index)
      await page.waitForSelector("[data-testid=tender-detail]")
    }
    await open(29)
    await page.goBack()
    await page.waitForSelector("[data-testid=tender]")
    // Both pages, where they were (not the first page again, at the top).
    expect({ count: await count(), links: await links() }).toEqual({ count: 40, links: twoPages })
    expect(Math.abs((await scrolled()) - scrollY)).toBeLessThan(50)
    // The focus is on the link of the tender opened (not on the heading at the page's top).
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("href") ?? null)
    expect(await focused()).toBe(twoPages[29])
    // "Mai multe" continues from the second page: the third, nothing repeated or skipped (as a fresh list's).
    await more(60)
    const threePages = await links()
    expect(threePages.slice(0, 40)).toEqual(twoPages)
    expect(new Set(threePages).size).toBe(60)
    // The detail's own "back" link returns to it the same way.
    const scrollBefore = await scrollTo(2500)
    await open(45)
    await page.click("[data-testid=back]")
    await page.waitForSelector("[data-testid=tender]")
    expect(await links()).toEqual(threePages)
    expect(Math.abs((await scrolled()) - scrollBefore)).toBeLessThan(50)
    expect(await focused()).toBe(threePages[45])
    // A filter change starts from page 1, even back to the filters of the list remembered.
    await page.select("[data-testid=sort]", "value")
    await page.waitForFunction(() => window.location.search.includes("sort=value"))
    await settled(20)
    await page.select("[data-testid=sort]", "score")
    await page.waitForFunction(() => !window.location.search.includes("sort=value"))
    await settled(20)
    expect(await links()).toEqual(twoPages.slice(0, 20))
    // A reload starts fresh too; its three pages are those the list remembered and continued.
    await page.reload()
    await settled(20)
    expect(await scrolled()).toBe(0)
    await more(40)
    await more(60)
    expect(await links()).toEqual(threePages)
  })

  it("a session ended while a form is being filled keeps what was typed once the consultant logs in again", async () => {
    const page = await session()
    const form = "[data-testid=company-form]"
    await page.click("[data-testid=add-company]")
    await page.waitForSelector(form)
    const description = "Proiectare și execuție de rețele de apă și canalizare în mediul rural, stații de epurare."
    await page.type(`${form} input[name=name]`, "Apă Canal Vest SRL")
    await page.type(`${form} textarea[name=description]`, description)
    // The session is closed elsewhere meanwhile (logout of a duplicated tab, a revocation).
    await app.server.sql(
      (q) => q`
        UPDATE auth_sessions SET revoked_at = now(), revoked_reason = 'logout'
        WHERE revoked_at IS NULL AND user_id IN (SELECT id FROM users WHERE email = ${app.server.demo.email})`
    )
    await page.click(`${form} button[type=submit]`)
    await page.waitForSelector("[data-testid=login-form]")
    // The form waits under the login form, out of reach until the login.
    expect(await page.$eval("[data-testid=login-form]", (f) => f.closest("[role=dialog]") !== null)).toBe(true)
    expect(await page.$eval(form, (f) => f.closest("[inert]") !== null)).toBe(true)
    await page.type("input[name=email]", app.server.demo.email)
    await page.type("input[name=password]", app.server.demo.password)
    await page.click("button[type=submit]")
    await page.waitForSelector("[data-testid=company]")
    await page.waitForSelector("[data-testid=login-form]", { hidden: true })
    // Back on the same address, with the form and what was typed in it.
    const kept = await page
      .$eval(`${form} textarea[name=description]`, (e) => (e as HTMLTextAreaElement).value)
      .catch(() => null)
    expect(kept).toBe(description)
    // Saved now, with the new session.
    await page.click(`${form} button[type=submit]`)
    await page.waitForSelector(form, { hidden: true, timeout: 10_000 })
    const stored = await app.server.sql(
      (q) => q<{ description: string }>`
        SELECT description FROM companies WHERE tenant_id = ${app.server.demo.tenantId} AND name = 'Apă Canal Vest SRL'`
    )
    expect(stored).toEqual([{ description }])
  })

  it("a session that cannot be restored at page load for want of a connection says so and restores it on retry", async () => {
    const page = await session()
    // The connection is down as the page loads: the refresh request fails, no answer.
    let offline = true
    await page.setRequestInterception(true)
    page.on("request", (request: HTTPRequest) =>
      offline && new URL(request.url()).pathname === "/api/v1/auth/refresh"
        ? request.abort("internetdisconnected")
        : request.continue()
    )
    await page.reload()
    await page.waitForSelector("[data-testid=login-form]")
    const error = await page
      .waitForSelector("[data-testid=login-form] [data-testid=error]", { timeout: 5_000 })
      .then((box) => box!.evaluate((b) => b.querySelector("span")?.textContent ?? null))
      .catch(() => "no message")
    expect(error).toBe(t.errors.network)
    // Not a logout: the session's refresh token is still stored.
    expect(await page.evaluate(() => window.sessionStorage.getItem("tss.refreshToken"))).not.toBeNull()
    // A retry still offline fails again and keeps what was typed meanwhile in the form.
    await page.type("[data-testid=login-form] input[name=email]", "ana@firma")
    await page.click("[data-testid=login-form] [data-testid=error] button")
    await page.waitForSelector("[data-testid=login-form] [data-testid=error]", { timeout: 5_000 })
    expect(await page.$eval("[data-testid=login-form] input[name=email]", (i) => (i as HTMLInputElement).value)).toBe(
      "ana@firma"
    )
    // Back online, "retry" restores the session: the screens, no login.
    offline = false
    await page.click("[data-testid=login-form] [data-testid=error] button")
    await page.waitForSelector("[data-testid=company]")
    expect(await page.$("[data-testid=login-form]")).toBeNull()
  })

  it("a logout closes the screens: the login form is the whole page, nothing of the account under it", async () => {
    const page = await session()
    await page.click("[data-testid=logout]")
    await page.waitForSelector("[data-testid=login-form]")
    expect(await page.$("[data-testid=company]")).toBeNull()
    expect(await page.$("[role=dialog]")).toBeNull()
    expect(await page.title()).toBe(`${t.login.title} — ${t.appName}`)
  })
})
