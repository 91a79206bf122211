import type { HTTPRequest, Page } from "puppeteer-core"
import { describe, expect, it } from "vitest"
import { projectFile } from "../../src/infra/config/ProjectFiles.js"
import { t } from "../../src/web/strings.js"
import { request } from "../support/http.js"
import { appAndBrowser, logInAsDemo, openPage, texts } from "./support/AppServer.js"

/**
 * The Alerts and Watchlists screens of a consultant with several client companies, in a real
 * Chromium against the real API and worker over the demo data: each alert names its company, and a
 * watchlist's CPV codes show their Romanian labels (list and editor); the Alerts filters live in the
 * address and read dates in Bucharest; deleting the watchlist being edited closes its editor.
 */

const DOCS = projectFile("docs")

describe("alerts and watchlists in the browser app", () => {
  const app = appAndBrowser()

  const waitForIdle = (page: Page) => page.waitForFunction(() => document.querySelector("[aria-busy=true]") === null)

  /** A logged-in page; `unreadPollMs` shortens the unread badge's poll (the app's test setting, README). */
  const session = async (options: { unreadPollMs?: number } = {}) => {
    const opened = await openPage(app.browser)
    if (options.unreadPollMs !== undefined)
      await opened.page.evaluateOnNewDocument((ms) => {
        ;(window as unknown as { tssUnreadPollMs: number }).tssUnreadPollMs = ms
      }, options.unreadPollMs)
    await logInAsDemo(opened.page, app.server)
    return opened
  }

  it("the Alerts screen names each alert's company, in the API's order (newest, then highest score)", async () => {
    const { page, problems, close } = await session()
    await page.click("[data-testid=nav-alerts]")
    await page.waitForSelector("[data-testid=alert-company]")
    const shown = await texts(page, "[data-testid=alert] .title")
    const companies = await texts(page, "[data-testid=alert-company]")
    const expected = await app.server.sql(
      (q) => q<{ title: string; company: string }>`
        SELECT t.title, c.name AS company FROM alerts a
        JOIN tenders t ON t.id = a.tender_id JOIN companies c ON c.id = a.company_id
        WHERE a.tenant_id = ${app.server.demo.tenantId}
        ORDER BY a.created_at DESC, a.score DESC, a.id DESC LIMIT 20`
    )
    expect(expected.length).toBeGreaterThan(0)
    expect(shown).toEqual(expected.map((row) => row.title))
    expect(companies).toEqual(expected.map((row) => row.company))
    // The demo is a consultant's workspace: its alerts span both client companies.
    const allCompanies = await app.server.sql(
      (q) => q<{ n: number }>`
        SELECT count(DISTINCT company_id)::int AS n FROM alerts WHERE tenant_id = ${app.server.demo.tenantId}`
    )
    expect(allCompanies[0]!.n).toBeGreaterThan(1)
    await page.screenshot({ path: `${DOCS}/alerts.png` })
    expect(problems).toEqual([])
    await close()
  })

  it("the Watchlists screen shows each CPV code with its Romanian label, and so does the editor's chips", async () => {
    const { page, problems, close } = await session()
    const companyId = app.server.demo.companyIds[0]!
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/watchlists`)
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
    const table = await app.server.sql(
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

  const readFilter = "section .filters label:nth-of-type(1) select"

  it("keeps the Alerts filters after opening an alert's tender and coming back", async () => {
    const { page, problems, close } = await session()
    await page.click("[data-testid=nav-alerts]")
    await page.waitForSelector("[data-testid=alert]")
    await page.select(readFilter, "true")
    await page.waitForFunction(() =>
      [...document.querySelectorAll("[data-testid=alert]")].every((a) => a.getAttribute("data-read") === "false")
    )
    const firstTitle = (await texts(page, "[data-testid=alert] .title"))[0]!
    await page.click("[data-testid=alert] .title")
    await page.waitForFunction(
      (title) => document.querySelector("h1")?.textContent?.includes(title) ?? false,
      {},
      firstTitle
    )
    await page.goBack()
    await page.waitForSelector("[data-testid=alert]")
    // Working through unread alerts one by one: Back returns to the unread ones, not to all of them.
    expect(await page.$eval(readFilter, (select) => (select as HTMLSelectElement).value)).toBe("true")
    expect(
      await page.$$eval("[data-testid=alert]", (items) => items.every((a) => a.getAttribute("data-read") === "false"))
    ).toBe(true)
    expect(new URL(page.url()).search).toBe("?unread=true")
    expect(problems).toEqual([])
    await close()
  })

  it("keeps the Alerts page after opening an alert's tender and coming back; a page past the end moves to the last", async () => {
    const { page, problems, close } = await session()
    await page.goto(`${app.server.baseUrl}/alerts`)
    await page.waitForSelector(".pager")
    await page.click(".pager button:last-of-type")
    await page.waitForFunction(
      () => document.querySelector(".pager span")?.textContent?.startsWith("Pagina 2 ") ?? false
    )
    await waitForIdle(page)
    const title = (await texts(page, "[data-testid=alert] .title"))[0]!
    await page.click("[data-testid=alert] .title")
    await page.waitForFunction((t) => document.querySelector("h1")?.textContent?.includes(t) ?? false, {}, title)
    await page.goBack()
    await page.waitForSelector("[data-testid=alert]")
    expect(await page.$eval(".pager span", (span) => span.textContent)).toMatch(/^Pagina 2 din/)
    expect((await texts(page, "[data-testid=alert] .title"))[0]).toBe(title)
    // A page beyond the end (an old link, alerts deleted meanwhile) shows the last one, and says so in the address.
    await page.goto(`${app.server.baseUrl}/alerts?page=999`)
    await page.waitForSelector("[data-testid=alert]")
    const last = await page.$eval(".pager span", (span) => /din (\d+)/.exec(span.textContent ?? "")?.[1])
    await page.waitForFunction((n) => window.location.search === `?page=${n}`, {}, last)
    expect(problems).toEqual([])
    await close()
  })

  it("deleting the watchlist whose editor is open closes the editor (no form left for a list that is gone)", async () => {
    const { page, problems, close } = await session()
    const companyId = app.server.demo.companyIds[0]!
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    const before = (await page.$$("[data-testid=watchlist]")).length
    // Edit the first watchlist, then delete that same one from its card.
    await page.click("[data-testid=watchlist] .actions button:nth-of-type(1)")
    await page.waitForSelector("[data-testid=watchlist-form]")
    await waitForIdle(page)
    page.once("dialog", (dialog) => dialog.accept())
    // Clicked in the page, not at the button's coordinates: the open editor's chips load their CPV
    // labels and may still move the cards (on a loaded machine a click by position once missed it).
    await page.$eval("[data-testid=watchlist] .actions button.danger", (button) => (button as HTMLElement).click())
    await page.waitForFunction((n) => document.querySelectorAll("[data-testid=watchlist]").length === n - 1, {}, before)
    expect(await page.$("[data-testid=watchlist-form]")).toBeNull()
    expect(problems).toEqual([])
    await close()
  })

  it("the open Alerts list shows a new alert when the unread badge's poll finds it, keeping its filters", async () => {
    const { page, problems, close } = await session({ unreadPollMs: 500 })
    await page.goto(`${app.server.baseUrl}/alerts?unread=true`)
    await page.waitForSelector("[data-testid=alert]")
    await waitForIdle(page)
    const badge = () => page.$eval("[data-testid=unread-count]", (count) => count.textContent ?? "")
    const before = await app.server.sql(
      (q) => q<{ n: number }>`
        SELECT count(*)::int AS n FROM alerts WHERE tenant_id = ${app.server.demo.tenantId} AND NOT read`
    )
    await page.waitForFunction(
      (n) => document.querySelector("[data-testid=unread-count]")?.textContent === n,
      {},
      String(before[0]!.n)
    )
    // The scoring pipeline raises an alert while the screen is open: a tender not yet alerted for a watchlist.
    const [target] = await app.server.sql(
      (q) => q<{ watchlist_id: string; company_id: string; tender_id: string; title: string }>`
        SELECT w.id AS watchlist_id, w.company_id, t.id AS tender_id, t.title
        FROM watchlists w CROSS JOIN tenders t
        WHERE w.tenant_id = ${app.server.demo.tenantId} AND w.deleted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.watchlist_id = w.id AND a.tender_id = t.id)
        ORDER BY w.created_at, t.id LIMIT 1`
    )
    await app.server.sql(
      (q) => q`
        INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, read, created_at,
                            tender_publish_date)
        SELECT ${app.server.demo.tenantId}, ${target!.company_id}, ${target!.watchlist_id}, ${target!.tender_id}, 90, 'GO',
               false, now() + interval '1 minute', publish_date
        FROM tenders WHERE id = ${target!.tender_id}`
    )
    // No navigation: the poll raises the badge, and the list under it shows the new alert first.
    await page.waitForFunction(
      (n) => document.querySelector("[data-testid=unread-count]")?.textContent === n,
      { timeout: 10_000 },
      String(before[0]!.n + 1)
    )
    await page.waitForFunction(
      (title) => document.querySelector("[data-testid=alert] .title")?.textContent === title,
      { timeout: 10_000 },
      target!.title
    )
    expect(await badge()).toBe(String(before[0]!.n + 1))
    expect(new URL(page.url()).search).toBe("?unread=true")
    expect(await page.$eval(readFilter, (select) => (select as HTMLSelectElement).value)).toBe("true")
    expect(problems).toEqual([])
    await close()
  })

  it("a tender's back link returns where it was opened from: the Alerts as they were, or the company's list", async () => {
    const { page, problems, close } = await session()
    // Enough unread alerts for a second page.
    await app.server.sql((q) => q`UPDATE alerts SET read = false WHERE tenant_id = ${app.server.demo.tenantId}`)
    await page.goto(`${app.server.baseUrl}/alerts?unread=true&page=2`)
    await page.waitForFunction(
      () => document.querySelector(".pager span")?.textContent?.startsWith("Pagina 2 ") ?? false
    )
    await waitForIdle(page)
    const title = (await texts(page, "[data-testid=alert] .title"))[0]!
    await page.click("[data-testid=alert] .title")
    await page.waitForFunction((t) => document.querySelector("h1")?.textContent?.includes(t) ?? false, {}, title)
    const detailPath = new URL(page.url()).pathname
    expect(await page.$eval("[data-testid=back]", (link) => link.textContent)).toBe("← Înapoi la alerte")
    await page.click("[data-testid=back]")
    await page.waitForFunction(
      () => document.querySelector(".pager span")?.textContent?.startsWith("Pagina 2 ") ?? false
    )
    const url = new URL(page.url())
    expect(url.pathname + url.search).toBe("/alerts?unread=true&page=2")
    expect(await page.$eval(readFilter, (select) => (select as HTMLSelectElement).value)).toBe("true")

    // Opened from the company's tender list: back to the list.
    const companyId = app.server.demo.companyIds[0]!
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/tenders`)
    await page.waitForSelector("[data-testid=tender-link]")
    await page.click("[data-testid=tender-link]")
    await page.waitForSelector("[data-testid=tender-detail]")
    expect(await page.$eval("[data-testid=back]", (link) => link.textContent)).toBe("← Înapoi la licitații")
    await page.click("[data-testid=back]")
    await page.waitForSelector("[data-testid=tender-link]")
    expect(new URL(page.url()).pathname).toBe(`/companies/${companyId}/tenders`)

    // A `from` leading out of the app (a crafted link) is no way back: the link goes to the tenders list.
    const listPath = detailPath.replace(/\/[^/]+$/, "")
    for (const from of ["https://evil.example/alerts", "//evil.example/alerts", "/\\evil.example/alerts", "/nowhere"]) {
      await page.goto(`${app.server.baseUrl}${detailPath}?${new URLSearchParams({ from })}`)
      await page.waitForSelector("[data-testid=tender-detail]")
      const back = await page.$eval("[data-testid=back]", (link) => [link.getAttribute("href"), link.textContent])
      expect({ from, back }).toEqual({ from, back: [listPath, "← Înapoi la licitații"] })
    }
    expect(problems).toEqual([])
    await close()
  })

  it("the watchlist filter offers a deleted watchlist whose alerts are shown, marked deleted, and filters by it", async () => {
    const { page, problems, close } = await session()
    // The watchlist of the newest alert, deleted through the API: its alerts are kept (spec 4.6).
    const [newest] = await app.server.sql(
      (q) => q<{ id: string; name: string; companyId: string }>`
        SELECT w.id, w.name, w.company_id AS "companyId" FROM alerts a JOIN watchlists w ON w.id = a.watchlist_id
        WHERE a.tenant_id = ${app.server.demo.tenantId} ORDER BY a.created_at DESC, a.score DESC, a.id DESC LIMIT 1`
    )
    const { id, name } = newest!
    const login = await request(`${app.server.baseUrl}/api/v1/auth/login`, {
      method: "POST",
      body: { email: app.server.demo.email, password: app.server.demo.password }
    })
    const removed = await request(`${app.server.baseUrl}/api/v1/watchlists/${id}`, {
      method: "DELETE",
      token: login.body.data.accessToken
    })
    expect(removed.status).toBe(204)
    // The rescore the deletion queued runs first, so the alerts below are the ones there are.
    await app.server.whenJobsIdle()
    const expected = (
      await app.server.sql(
        (q) => q<{ title: string }>`
          SELECT t.title FROM alerts a JOIN tenders t ON t.id = a.tender_id
          WHERE a.watchlist_id = ${id} ORDER BY a.created_at DESC, a.score DESC, a.id DESC LIMIT 20`
      )
    ).map((row) => row.title)
    expect(expected.length).toBeGreaterThan(0)

    await page.click("[data-testid=nav-alerts]")
    await page.waitForSelector("[data-testid=alert]")
    const watchlistFilter = "section .filters label:nth-of-type(2) select"
    const option = await page.waitForSelector(`${watchlistFilter} option[value='${id}']`, { timeout: 10_000 })
    expect(await option!.evaluate((o) => o.textContent)).toBe(t.alerts.deletedWatchlist(name))
    expect(t.alerts.deletedWatchlist("Drumuri")).toBe("Drumuri (ștearsă)")
    await page.select(watchlistFilter, id)
    await page.waitForFunction(
      (wanted) => new URLSearchParams(window.location.search).get("watchlistId") === wanted,
      {},
      id
    )
    const filtered = async () => {
      await page
        .waitForFunction(
          (marked, n) => {
            const alerts = [...document.querySelectorAll("[data-testid=alert]")]
            return alerts.length === n && alerts.every((a) => a.textContent?.includes(marked))
          },
          { timeout: 10_000 },
          t.alerts.deletedWatchlist(name),
          expected.length
        )
        .catch(() => undefined)
      return texts(page, "[data-testid=alert] .title")
    }
    expect(await filtered()).toEqual(expected)
    // A reload keeps the filter, shown as the deleted watchlist it is.
    await page.reload()
    expect(await filtered()).toEqual(expected)
    expect(await page.$eval(watchlistFilter, (select) => (select as HTMLSelectElement).value)).toBe(id)
    expect(problems).toEqual([])
    await close()
  })

  // It marks every alert read.
  it("a notice or a failed action's error on the Alerts screen goes when the filters change", async () => {
    const { page, problems, close } = await session()
    await page.goto(`${app.server.baseUrl}/alerts`)
    await page.waitForSelector("[data-testid=alert]")
    await waitForIdle(page)
    const shown = () =>
      page.evaluate(() => ({
        notice: document.querySelector("main [data-testid=notice]")?.textContent ?? null,
        error: document.querySelector("main [data-testid=error]")?.textContent ?? null
      }))
    const filterByVerdict = async (verdict: string) => {
      await page.select("main .filters label:nth-child(3) select", verdict)
      await page.waitForFunction((v) => new URLSearchParams(window.location.search).get("verdict") === v, {}, verdict)
      await waitForIdle(page)
    }
    // "Mark all read" fails (the connection drops): its error, then another verdict.
    await page.setRequestInterception(true)
    const dropMarkAll = (request: HTTPRequest) =>
      request.url().endsWith("/mark-all-read") ? request.abort("connectionfailed") : request.continue()
    page.on("request", dropMarkAll)
    await page.click("[data-testid=mark-all-read]")
    await page.waitForSelector("main [data-testid=error]")
    expect(await shown()).toEqual({ notice: null, error: t.errors.network })
    await filterByVerdict("GO")
    expect(await shown()).toEqual({ notice: null, error: null })
    // Done: its notice, then another verdict.
    page.off("request", dropMarkAll)
    await page.setRequestInterception(false)
    // Under the GO filter the app asks first (the route marks every alert of the account): yes.
    const questions: Array<string> = []
    page.on("dialog", (dialog) => {
      questions.push(dialog.message())
      void dialog.accept()
    })
    await page.click("[data-testid=mark-all-read]")
    await page.waitForSelector("main [data-testid=notice]")
    expect((await shown()).notice).toMatch(/marcat/)
    expect(questions).toEqual([t.alerts.confirmMarkAllFiltered])
    await filterByVerdict("RESEARCH")
    expect(await shown()).toEqual({ notice: null, error: null })
    expect(problems.filter((problem) => !/ERR_CONNECTION_FAILED/.test(problem))).toEqual([])
    await close()
  })

  // Last: it moves the demo alerts' dates.
  it("the 'from date' filter reads the day in Bucharest, like the dates the list shows", async () => {
    const { page, problems, close } = await session()
    // A browser whose zone is not Bucharest's (a laptop set to UTC, a remote desktop abroad).
    await page.emulateTimezone("UTC")
    // One alert raised at 01:00 Bucharest on 15.11.2026 (23:00 UTC the day before); every other alert earlier.
    const rows = await app.server.sql(
      (q) => q<{ id: string; title: string }>`
        SELECT a.id, t.title FROM alerts a JOIN tenders t ON t.id = a.tender_id
        WHERE a.tenant_id = ${app.server.demo.tenantId} ORDER BY a.created_at DESC, a.score DESC, a.id DESC LIMIT 1`
    )
    const target = rows[0]!
    await app.server.sql(
      (q) => q`UPDATE alerts SET created_at = '2026-11-01T10:00:00Z' WHERE tenant_id = ${app.server.demo.tenantId}`
    )
    await app.server.sql((q) => q`UPDATE alerts SET created_at = '2026-11-14T23:00:00Z' WHERE id = ${target.id}`)
    await page.goto(`${app.server.baseUrl}/alerts`)
    await page.waitForSelector("[data-testid=alert]")
    // The list itself dates it 15.11.2026, 01:00 (Bucharest).
    expect(await page.$$eval("[data-testid=alert]", (items) => items[0]?.textContent ?? "")).toContain("15.11.2026")
    await page.$eval("input[type=date]", (input) => {
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!
      setter.call(input, "2026-11-15")
      input.dispatchEvent(new Event("input", { bubbles: true }))
    })
    await page.waitForFunction(
      () =>
        document.querySelector("[data-testid=empty]") !== null ||
        document.querySelectorAll("[data-testid=alert]").length === 1
    )
    await waitForIdle(page)
    expect(await texts(page, "[data-testid=alert] .title")).toEqual([target.title])
    expect(problems).toEqual([])
    await close()
  })
})
