import { mkdirSync } from "node:fs"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Page } from "puppeteer-core"
import { describe, expect, it } from "vitest"
import { projectFile } from "../../src/infra/config/ProjectFiles.js"
import { appAndBrowser, logInAsDemo, openPage, texts } from "./support/AppServer.js"

/**
 * The browser app in a real Chromium (puppeteer-core) against the real API process, job worker and
 * database, seeded with the demo data as `npm start` seeds it. Each test opens its own browser
 * context (own sessionStorage) and logs in through the form.
 */

const DOCS = projectFile("docs")

describe("the browser app", () => {
  const app = appAndBrowser()
  const pages: Array<{ close: () => Promise<void>; problems: Array<string> }> = []

  /** A logged-in page; the test fails if the page logged a console error or threw (CSP refusals included). */
  const session = async (viewport?: { width: number; height: number }) => {
    const opened = await openPage(app.browser, viewport)
    pages.push(opened)
    await logInAsDemo(opened.page, app.server)
    return opened
  }
  const expectNoProblems = (problems: Array<string>) => expect(problems).toEqual([])

  const companyPage = async (page: Page, name: RegExp) => {
    const links = await page.$$("[data-testid=company] a.title")
    for (const link of links) {
      const text = await link.evaluate((a) => a.textContent ?? "")
      if (name.test(text)) return link
    }
    throw new Error(`no company matching ${name}`)
  }

  const sql = <A>(query: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    app.server.run(Effect.flatMap(SqlClient.SqlClient, (client) => query(client).pipe(Effect.orDie)))

  it("logs in with e-mail and password and lists the workspace's companies", async () => {
    const { page, problems } = await session()
    const names = await texts(page, "[data-testid=company] a.title")
    expect(names.sort()).toEqual([
      "Dotări Școlare Digitale SRL",
      "Fonduri și Proiecte Consult SRL",
      "Proiect Expert Inginerie SRL"
    ])
    // The access token stays in memory; only the refresh token is stored, in sessionStorage, beside the
    // login's e-mail (a login after a session that ended returns to the screens for the same account only).
    const stored = await page.evaluate(() => ({ ...window.sessionStorage }))
    expect(Object.keys(stored).sort()).toEqual(["tss.account", "tss.refreshToken"])
    expect(stored["tss.account"]).toBe(app.server.demo.email.toLowerCase())
    expect(await page.evaluate(() => JSON.stringify(window.localStorage))).toBe("{}")
    expectNoProblems(problems)
  })

  it("a reload keeps the session; logout ends it", async () => {
    const { page, problems } = await session()
    await (await companyPage(page, /Proiect Expert/)).click()
    await page.waitForSelector("[data-testid=tender]")
    const url = page.url()
    await page.reload()
    // Back on the same deep link, logged in, without the form.
    await page.waitForSelector("[data-testid=tender]")
    expect(page.url()).toBe(url)
    expect(await page.$("[data-testid=login-form]")).toBeNull()

    await page.click("[data-testid=logout]")
    await page.waitForSelector("[data-testid=login-form]")
    expect(await page.evaluate(() => window.sessionStorage.length)).toBe(0)
    await page.reload()
    await page.waitForSelector("[data-testid=login-form]")
    expectNoProblems(problems)
  })

  it("lists a company's scored tenders with their facts, filters them and loads more on scroll", async () => {
    // The demo is seeded all open; three of this company's tenders closed yesterday.
    await sql(
      (q) => q`
        UPDATE tenders SET deadline = now() - interval '1 day' WHERE id IN (
          SELECT s.tender_id FROM tender_scores s JOIN companies c ON c.id = s.company_id
          WHERE c.name = 'Proiect Expert Inginerie SRL' ORDER BY s.tender_id LIMIT 3)`
    )
    const { page, problems } = await session({ width: 1280, height: 900 })
    await (await companyPage(page, /Proiect Expert/)).click()
    await page.waitForSelector("[data-testid=tender]")
    const first = await page.$eval("[data-testid=tender]", (li) => ({
      score: li.querySelector("[data-testid=score]")?.textContent ?? "",
      verdict: li.querySelector("[data-testid=verdict]")?.getAttribute("data-verdict") ?? "",
      text: li.textContent ?? ""
    }))
    expect(Number(first.score)).toBeGreaterThanOrEqual(0)
    expect(["GO", "RESEARCH", "SKIP"]).toContain(first.verdict)
    // Deadline with days left, value in RON and EUR (open tenders by default).
    expect(first.text).toMatch(/Termen: \d{2}\.\d{2}\.\d{4} \((mai are|ultima zi)/)
    expect(first.text).toMatch(/\d RON · [\d.]+ EUR/)
    const scores = (await texts(page, "[data-testid=tender] [data-testid=score]")).map(Number)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    expect(scores.length).toBe(20)

    mkdirSync(DOCS, { recursive: true })
    await page.screenshot({ path: `${DOCS}/tender-list.png` })

    // More pages on scroll.
    await page.evaluate(() => document.querySelector(".sentinel")?.scrollIntoView())
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=tender]").length > 20)

    // Minimum score filter: every listed score reaches it.
    await page.select("[data-testid=min-score]", "50")
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll("[data-testid=tender] [data-testid=score]")].every(
          (el) => Number(el.textContent) >= 50
        ) && !document.querySelector("[aria-busy=true]")
    )
    // Closed tenders: their deadline says so.
    await page.select("[data-testid=min-score]", "0")
    await page.select("[data-testid=status]", "closed")
    await page.waitForFunction(() => {
      const items = [...document.querySelectorAll("[data-testid=tender]")]
      return items.length > 0 && items.every((el) => el.textContent?.includes("închisă"))
    })
    expectNoProblems(problems)
  })

  it("filters the tenders by words, county, CPV and deadline window, sorts them, and keeps the filters on reload", async () => {
    const { page, problems } = await session({ width: 1280, height: 900 })
    await (await companyPage(page, /Proiect Expert/)).click()
    await page.waitForSelector("[data-testid=tender]")
    const fold = (text: string) =>
      text
        .normalize("NFD")
        .replace(/\p{M}+/gu, "")
        .toLowerCase()
    /** Waits until the list has settled (no request in flight) and reads its items. */
    const items = async () => {
      await page.waitForFunction(() => !document.querySelector("[aria-busy=true]"))
      await new Promise((resolve) => setTimeout(resolve, 150))
      await page.waitForFunction(() => !document.querySelector("[aria-busy=true]"))
      return page.$$eval("[data-testid=tender]", (lis) =>
        lis.map((li) => ({
          title: li.querySelector("a.title")?.textContent ?? "",
          meta: li.querySelector(".muted.small")?.textContent ?? "",
          text: li.textContent ?? ""
        }))
      )
    }
    const total = async () => {
      await items()
      return (await page.waitForSelector("[data-testid=tender-total]"))!.evaluate((el) => el.textContent ?? "")
    }
    /** A date input changed as a user would (React listens to the input event). */
    const setDate = (selector: string, value: string) =>
      page.$eval(
        selector,
        (input, v) => {
          const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!
          setter.call(input, v)
          input.dispatchEvent(new Event("input", { bubbles: true }))
        },
        value
      )
    const deadlines = (list: ReadonlyArray<{ text: string }>) =>
      list.map((item) => {
        const match = /Termen: (\d{2})\.(\d{2})\.(\d{4})/.exec(item.text)
        return match === null ? null : `${match[3]}-${match[2]}-${match[1]}`
      })
    const ronValues = (list: ReadonlyArray<{ text: string }>) =>
      list.map((item) => {
        const match = /([\d.]+) RON/.exec(item.text)
        return match === null ? -1 : Number(match[1]!.replaceAll(".", ""))
      })

    const all = await items()
    expect(all.length).toBeGreaterThan(0)

    // Words: typed without diacritics, they find titles or authorities written with them.
    const word = fold(all[0]!.title)
      .split(/[^a-z0-9]+/)
      .find((w) => w.length >= 6)!
    await page.type("[data-testid=search]", word.toUpperCase())
    await page.waitForFunction((w) => window.location.search.includes(`q=${w.toUpperCase()}`), {}, word)
    const found = await items()
    expect(found.length).toBeGreaterThan(0)
    for (const item of found) expect(fold(`${item.title} ${item.meta}`)).toContain(word)
    await page.$eval("[data-testid=search]", (input) => {
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!
      setter.call(input, "")
      input.dispatchEvent(new Event("input", { bubbles: true }))
    })
    await page.waitForFunction(() => !window.location.search.includes("q="))

    // County: every listed authority is of the chosen county.
    const county = (await items()).map((item) => item.meta.split(" · ")[1]).find((c) => c !== undefined)!
    await page.select("[data-testid=county]", county)
    await page.waitForFunction(() => window.location.search.includes("county="))
    const inCounty = await items()
    expect(inCounty.length).toBeGreaterThan(0)
    for (const item of inCounty) expect(item.meta.endsWith(` · ${county}`)).toBe(true)
    await page.select("[data-testid=county]", "")

    // CPV: picked by its Romanian label; the filter shows the label with comma-below letters.
    await page.type("[data-testid=cpv-filter] [data-testid=cpv-search]", "71000000")
    await page.waitForSelector("[data-testid=cpv-filter] [data-testid=cpv-result][data-code='71000000-8']")
    await page.click("[data-testid=cpv-filter] [data-testid=cpv-result][data-code='71000000-8']")
    await page.waitForSelector("[data-testid=cpv-label]")
    expect(await page.$eval("[data-testid=cpv-label]", (el) => el.textContent)).toMatch(
      /^Servicii de arhitectură, de construcții, de inginerie și de inspecție/
    )
    await page.waitForFunction(() => window.location.search.includes("cpv=71000000-8"))
    const engineering = await items()
    expect(engineering.length).toBeGreaterThan(0)
    // A code no demo tender has empties the list, and says how to widen it.
    await page.click("[data-testid=cpv-filter] [data-testid=cpv-chosen] button")
    await page.type("[data-testid=cpv-filter] [data-testid=cpv-search]", "03111100")
    // Wait for the result of the whole code: results of a shorter prefix re-render while typing.
    await page.waitForSelector("[data-testid=cpv-filter] [data-testid=cpv-result][data-code='03111100-3']")
    await page.click("[data-testid=cpv-filter] [data-testid=cpv-result][data-code='03111100-3']")
    await page.waitForFunction(() => window.location.search.includes("cpv=03111100"))
    expect(await items()).toEqual([])
    await page.click("[data-testid=cpv-filter] [data-testid=cpv-chosen] button")
    await page.waitForFunction(() => !window.location.search.includes("cpv="))

    // Sort by deadline: nearest first; by value: largest first, unknown last.
    await page.select("[data-testid=sort]", "deadline")
    await page.waitForFunction(() => window.location.search.includes("sort=deadline"))
    const byDeadline = deadlines(await items()).filter((d): d is string => d !== null)
    expect(byDeadline.length).toBeGreaterThan(1)
    expect(byDeadline).toEqual([...byDeadline].sort())
    await page.select("[data-testid=sort]", "value")
    await page.waitForFunction(() => window.location.search.includes("sort=value"))
    const byValue = ronValues(await items())
    expect(byValue).toEqual([...byValue].sort((a, b) => b - a))

    // Deadline window: every listed deadline falls within it (Bucharest days, both ends included).
    await page.select("[data-testid=sort]", "deadline")
    const from = byDeadline[0]!
    const to = byDeadline[Math.min(2, byDeadline.length - 1)]!
    await setDate("[data-testid=deadline-from]", from)
    await setDate("[data-testid=deadline-to]", to)
    await page.waitForFunction(() => window.location.search.includes("deadlineTo="))
    const windowed = deadlines(await items())
    expect(windowed.length).toBeGreaterThan(0)
    for (const day of windowed) expect(day !== null && day >= from && day <= to, String(day)).toBe(true)

    // Closed tenders sorted by deadline; the filters survive a reload (they live in the address).
    await setDate("[data-testid=deadline-from]", "")
    await setDate("[data-testid=deadline-to]", "")
    await page.select("[data-testid=status]", "closed")
    await page.waitForFunction(() => window.location.search.includes("status=closed"))
    const closedCount = await total()
    await page.reload()
    await page.waitForSelector("[data-testid=tender-total]")
    expect(await page.$eval("[data-testid=status]", (el) => (el as HTMLSelectElement).value)).toBe("closed")
    expect(await page.$eval("[data-testid=sort]", (el) => (el as HTMLSelectElement).value)).toBe("deadline")
    expect(await total()).toBe(closedCount)
    for (const item of await items()) expect(item.text).toContain("închisă")

    // Clearing the filters returns to the open tenders by score.
    await page.click("[data-testid=clear-filters]")
    await page.waitForFunction(() => window.location.search === "")
    expect((await items()).map((item) => item.title)).toEqual(all.map((item) => item.title))
    expectNoProblems(problems)
  })

  it("opens a tender: the five factors as a bar chart, each with its reason, and the original notice", async () => {
    const { page, problems } = await session({ width: 1000, height: 1100 })
    await (await companyPage(page, /Proiect Expert/)).click()
    await page.waitForSelector("[data-testid=tender-link]")
    await page.click("[data-testid=tender-link]")
    await page.waitForSelector("[data-testid=tender-detail]")
    const factors = await page.$$eval("[data-testid=factor]", (items) =>
      items.map((item) => ({
        name: item.getAttribute("data-factor"),
        width: (item.querySelector(".bar-fill") as HTMLElement | null)?.style.width ?? "",
        reason: item.querySelector("[data-testid=factor-reason]")?.textContent?.trim() ?? ""
      }))
    )
    expect(factors.map((f) => f.name)).toEqual(["semantic", "keyword", "cpv", "valueFit", "historical"])
    for (const factor of factors) expect(factor.width).toMatch(/^\d+%$/)
    const href = await page.$eval("[data-testid=source-link]", (a) => a.getAttribute("href"))
    expect(href).toMatch(/^https?:\/\//)
    await page.screenshot({ path: `${DOCS}/tender-breakdown.png`, fullPage: true })
    // Each factor says why it scored so: the `reason` of the model (branch `reasons`/`matching`).
    for (const factor of factors) expect(factor.reason, `reason of ${factor.name}`).not.toBe("")
    expectNoProblems(problems)
  })

  it("creates a company with a description and shows its scored tenders", async () => {
    const { page, problems } = await session()
    await page.click("[data-testid=add-company]")
    await page.type("[data-testid=company-form] input[name=name]", "Asfaltări Nord SRL")
    await page.type("[data-testid=company-form] input[name=fiscalCode]", "RO 14399840")
    await page.type(
      "[data-testid=company-form] textarea[name=description]",
      "Lucrări de asfaltare și reabilitare a drumurilor județene și comunale, covoare asfaltice, poduri și podețe."
    )
    await page.click("[data-testid=company-form] button[type=submit]")
    await page.waitForSelector("[data-testid=notice]")
    // The notice shows at once; the list reloads after it.
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll("[data-testid=company] a.title")].some((a) =>
          a.textContent?.includes("Asfaltări Nord")
        ),
      { timeout: 10_000 }
    )
    const created = await companyPage(page, /Asfaltări Nord/)
    const [row] = await sql(
      (q) => q<{ fiscal_code: string }>`SELECT fiscal_code FROM companies WHERE name = 'Asfaltări Nord SRL'`
    )
    expect(row?.fiscal_code).toBe("14399840")
    await created.click()
    // Scoring runs in the worker (a company.rescore job): the list fills once it has run; reload until then.
    await page.waitForSelector("[data-testid=tender], [data-testid=empty]")
    for (let attempt = 0; attempt < 20 && (await page.$("[data-testid=tender]")) === null; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      await page.reload()
      await page.waitForSelector("[data-testid=tender], [data-testid=empty]")
    }
    // A company with a description and no watchlist is matched by its description (branch `matching`).
    expect(await texts(page, "[data-testid=tender] a.title"), "tenders scored for the description").not.toEqual([])
    expectNoProblems(problems)
  }, 90_000)

  it("creates a watchlist with a CPV code picked from the search", async () => {
    const { page, problems } = await session()
    await (await companyPage(page, /Dotări Școlare/)).click()
    await page.waitForSelector("[data-testid=tender-filters]")
    await page.click("a[href$='/watchlists']")
    await page.waitForSelector("[data-testid=watchlist]")
    const before = (await page.$$("[data-testid=watchlist]")).length
    await page.click("[data-testid=add-watchlist]")
    await page.type("[data-testid=watchlist-form] input[name=name]", "Echipamente de rețea")
    // English words find the code as well as Romanian ones.
    await page.type("[data-testid=cpv-search]", "network equipment")
    await page.waitForSelector("[data-testid=cpv-result]")
    const code = await page.$eval("[data-testid=cpv-result]", (b) => b.getAttribute("data-code"))
    expect(code).toMatch(/^\d{8}-\d$/)
    await page.click("[data-testid=cpv-result]")
    await page.waitForSelector("[data-testid=cpv-chosen]")
    await page.type("[data-testid=watchlist-form] input[name=keywords]", "switch, router")
    await page.click("[data-testid=save-watchlist]")
    await page.waitForFunction((n) => document.querySelectorAll("[data-testid=watchlist]").length === n + 1, {}, before)
    const stored = await sql(
      (q) =>
        q<{ cpv_codes: Array<string>; keywords: Array<string> }>`
          SELECT cpv_codes, keywords FROM watchlists WHERE name = 'Echipamente de rețea'`
    )
    expect(stored).toEqual([{ cpv_codes: [code], keywords: ["switch", "router"] }])
    expectNoProblems(problems)
  })

  it("shows CPV labels with comma-below ș ț (the CPV table's cedillas converted), in the picker and on a tender", async () => {
    const { page, problems } = await session()
    await (await companyPage(page, /Dotări Școlare/)).click()
    await page.waitForSelector("[data-testid=tender-filters]")
    await page.click("a[href$='/watchlists']")
    await page.waitForSelector("[data-testid=watchlist]")
    await page.click("[data-testid=add-watchlist]")
    // Spelled without diacritics: the search folds them; the labels come back as stored.
    await page.type("[data-testid=cpv-search]", "intretinere")
    await page.waitForSelector("[data-testid=cpv-result]")
    const labels = await texts(page, "[data-testid=cpv-result] span")
    expect(labels.length).toBeGreaterThan(0)
    expect(labels.some((label) => label.includes("\u021b"))).toBe(true) // ț, e.g. "întreținere"
    for (const label of labels) expect(label).not.toMatch(/[\u015f\u0163\u015e\u0162]/)

    await page.goto(app.server.baseUrl)
    await page.waitForSelector("[data-testid=company] a.title")
    await (await companyPage(page, /Proiect Expert/)).click()
    await page.waitForSelector("[data-testid=tender-link]")
    await page.click("[data-testid=tender-link]")
    await page.waitForSelector("[data-testid=tender-detail]")
    const detail = await texts(page, "[data-testid=tender-detail] li")
    expect(detail.join(" ")).toMatch(/\d{8}-\d/)
    expect(detail.join(" ")).not.toMatch(/[\u015f\u0163\u015e\u0162]/)
    expectNoProblems(problems)
  })

  it("marks an alert read and the unread count in the navigation falls", async () => {
    const { page, problems } = await session()
    await page.waitForSelector("[data-testid=unread-count]")
    const before = Number(await page.$eval("[data-testid=unread-count]", (el) => el.textContent))
    expect(before).toBeGreaterThan(0)
    await page.click("[data-testid=nav-alerts]")
    await page.waitForSelector("[data-testid=mark-read]")
    await page.click("[data-testid=mark-read]")
    await page.waitForFunction(
      (n) => Number(document.querySelector("[data-testid=unread-count]")?.textContent) === n - 1,
      {},
      before
    )
    const [{ unread }] = (await sql(
      (q) => q<{ unread: number }>`SELECT count(*)::int AS unread FROM alerts WHERE NOT read`
    )) as [{ unread: number }]
    expect(unread).toBe(before - 1)
    expectNoProblems(problems)
  })

  it("creates an API key, shows it once with a copy button, lists it masked and revokes it", async () => {
    const { page, problems } = await session()
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=key]")
    await page.type("input[name=keyName]", "integrare CRM")
    await page.click("[data-testid=create-key]")
    await page.waitForSelector("[data-testid=new-key-value]")
    const key = await page.$eval("[data-testid=new-key-value]", (el) => el.textContent ?? "")
    expect(key).toMatch(/^svc_[0-9a-f]{64}$/)
    expect(await page.$("[data-testid=copy-key]")).not.toBeNull()
    // The key works on the key API.
    const ok = await fetch(`${app.server.baseUrl}/api/v1/webhooks`, { headers: { authorization: `Bearer ${key}` } })
    expect(ok.status).toBe(200)

    // Once: gone from the page after closing it, and after a reload; the list shows it masked, with
    // when it was last used (that request; recorded in the background, so awaited in the database).
    await page.click("[data-testid=close-key]")
    expect(await page.content()).not.toContain(key)
    for (let attempt = 0; attempt < 50; attempt++) {
      const [{ used }] = (await sql(
        (q) =>
          q<{
            used: number
          }>`SELECT count(*)::int AS used FROM api_keys WHERE name = 'integrare CRM' AND last_used_at IS NOT NULL`
      )) as [{ used: number }]
      if (used === 1) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await page.reload()
    await page.waitForSelector("[data-testid=key]")
    expect(await page.content()).not.toContain(key)
    const masked = await texts(page, "[data-testid=key] code")
    expect(masked).toContain(`${key.slice(0, 12)}…`)
    const lastUse = await page.$$eval("[data-testid=key]", (rows) =>
      rows
        .filter((li) => li.textContent?.includes("integrare CRM"))
        .map((li) => li.querySelector("[data-testid=key-last-used]")?.textContent ?? "")
    )
    expect(lastUse).toHaveLength(1)
    expect(lastUse[0]).toMatch(/^folosită ultima dată \d{2}\.\d{2}\.\d{4}/)

    page.once("dialog", (dialog) => dialog.accept())
    const rows = await page.$$("[data-testid=key]")
    for (const row of rows) {
      if ((await row.evaluate((li) => li.textContent ?? "")).includes("integrare CRM")) {
        await (await row.$("[data-testid=revoke-key]"))!.click()
        await row.waitForSelector(".badge")
      }
    }
    const revoked = await fetch(`${app.server.baseUrl}/api/v1/webhooks`, {
      headers: { authorization: `Bearer ${key}` }
    })
    expect(revoked.status).toBe(401)
    expect(((await revoked.json()) as { code: string }).code).toBe("API_KEY_REVOKED")
    expectNoProblems(problems)
  })

  it("shows the notice sources in the settings: polled or not, their days, times, counts, notices lost and the error of a source that is down", async () => {
    // SEAP polled and failing since its last success; TED never opened (not polled by any worker).
    await sql(
      (q) => q`
        INSERT INTO ingest_sources (name, poller_alive_until, watermark, last_success_at, last_error_at, last_error, ingested, skipped)
        VALUES ('seap', now() + interval '3 minutes', '2026-11-20', '2026-11-21T08:15:00Z', '2026-11-21T09:30:00Z',
                'SEAP answered with its maintenance page', 1234567, 3)
        ON CONFLICT (name) DO UPDATE SET poller_alive_until = EXCLUDED.poller_alive_until, watermark = EXCLUDED.watermark,
          last_success_at = EXCLUDED.last_success_at, last_error_at = EXCLUDED.last_error_at,
          last_error = EXCLUDED.last_error, ingested = EXCLUDED.ingested, skipped = EXCLUDED.skipped`
    )
    // Two SEAP notices whose retry job was dead-lettered, one still retried (not shown).
    await sql(
      (q) => q`
        INSERT INTO jobs (kind, status) VALUES ('ingest.seap-notice', 'dead'), ('ingest.seap-notice', 'dead'),
                                               ('ingest.seap-notice', 'queued')`
    )
    const { page, problems } = await session()
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=source]")
    const section = await page.$eval("[data-testid=sources]", (el) => ({
      heading: el.querySelector("h2")?.textContent ?? "",
      labelledBy: el.getAttribute("aria-labelledby"),
      sources: [...el.querySelectorAll("[data-testid=source]")].map((li) => ({
        name: li.getAttribute("data-source"),
        title: li.querySelector("h3")?.textContent ?? "",
        labels: [...li.querySelectorAll("dt")].map((dt) => dt.textContent ?? ""),
        values: [...li.querySelectorAll("dd")].map((dd) => dd.textContent?.trim() ?? "")
      }))
    }))
    expect(section.heading).toBe("Surse de date")
    expect(section.labelledBy).toBe("sources-title")
    expect(section.sources.map((s) => [s.name, s.title])).toEqual([
      ["ted", "TED — Jurnalul Oficial al UE"],
      ["seap", "SEAP / SICAP — e-licitatie.ro"]
    ])
    const [ted, seap] = section.sources
    expect(seap?.labels).toEqual([
      "Stare",
      "Următoarea preluare de la",
      "Ultima preluare reușită",
      "Ultima eroare",
      "Eroarea",
      "Anunțuri preluate",
      "Anunțuri omise"
    ])
    expect(seap?.values).toEqual([
      "Indisponibilă 2 anunțuri pierdute",
      "20.11.2026",
      "21.11.2026, 10:15",
      "21.11.2026, 11:30",
      "SEAP answered with its maintenance page",
      "1.234.567",
      "3"
    ])
    // TED is not polled: off, with how an operator turns it on, and no error line.
    expect(ted?.labels).not.toContain("Eroarea")
    expect(ted?.values[0]).toMatch(/^Oprită .*INGEST_SOURCES=ted,seap/)
    expect(ted?.values.slice(2)).toEqual(["niciodată", "niciodată", "0", "0"])
    expectNoProblems(problems)
  })

  it("refreshes an expired access token without the user noticing", async () => {
    const { page, problems } = await session()
    const seen: Array<string> = []
    page.on("response", (response) => {
      const path = new URL(response.url()).pathname
      if (path.startsWith("/api/")) seen.push(`${response.status()} ${path}`)
    })
    // 16 minutes later on the server's clock: the in-memory access token (15 min) has expired.
    app.server.advanceClock("16 minutes")
    await page.click("[data-testid=nav-alerts]")
    await page.waitForSelector("[data-testid=alert]")
    expect(await page.$("[data-testid=login-form]")).toBeNull()
    expect(await page.$("[data-testid=error]")).toBeNull()
    expect(seen).toContain("401 /api/v1/alerts")
    expect(seen).toContain("200 /api/v1/auth/refresh")
    expect(seen.filter((line) => line.endsWith("/api/v1/alerts")).at(-1)).toMatch(/^200 /)
    expectNoProblems(problems)
  })

  it("a throttled login says how long to wait", async () => {
    const { page, problems } = await openPage(app.browser)
    await page.goto(`${app.server.baseUrl}/`)
    await page.waitForSelector("[data-testid=login-form]")
    await page.type("input[name=email]", "nimeni@example.test")
    await page.type("input[name=password]", "parola-gresita")
    for (let attempt = 0; attempt < 6; attempt++) {
      await page.click("button[type=submit]")
      await page.waitForSelector("[role=alert]")
      if (await page.$("[data-testid=login-throttled]")) break
      // Wait for the button to be usable again before the next attempt.
      await page.waitForSelector("button[type=submit]:not([disabled])")
    }
    const message = await page.$eval("[data-testid=login-throttled]", (el) => el.textContent ?? "")
    expect(message).toMatch(/Puteți încerca din nou peste \d+ (de )?(secunde|minute)|un minut/)
    expect(await page.$eval("button[type=submit]", (b) => (b as HTMLButtonElement).disabled)).toBe(true)
    expect(problems.filter((p) => !/status of 429/.test(p))).toEqual([])
  })

  it("fits a 360 px wide phone screen", async () => {
    const { page, problems } = await session({ width: 360, height: 740 })
    await (await companyPage(page, /Proiect Expert/)).click()
    await page.waitForSelector("[data-testid=tender]")
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await page.click("[data-testid=tender-link]")
    await page.waitForSelector("[data-testid=factor]")
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    expectNoProblems(problems)
  })
})
