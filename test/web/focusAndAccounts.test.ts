import { Effect } from "effect"
import type { HTTPRequest, Page } from "puppeteer-core"
import { afterAll, describe, expect, it } from "vitest"
import { TenantsRepo } from "../../src/infra/accounts/TenantsRepo.js"
import { UsersRepo } from "../../src/infra/accounts/UsersRepo.js"
import { t } from "../../src/web/strings.js"
import { appAndBrowser, clickUntilShown, logInAsDemo, openPage } from "./support/AppServer.js"

/**
 * What a keyboard or screen reader user meets in the edit forms (the focus when one opens and
 * closes, a refused CPV code marked at its picker), and what the next account to log in the same tab
 * meets of the last one: a real Chromium against the real API over the demo data.
 */
describe("focus, refused fields and the next account in the browser app", () => {
  const app = appAndBrowser()
  const closers: Array<() => Promise<void>> = []

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined)
  })

  /** A fresh browser context, logged in as the demo consultant. */
  const session = async (): Promise<Page> => {
    const opened = await openPage(app.browser)
    closers.push(opened.close)
    await logInAsDemo(opened.page, app.server)
    return opened.page
  }

  const firstCompanyId = async () => {
    const [first] = await app.server.sql(
      (q) => q<{ id: string }>`
        SELECT id FROM companies WHERE tenant_id = ${app.server.demo.tenantId} ORDER BY created_at, id LIMIT 1`
    )
    return first!.id
  }

  /** The focused element: its name attribute, its test id, and its text. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const active = document.activeElement
      return {
        onBody: active === document.body || active === null,
        name: active?.getAttribute("name") ?? null,
        testId: active?.getAttribute("data-testid") ?? null,
        text: active?.textContent?.trim() ?? ""
      }
    })

  it("an edit form takes the focus when it opens and gives it back to the button that opened it", async () => {
    const page = await session()
    const form = "[data-testid=company-form]"
    // "Add": its button hides while the form is open; the form's first field has the focus.
    await page.focus("[data-testid=add-company]")
    await page.keyboard.press("Enter")
    await page.waitForSelector(form)
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "name", { timeout: 5_000 })
    expect((await focused(page)).name).toBe("name")
    // Cancelled: back on the "add" button, shown again, not on the page's top.
    await page.click(`${form} .actions button[type=button]`)
    await page.waitForSelector(form, { hidden: true })
    expect(await focused(page)).toMatchObject({ onBody: false, testId: "add-company" })

    // A card's "edit", saved: back on that card's "edit" button.
    const edit = "[data-testid=company]:nth-child(2) .actions button"
    await page.focus(edit)
    await page.keyboard.press("Enter")
    await page.waitForSelector(form)
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "name", { timeout: 5_000 })
    await page.keyboard.press("Enter")
    await page.waitForSelector(form, { hidden: true, timeout: 10_000 })
    expect(await focused(page)).toMatchObject({ onBody: false, text: t.edit })
    expect(await page.evaluate((selector) => document.activeElement === document.querySelector(selector), edit)).toBe(
      true
    )

    // The watchlist form alike.
    await page.goto(`${app.server.baseUrl}/companies/${await firstCompanyId()}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    await page.focus("[data-testid=add-watchlist]")
    await page.keyboard.press("Enter")
    await page.waitForSelector("[data-testid=watchlist-form]")
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "name", { timeout: 5_000 })
    await page.click("[data-testid=watchlist-form] .actions button[type=button]")
    await page.waitForSelector("[data-testid=watchlist-form]", { hidden: true })
    expect(await focused(page)).toMatchObject({ onBody: false, testId: "add-watchlist" })
  })

  it("deleting a card moves the focus to the next card's button, else to 'add', else to the heading", async () => {
    const [company] = await app.server.sql(
      (q) => q<{ id: string }>`
        INSERT INTO companies (tenant_id, name) VALUES (${app.server.demo.tenantId}, 'Ștergeri SRL') RETURNING id`
    )
    await app.server.sql(
      (q) => q`
        INSERT INTO watchlists (tenant_id, company_id, name, created_at)
        SELECT ${app.server.demo.tenantId}, ${company!.id}, name, now() + n * interval '1 second'
        FROM unnest(ARRAY['Lista A', 'Lista B', 'Lista C']) WITH ORDINALITY AS lists (name, n)`
    )
    const page = await session()
    page.on("dialog", (dialog) => dialog.accept())
    /** The focused element: the title of its card (watchlist or webhook), its text, its tag. */
    const focusedCard = () =>
      page.evaluate(() => {
        const active = document.activeElement
        const card = active?.closest("[data-testid=watchlist], [data-testid=webhook]")
        return {
          card: card?.querySelector(".title, code")?.textContent ?? null,
          text: active?.textContent?.trim() ?? "",
          tag: active?.tagName ?? ""
        }
      })
    const deleteWith = async (card: string, title: string) => {
      const button = await page.waitForSelector(
        `xpath///li[@data-testid='${card}'][.//*[text()='${title}']]//button[text()='${t.delete}']`
      )
      await button!.focus()
      await page.keyboard.press("Enter")
      await page.waitForFunction(
        (selector, gone) => ![...document.querySelectorAll(selector)].some((c) => c.textContent?.includes(gone)),
        { timeout: 10_000 },
        `[data-testid=${card}]`,
        title
      )
      // The focus moves once the list is shown without the card.
      await page.waitForFunction(() => document.activeElement !== document.body, { timeout: 2_000 }).catch(() => {})
    }

    await page.goto(`${app.server.baseUrl}/companies/${company!.id}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    // The middle one: the next card's "delete".
    await deleteWith("watchlist", "Lista B")
    expect(await focusedCard()).toEqual({ card: "Lista C", text: t.delete, tag: "BUTTON" })
    // The last one: the card before's.
    await deleteWith("watchlist", "Lista C")
    expect(await focusedCard()).toEqual({ card: "Lista A", text: t.delete, tag: "BUTTON" })
    // The only one, the "add" form open (its button hidden): the screen's heading.
    await page.click("[data-testid=add-watchlist]")
    await page.waitForSelector("[data-testid=watchlist-form]")
    await page.click("[data-testid=watchlist-form] .actions button[type=button]")
    await page.waitForSelector("[data-testid=watchlist-form]", { hidden: true })
    await page.click("[data-testid=add-watchlist]")
    await page.waitForSelector("[data-testid=watchlist-form]")
    await deleteWith("watchlist", "Lista A")
    expect(await focusedCard()).toMatchObject({ card: null, tag: "H1" })

    // Webhooks in Settings: the next card's "delete", then the "add" button.
    await app.server.sql(
      (q) => q`
        INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events, created_at)
        SELECT ${app.server.demo.tenantId}, url, '\\x00'::bytea, ARRAY['tender.matched'], now() + n * interval '1 second'
        FROM unnest(ARRAY['https://unu.invalid/tss', 'https://doi.invalid/tss']) WITH ORDINALITY AS hooks (url, n)`
    )
    await page.goto(`${app.server.baseUrl}/settings`)
    await page.waitForSelector("[data-testid=webhook]")
    await deleteWith("webhook", "https://unu.invalid/tss")
    expect(await focusedCard()).toEqual({ card: "https://doi.invalid/tss", text: t.delete, tag: "BUTTON" })
    await deleteWith("webhook", "https://doi.invalid/tss")
    expect(await focusedCard()).toEqual({ card: null, text: t.settings.addWebhook, tag: "BUTTON" })
  })

  it("the login form over the screens of a session that ended gives the focus back where it was", async () => {
    const page = await session()
    const form = "[data-testid=company-form]"
    await page.click("[data-testid=add-company]")
    await page.waitForSelector(form)
    await page.type(`${form} input[name=name]`, "Apă Canal Est SRL")
    // The session is closed elsewhere meanwhile; Enter in the name field sends the form, refused 401.
    await app.server.sql(
      (q) => q`
        UPDATE auth_sessions SET revoked_at = now(), revoked_reason = 'logout'
        WHERE revoked_at IS NULL AND user_id IN (SELECT id FROM users WHERE email = ${app.server.demo.email})`
    )
    await page.keyboard.press("Enter")
    await page.waitForSelector("[role=dialog] [data-testid=login-form]")
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "email", { timeout: 5_000 })
    await page.keyboard.type(app.server.demo.email)
    await page.type("input[name=password]", app.server.demo.password)
    await page.keyboard.press("Enter")
    await page.waitForSelector("[data-testid=login-form]", { hidden: true })
    // Back in the name field, in the form kept as it was, not on the page's top.
    expect(await focused(page)).toMatchObject({ onBody: false, name: "name" })
    expect(await page.$eval(`${form} input[name=name]`, (input) => (input as HTMLInputElement).value)).toBe(
      "Apă Canal Est SRL"
    )
  })

  it("CPV codes the server refuses are marked at the picker: aria-invalid, the Romanian reason beside it", async () => {
    const page = await session()
    // A code the CPV table does not have (what an app older than the server's table would send):
    // the server's own 400 answers it.
    await page.setRequestInterception(true)
    page.on("request", (request: HTTPRequest) => {
      const body = request.postData()
      if (request.method() !== "PATCH" || body === undefined || !body.includes('"name"')) return request.continue()
      return request.continue({ postData: JSON.stringify({ ...JSON.parse(body), cpvCodes: ["99999999-9"] }) })
    })
    await page.goto(`${app.server.baseUrl}/companies/${await firstCompanyId()}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    const form = "[data-testid=watchlist-form]"
    await clickUntilShown(page, "[data-testid=watchlist]:first-child .actions button", form)
    const search = `${form} [data-testid=cpv-search]`
    const pickerState = () =>
      page.$eval(search, (input) => ({
        ariaInvalid: input.getAttribute("aria-invalid"),
        description: document.getElementById(input.getAttribute("aria-describedby") ?? "")?.textContent ?? null
      }))
    expect(await pickerState()).toEqual({ ariaInvalid: null, description: null })
    await page.type(`${form} input[name=name]`, " bis")
    await page.click("[data-testid=save-watchlist]")
    await page.waitForSelector(`${form} [data-testid=error]`)
    const reason = t.errors.reason.unknownCpv("99999999-9")
    expect(await pickerState()).toEqual({ ariaInvalid: "true", description: reason })
    expect(await page.$eval(search, (input) => input.closest(".field")?.textContent ?? "")).toContain(reason)
  })

  it("the next account to log in the same tab starts at its own companies, not on the last one's screen", async () => {
    const email = "alt.consultant@example.ro"
    const password = "alta-parola-2026"
    await app.server.run(
      Effect.gen(function* () {
        const tenant = yield* (yield* TenantsRepo).create({ name: "Alt cabinet", plan: "consultant" })
        yield* (yield* UsersRepo).create({ tenantId: tenant.id, email, password }).pipe(Effect.orDie)
      })
    )
    const companyId = await firstCompanyId()
    const logInAgain = async (page: Page, as: string, with_: string) => {
      await page.waitForSelector("[data-testid=login-form]")
      await page.type("input[name=email]", as)
      await page.type("input[name=password]", with_)
      await page.click("[data-testid=login-form] button[type=submit]")
      await page.waitForSelector("[data-testid=login-form]", { hidden: true })
      await page.waitForSelector("main h1")
    }
    /** The screen shown: its address, its heading, and any error on it. */
    const shown = async (page: Page) => {
      await page.waitForFunction(
        (title) => document.querySelector("main h1")?.textContent === title,
        { timeout: 10_000 },
        t.companies.title
      )
      return {
        path: await page.evaluate(() => window.location.pathname + window.location.search),
        errors: await page.$$eval("main [data-testid=error]", (boxes) => boxes.length)
      }
    }

    // A logout: the demo consultant's search in their client's tender list stays behind in the address.
    const page = await session()
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/tenders?q=spital&status=all`)
    await page.waitForSelector("[data-testid=tender-filters]")
    await page.click("[data-testid=logout]")
    await logInAgain(page, email, password)
    expect(await shown(page).catch(() => "not the companies screen")).toEqual({ path: "/companies", errors: 0 })
    expect(await page.$$("[data-testid=tender-filters]")).toEqual([])

    // A session that ended (revoked elsewhere), then another account logs in over the screens.
    await page.click("[data-testid=logout]")
    await logInAgain(page, app.server.demo.email, app.server.demo.password)
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/tenders?q=spital`)
    await page.waitForSelector("[data-testid=tender-filters]")
    await app.server.sql(
      (q) => q`
        UPDATE auth_sessions SET revoked_at = now(), revoked_reason = 'logout'
        WHERE revoked_at IS NULL AND user_id IN (SELECT id FROM users WHERE email = ${app.server.demo.email})`
    )
    await page.select("[data-testid=status]", "all")
    await logInAgain(page, email, password)
    expect(await shown(page).catch(() => "not the companies screen")).toEqual({ path: "/companies", errors: 0 })
  })
})
