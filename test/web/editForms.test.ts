import { Effect } from "effect"
import type { Page } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AuthSessions, AuthSessionsLive } from "../../src/infra/auth/AuthSessions.js"
import { t } from "../../src/web/strings.js"
import { request } from "../support/http.js"
import { appAndBrowser, clickUntilShown, logInAsDemo, openPage, texts } from "./support/AppServer.js"

/**
 * The app's edit forms and the alerts pager as a consultant uses them, in a real Chromium against
 * the real API over the demo data: a form edits the record it was opened for, sends only what was
 * changed in it, takes a name typed with a trailing space, marks a refused field where it is, tells
 * a proxy's error page from a refused input; the alerts pager survives alerts read.
 */
describe("edit forms and the alerts pager in the browser app", () => {
  const app = appAndBrowser()
  let page: Page
  let close: () => Promise<void>

  beforeAll(async () => {
    const opened = await openPage(app.browser)
    page = opened.page
    close = opened.close
    await logInAsDemo(page, app.server)
  })
  afterAll(async () => {
    await close?.()
  })

  const inputValue = (selector: string) => page.$eval(selector, (e) => (e as HTMLInputElement).value)
  /** Waits up to 10 s for `predicate` in the page; a timeout is left to the assertions after it. */
  const settle = <A extends string | number | ReadonlyArray<string>>(predicate: (arg: A) => boolean, arg: A) =>
    page.waitForFunction(predicate as (arg: unknown) => boolean, { timeout: 10_000 }, arg).catch(() => undefined)

  it("the company form opened for A and then for B shows and saves B's data", async () => {
    const [a, b] = await app.server.sql(
      (q) => q<{ id: string; name: string; description: string }>`
        SELECT id, name, description FROM companies WHERE tenant_id = ${app.server.demo.tenantId} ORDER BY created_at, id`
    )
    await page.goto(`${app.server.baseUrl}/companies`)
    await page.waitForSelector("[data-testid=company]")
    const editButton = (n: number) => `[data-testid=company]:nth-child(${n}) .actions button:nth-of-type(1)`
    await clickUntilShown(page, editButton(1), "[data-testid=company-form]")
    expect(await inputValue("[data-testid=company-form] input[name=name]")).toBe(a!.name)
    // The list stays under the open form, with its Edit buttons: the consultant picks another company.
    await page.click(editButton(2))
    await settle(
      (name) => document.querySelector("[data-testid=company-form] h2")?.textContent?.includes(name) ?? false,
      b!.name
    )
    const shownName = await inputValue("[data-testid=company-form] input[name=name]")
    await page.click("[data-testid=company-form] button[type=submit]")
    await page.waitForSelector("[data-testid=company-form]", { hidden: true })
    const [storedB] = await app.server.sql(
      (q) => q<{ name: string; description: string }>`SELECT name, description FROM companies WHERE id = ${b!.id}`
    )
    expect({ shownName, storedB }).toEqual({
      shownName: b!.name,
      storedB: { name: b!.name, description: b!.description }
    })
  })

  it("the watchlist form opened for W1 and then for W2 shows and saves W2's criteria", async () => {
    const [company] = await app.server.sql(
      (q) => q<{ id: string }>`
        SELECT company_id AS id FROM watchlists WHERE tenant_id = ${app.server.demo.tenantId} AND deleted_at IS NULL
        GROUP BY company_id HAVING count(*) >= 2 ORDER BY company_id LIMIT 1`
    )
    const [w1, w2] = await app.server.sql(
      (q) => q<{ id: string; name: string; keywords: ReadonlyArray<string> }>`
        SELECT id, name, keywords FROM watchlists WHERE company_id = ${company!.id} AND deleted_at IS NULL
        ORDER BY created_at, id`
    )
    await page.goto(`${app.server.baseUrl}/companies/${company!.id}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    const nameInput = "[data-testid=watchlist-form] input[name=name]"
    await clickUntilShown(page, "[data-testid=watchlist]:nth-child(1) .actions button", "[data-testid=watchlist-form]")
    expect(await inputValue(nameInput)).toBe(w1!.name)
    await page.click("[data-testid=watchlist]:nth-child(2) .actions button")
    await settle(
      ([selector, name]) => (document.querySelector(selector!) as HTMLInputElement | null)?.value === name,
      [nameInput, w2!.name]
    )
    const shownName = await inputValue(nameInput)
    await page.click("[data-testid=save-watchlist]")
    await page.waitForSelector("[data-testid=watchlist-form]", { hidden: true })
    const [storedW2] = await app.server.sql(
      (q) =>
        q<{ name: string; keywords: ReadonlyArray<string> }>`SELECT name, keywords FROM watchlists WHERE id = ${w2!.id}`
    )
    expect({ shownName, storedW2 }).toEqual({
      shownName: w2!.name,
      storedW2: { name: w2!.name, keywords: w2!.keywords }
    })
  })

  it("a watchlist saved from the editor keeps a change made meanwhile to a field not touched in it", async () => {
    const [w] = await app.server.sql(
      (q) => q<{ id: string; company_id: string; name: string }>`
        SELECT id, company_id, name FROM watchlists WHERE tenant_id = ${app.server.demo.tenantId} AND deleted_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT 1`
    )
    const [user] = await app.server.sql(
      (q) => q<{ id: string }>`SELECT id FROM users WHERE tenant_id = ${app.server.demo.tenantId} LIMIT 1`
    )
    const colleague = await app.server.run(
      Effect.flatMap(AuthSessions, (sessions) =>
        sessions.login({ id: user!.id, tenantId: app.server.demo.tenantId })
      ).pipe(Effect.provide(AuthSessionsLive))
    )
    await page.goto(`${app.server.baseUrl}/companies/${w!.company_id}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    const index = await page.$$eval(
      "[data-testid=watchlist] .title",
      (elements, name) => elements.findIndex((element) => element.textContent === name),
      w!.name
    )
    await clickUntilShown(
      page,
      `[data-testid=watchlist]:nth-child(${index + 1}) .actions button`,
      "[data-testid=watchlist-form]"
    )
    // Another session of the account changes the keywords while the form is open.
    const patched = await request(`${app.server.baseUrl}/api/v1/watchlists/${w!.id}`, {
      method: "PATCH",
      token: colleague.accessToken,
      body: { keywords: ["schimbat de coleg"] }
    })
    expect(patched.status).toBe(200)
    // Here only the name is changed.
    await page.click("[data-testid=watchlist-form] input[name=name]", { clickCount: 3 })
    await page.type("[data-testid=watchlist-form] input[name=name]", "Redenumită")
    await page.click("[data-testid=save-watchlist]")
    await page.waitForSelector("[data-testid=watchlist-form]", { hidden: true })
    const [stored] = await app.server.sql(
      (q) =>
        q<{ name: string; keywords: ReadonlyArray<string> }>`SELECT name, keywords FROM watchlists WHERE id = ${w!.id}`
    )
    expect(stored).toEqual({ name: "Redenumită", keywords: ["schimbat de coleg"] })
  })

  it("a watchlist's alert threshold left empty is not saved (it would read as 0: an alert for every tender)", async () => {
    const [w] = await app.server.sql(
      (q) => q<{ id: string; company_id: string; min_score: number }>`
        SELECT id, company_id, min_score FROM watchlists WHERE tenant_id = ${app.server.demo.tenantId} AND deleted_at IS NULL
        ORDER BY created_at, id LIMIT 1`
    )
    await page.goto(`${app.server.baseUrl}/companies/${w!.company_id}/watchlists`)
    await page.waitForSelector("[data-testid=watchlist]")
    await clickUntilShown(page, "[data-testid=watchlist]:nth-child(1) .actions button", "[data-testid=watchlist-form]")
    await page.click("[data-testid=watchlist-form] input[name=minScore]", { clickCount: 3 })
    await page.keyboard.press("Backspace")
    await page.click("[data-testid=save-watchlist]")
    const invalid = await page.$eval(
      "[data-testid=watchlist-form] input[name=minScore]",
      (input) => !(input as HTMLInputElement).validity.valid
    )
    expect(invalid).toBe(true)
    expect(await page.$("[data-testid=watchlist-form]")).not.toBeNull()
    const [stored] = await app.server.sql(
      (q) => q<{ min_score: number }>`SELECT min_score FROM watchlists WHERE id = ${w!.id}`
    )
    expect(stored!.min_score).toBe(w!.min_score)
  })

  /** A company of the demo account that has scored tenders. */
  const scoredCompanyId = async () => {
    const [row] = await app.server.sql(
      (q) => q<{ id: string }>`
        SELECT c.id FROM companies c WHERE c.tenant_id = ${app.server.demo.tenantId} AND c.active
          AND EXISTS (SELECT 1 FROM tender_scores s WHERE s.company_id = c.id)
        ORDER BY c.created_at, c.id LIMIT 1`
    )
    return row!.id
  }

  /** The new-watchlist form, opened on the Watchlists screen of a company with scored tenders. */
  const openNewWatchlist = async () => {
    await page.goto(`${app.server.baseUrl}/companies/${await scoredCompanyId()}/watchlists`)
    await page.waitForSelector("[data-testid=add-watchlist]")
    await clickUntilShown(page, "[data-testid=add-watchlist]", "[data-testid=watchlist-form]")
  }

  it("a refused watchlist field is marked at the field: aria-invalid and the Romanian reason beside it", async () => {
    await openNewWatchlist()
    const form = "[data-testid=watchlist-form]"
    await page.type(`${form} input[name=name]`, "Interval greșit")
    await page.type(`${form} input[name=minValue]`, "500000")
    await page.type(`${form} input[name=maxValue]`, "1000")
    await page.click("[data-testid=save-watchlist]")
    await page.waitForSelector(`${form} [data-testid=error]`)
    // The whole sentence under the form (worded as test/web/clientErrors.test.ts checks) ...
    expect((await texts(page, `${form} [data-testid=error] span`))[0]).toContain(t.errors.reason.minAboveMax)
    // ... and the reason beside the field it names, which is marked for assistive technology.
    const field = await page.$eval(`${form} input[name=minValue]`, (input) => ({
      ariaInvalid: input.getAttribute("aria-invalid"),
      besideIt: input.closest(".field")?.textContent ?? "",
      description: document.getElementById(input.getAttribute("aria-describedby") ?? "")?.textContent ?? ""
    }))
    expect(field.ariaInvalid).toBe("true")
    expect(field.besideIt).toContain("nu poate depăși valoarea maximă")
    expect(field.description).toBe(t.errors.reason.minAboveMax)
    // A field not refused is not marked.
    expect(await page.$eval(`${form} input[name=maxValue]`, (input) => input.getAttribute("aria-invalid"))).toBeNull()
    // What was typed is kept.
    expect(await inputValue(`${form} input[name=minValue]`)).toBe("500000")
    await page.click(`${form} .actions button[type=button]`)
  })

  /** Puts `text` on the browser's clipboard as a user copies it: selected in a text area, then Copy. */
  const copyToClipboard = async (text: string) => {
    await page.evaluate((value) => {
      const scratch = document.createElement("textarea")
      scratch.id = "clipboard-scratch"
      scratch.value = value
      document.body.append(scratch)
      scratch.focus()
      scratch.select()
    }, text)
    await page.keyboard.press("KeyC", { commands: ["Copy"] })
    await page.evaluate(() => document.getElementById("clipboard-scratch")?.remove())
  }
  const pasteInto = async (selector: string) => {
    await page.focus(selector)
    await page.keyboard.press("KeyV", { commands: ["Paste"] })
  }
  /** A control's length, its description (the texts aria-describedby names) and its field's live note. */
  const lengthState = (selector: string) =>
    page.$eval(selector, (control) => ({
      length: (control as HTMLInputElement).value.length,
      description: (control.getAttribute("aria-describedby") ?? "")
        .split(" ")
        .filter(Boolean)
        .map((id) => document.getElementById(id)?.textContent ?? ""),
      note: control.closest(".field")?.querySelector("[role=status]")?.textContent ?? null
    }))

  it("text pasted past a field's maxLength is cut by the browser, and the field says so beside it", async () => {
    await page.goto(`${app.server.baseUrl}/companies`)
    await page.waitForSelector("[data-testid=add-company]")
    await clickUntilShown(page, "[data-testid=add-company]", "[data-testid=company-form]")
    const form = "[data-testid=company-form]"
    const name = `${form} input[name=name]`
    await copyToClipboard(`${"Școală ".repeat(30)}${"x".repeat(40)}`)
    await pasteInto(name)
    const cut = t.lengthLimit.cut(200)
    expect(cut).toBe("Textul lipit a fost scurtat la 200 de caractere, limita câmpului.")
    expect(await lengthState(name)).toEqual({ length: 200, description: [cut], note: cut })
    // Shorter than the limit again: the note goes; typed up to it again, the limit is told.
    await page.keyboard.press("Backspace")
    expect(await lengthState(name)).toEqual({ length: 199, description: [], note: "" })
    await page.keyboard.type("y")
    const reached = t.lengthLimit.reached(200)
    expect(await lengthState(name)).toEqual({ length: 200, description: [reached], note: reached })
    // A paste that fits says nothing (the description's limit is 10,000).
    const description = `${form} textarea[name=description]`
    await pasteInto(description)
    expect(await lengthState(description)).toEqual({ length: 250, description: [], note: "" })
    // Pasted over all of it, 10,001 characters of lines (a text area keeps the line breaks) are cut.
    await copyToClipboard(`${"rând\n".repeat(2_000)}!`)
    await page.focus(description)
    await page.keyboard.press("KeyA", { commands: ["SelectAll"] })
    await pasteInto(description)
    expect(await lengthState(description)).toEqual({
      length: 10_000,
      description: [t.lengthLimit.cut(10_000)],
      note: t.lengthLimit.cut(10_000)
    })
    await page.click(`${form} .actions button[type=button]`)
  })

  it("a watchlist's value range is shown as saved: 999,50 RON is not rounded to 1.000 RON", async () => {
    await openNewWatchlist()
    const form = "[data-testid=watchlist-form]"
    await page.type(`${form} input[name=name]`, "Sub o mie")
    await page.type(`${form} input[name=minValue]`, "999,50")
    await page.type(`${form} input[name=maxValue]`, "1.000,40")
    await page.click("[data-testid=save-watchlist]")
    await page.waitForSelector(form, { hidden: true, timeout: 10_000 })
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll("[data-testid=watchlist]")].some((card) =>
          card.textContent?.includes("Sub o mie")
        ),
      { timeout: 10_000 }
    )
    const [stored] = await app.server.sql(
      (q) => q<{ min_value: string; max_value: string }>`
        SELECT min_value::text, max_value::text FROM watchlists WHERE name = 'Sub o mie' AND deleted_at IS NULL`
    )
    expect(stored).toEqual({ min_value: "999.50", max_value: "1000.40" })
    const card = await page.$$eval("[data-testid=watchlist]", (cards) =>
      cards.map((c) => c.textContent ?? "").find((text) => text.includes("Sub o mie"))
    )
    // Rounded to whole units it read "1.000 RON – 1.000 RON", an empty-looking range.
    expect(card).toContain("999,5")
    expect(card).toContain("1.000,4")
    expect(card).toContain("999,50 RON – 1.000,40 RON")
  })

  it("a save answered by a proxy's 503/500 page (not the API's JSON) says the server failed, not 'invalid data'", async () => {
    // A page of its own: its requests are intercepted.
    const own = await openPage(app.browser)
    try {
      await logInAsDemo(own.page, app.server)
      const form = "[data-testid=company-form]"
      await own.page.click("[data-testid=add-company]")
      await own.page.waitForSelector(form)
      await own.page.type(`${form} input[name=name]`, "Proxy Căzut SRL")
      // What nginx or a load balancer answers while the API process restarts: its own page, not the API's body.
      const answers = [
        {
          status: 503,
          contentType: "text/html",
          body: "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"
        },
        { status: 500, contentType: "text/plain", body: "Internal Server Error" }
      ]
      const shown: Array<Array<string>> = []
      await own.page.setRequestInterception(true)
      let answer = answers[0]!
      own.page.on("request", (request) => {
        if (request.method() === "POST" && new URL(request.url()).pathname === "/api/v1/companies")
          request.respond(answer)
        else request.continue()
      })
      for (const next of answers) {
        answer = next
        const answered = own.page.waitForResponse(
          (response) => response.request().method() === "POST" && response.url().endsWith("/api/v1/companies")
        )
        await own.page.click(`${form} button[type=submit]`)
        await answered
        await own.page.waitForFunction(
          () =>
            !document.querySelector("[data-testid=company-form] button[type=submit]")?.hasAttribute("disabled") &&
            document.querySelector("[data-testid=company-form] [data-testid=error]") !== null
        )
        shown.push(await texts(own.page, `${form} [data-testid=error] span`))
      }
      // Not "Datele trimise nu sunt valide." (the typed client could not decode the body, and that
      // was once read as a refused input): the consultant would hunt for a mistake in a form that has none.
      expect(shown).toEqual([[t.errors.byCode.SERVICE_UNAVAILABLE], [t.errors.server]])
    } finally {
      await own.close()
    }
  })

  it("a company name typed with a trailing space is saved trimmed", async () => {
    await page.goto(`${app.server.baseUrl}/companies`)
    await page.waitForSelector("[data-testid=add-company]")
    await page.click("[data-testid=add-company]")
    await page.waitForSelector("[data-testid=company-form]")
    await page.type("[data-testid=company-form] input[name=name]", "Client Nou SRL ")
    await page.click("[data-testid=company-form] button[type=submit]")
    await page.waitForSelector("[data-testid=company-form]", { hidden: true, timeout: 10_000 }).catch(() => undefined)
    const errors = await texts(page, "[data-testid=company-form] [data-testid=error]")
    const stored = await app.server.sql(
      (q) => q<{ name: string }>`
        SELECT name FROM companies WHERE tenant_id = ${app.server.demo.tenantId} AND name LIKE 'Client Nou%'`
    )
    expect({ errors, stored: stored.map((row) => row.name) }).toEqual({ errors: [], stored: ["Client Nou SRL"] })
  })

  it("a company form refused (by the server or by the client's own check) says why in Romanian, per field", async () => {
    const form = "[data-testid=company-form]"
    const shownError = () => texts(page, `${form} [data-testid=error] span`)
    await page.goto(`${app.server.baseUrl}/companies`)
    await page.waitForSelector("[data-testid=add-company]")
    await page.click("[data-testid=add-company]")
    await page.waitForSelector(form)
    await page.type(`${form} input[name=name]`, "Firmă cu cod greșit")
    await page.type(`${form} input[name=fiscalCode]`, "abc")
    await page.click(`${form} button[type=submit]`)
    await page.waitForSelector(`${form} [data-testid=error]`)
    // The server's 400 gives English reasons (and "Expected null" for the nullable field): not shown.
    expect(await shownError()).toEqual([
      "Datele trimise nu sunt valide. Cod fiscal: un cod fiscal are 2-10 cifre, eventual precedate de RO."
    ])
    // A name of blanks, refused by the client before sending: worded the same way.
    await page.click(`${form} input[name=fiscalCode]`, { clickCount: 3 })
    await page.keyboard.press("Backspace")
    await page.click(`${form} input[name=name]`, { clickCount: 3 })
    await page.type(`${form} input[name=name]`, "   ")
    await page.click(`${form} button[type=submit]`)
    const blank = "Datele trimise nu sunt valide. Denumire: completați câmpul."
    await settle(
      (text) => document.querySelector("[data-testid=company-form] [data-testid=error] span")?.textContent === text,
      blank
    )
    expect(await shownError()).toEqual([blank])
    const stored = await app.server.sql(
      (q) => q<{ n: number }>`
        SELECT count(*)::int AS n FROM companies WHERE tenant_id = ${app.server.demo.tenantId} AND name LIKE 'Firmă cu cod%'`
    )
    expect(stored[0]!.n).toBe(0)
  })

  it("alerts, unread only, page 2: marking its one alert read shows the 20 unread alerts left", async () => {
    // Exactly 21 unread alerts: page 1 holds 20, page 2 one.
    await app.server.sql(
      (q) => q`
        INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, read, created_at,
                            tender_publish_date)
        SELECT w.tenant_id, w.company_id, w.id, t.id, 70, 'GO', false, now() - (t.n || ' minutes')::interval,
               t.publish_date
        FROM (SELECT * FROM watchlists WHERE tenant_id = ${app.server.demo.tenantId} ORDER BY created_at LIMIT 1) w
        CROSS JOIN LATERAL (
          SELECT t.id, t.publish_date, row_number() OVER (ORDER BY t.id) AS n FROM tenders t
          WHERE NOT EXISTS (SELECT 1 FROM alerts a WHERE a.watchlist_id = w.id AND a.tender_id = t.id)
          LIMIT 30) t`
    )
    await app.server.sql((q) => q`UPDATE alerts SET read = true WHERE tenant_id = ${app.server.demo.tenantId}`)
    await app.server.sql(
      (q) => q`
        UPDATE alerts SET read = false WHERE id IN (
          SELECT id FROM alerts WHERE tenant_id = ${app.server.demo.tenantId}
          ORDER BY created_at DESC, score DESC, id DESC LIMIT 21)`
    )
    await page.goto(`${app.server.baseUrl}/alerts`)
    await page.waitForSelector("[data-testid=alert]")
    await page.select(".filters select", "true")
    await page.waitForFunction(() => document.querySelector(".pager span")?.textContent?.includes("2"))
    await page.click(".pager button:last-child")
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=alert]").length === 1)
    await page.click("[data-testid=mark-read]")
    await settle((count) => document.querySelectorAll("[data-testid=alert]").length === count, 20)
    const shown = (await page.$$("[data-testid=alert]")).length
    const empty = await texts(page, "[data-testid=empty]")
    expect({ shown, empty }).toEqual({ shown: 20, empty: [] })
  })
})
