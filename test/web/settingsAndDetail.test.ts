import { Effect } from "effect"
import type { HTTPRequest, Page } from "puppeteer-core"
import { describe, expect, it } from "vitest"
import type { Plan } from "../../src/domain/Plan.js"
import { TenantsRepo } from "../../src/infra/accounts/TenantsRepo.js"
import { UsersRepo } from "../../src/infra/accounts/UsersRepo.js"
import { t } from "../../src/web/strings.js"
import { appAndBrowser, clickUntilShown, logInAsDemo, openPage } from "./support/AppServer.js"

/**
 * The Settings screen's API keys, credits, reports and webhook deliveries, and the tender detail (its way
 * back, also after a reload; a long link on a phone), in a real Chromium against the real API and
 * worker over the demo data.
 */
describe("settings and the tender detail in the browser app", () => {
  const app = appAndBrowser()

  const openSettings = async (page: Page) => {
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=credits-remaining]")
    await page.waitForFunction(() => {
      const button = document.querySelector<HTMLButtonElement>("[data-testid=reports] button[type=submit]")
      return button !== null && !button.disabled
    })
  }
  const creditsText = (page: Page) => page.$eval("[data-testid=credits-remaining]", (n) => n.textContent ?? "")

  it("the credits balance follows a report request (10 credits held) on the same screen", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    await openSettings(page)
    const before = await creditsText(page)
    await page.click("[data-testid=reports] button[type=submit]")
    // The report is queued (its 10 credits held at once) and listed.
    await page.waitForSelector("[data-testid=report]")
    // Give the screen a chance to show the new balance (no fixed sleep: wait for a change, at most 6 s).
    await page
      .waitForFunction(
        (old) => document.querySelector("[data-testid=credits-remaining]")?.textContent !== old,
        { timeout: 6_000 },
        before
      )
      .catch(() => undefined)
    const shown = await creditsText(page)
    await page.reload()
    await page.waitForSelector("[data-testid=credits-remaining]")
    const truth = await creditsText(page)
    expect(truth).not.toBe(before) // the report did take credits
    expect(shown).toBe(truth)
    await close()
  })

  it("a report's period is written in Romanian date order, like every other date of the app", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    await openSettings(page)
    if ((await page.$("[data-testid=report]")) === null) {
      await page.click("[data-testid=reports] button[type=submit]")
      await page.waitForSelector("[data-testid=report]")
    }
    const text = await page.$eval("[data-testid=report]", (n) => n.textContent ?? "")
    expect(text).toMatch(/\d{2}\.\d{2}\.\d{4} – \d{2}\.\d{2}\.\d{4}/)
    await close()
  })

  it("keeps polling a report in progress after one failed poll (status polled every 5 s)", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const companyId = app.server.demo.companyIds[0]!
    const fakePending = {
      data: [
        {
          id: "6f1d2a8e-1c8b-4c55-9f0e-7a2b3c4d5e6f",
          companyId,
          companyName: "Dotări Școlare Digitale SRL",
          status: "generating",
          dateFrom: "2026-01-01",
          dateTo: "2026-01-31",
          minScore: 40,
          watchlistId: null,
          createdAt: new Date().toISOString(),
          completedAt: null
        }
      ]
    }
    let listCalls = 0
    await page.setRequestInterception(true)
    page.on("request", (request: HTTPRequest) => {
      const url = new URL(request.url())
      if (request.method() === "GET" && url.pathname === "/api/v1/app/reports") {
        listCalls++
        // First load: a report in progress; the first poll: a passing 503; later polls: the app.server.
        if (listCalls === 1)
          return request.respond({ status: 200, contentType: "application/json", body: JSON.stringify(fakePending) })
        if (listCalls === 2) return request.respond({ status: 503, contentType: "text/plain", body: "busy" })
      }
      return request.continue()
    })
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=report][data-status=generating]")
    await page.waitForFunction(() => document.querySelector("[data-testid=reports] [data-testid=error]") !== null, {
      timeout: 10_000
    })
    expect(listCalls).toBe(2)
    // The report is still shown in progress: the next poll is due within 5 s.
    const next = await page
      .waitForRequest(
        (request) => request.method() === "GET" && new URL(request.url()).pathname === "/api/v1/app/reports",
        { timeout: 12_000 }
      )
      .then(
        () => true,
        () => false
      )
    expect(next).toBe(true)
    await close()
  })

  it("a double click on a failed delivery's retry retries it once and shows no error", async () => {
    const companyId = app.server.demo.companyIds[0]!
    const tenantId = app.server.demo.tenantId
    const tenderId = app.server.demo.tenderIds[0]!
    // One statement: the webhook, its event and a failed delivery commit together, once the jobs the
    // earlier tests queued (reports: credits, PDFs) are done, so that none of them contends with it.
    // The demo's own scoring may raise this very event; it then either committed first (the event is
    // reused, and it saw no webhook to deliver to) or waits for this statement and adds nothing.
    await app.server.whenJobsIdle()
    await app.server.sql(
      (q) => q`
        WITH hook AS (
          INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events)
          VALUES (${tenantId}, 'https://hooks.invalid/tss', '\\x00'::bytea, ARRAY['tender.matched'])
          RETURNING id
        ), event AS (
          INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date)
          VALUES (${tenantId}, ${companyId}, ${tenderId}, '{}', (SELECT publish_date FROM tenders WHERE id = ${tenderId}))
          ON CONFLICT (company_id, tender_id, tender_publish_date) DO UPDATE SET payload = match_events.payload
          RETURNING id
        )
        INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, attempt_count, last_status_code)
        SELECT hook.id, event.id, ${tenantId}, '{"event":"tender.matched"}', 'failed', 4, 500 FROM hook, event`
    )
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const retries: Array<number> = []
    page.on("response", (response) => {
      if (/\/deliveries\/[^/]+\/retry$/.test(new URL(response.url()).pathname)) retries.push(response.status())
    })
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=webhook] tr[data-status=failed] button")
    // The deliveries' columns are named for screen readers (the headers are not drawn).
    expect(
      await page.$$eval("[data-testid=webhook] table.deliveries thead th[scope=col]", (cells) =>
        cells.map((cell) => cell.textContent)
      )
    ).toEqual(Object.values(t.settings.deliveryColumns))
    // A double click, as users do on a small "Retrimite" link.
    await page.$eval("[data-testid=webhook] tr[data-status=failed] button", (button) => {
      ;(button as HTMLButtonElement).click()
      ;(button as HTMLButtonElement).click()
    })
    await page.waitForFunction(() => document.querySelector("[data-testid=webhooks] [data-testid=notice]") !== null)
    await page
      .waitForFunction(() => document.querySelector("[data-testid=webhooks] [data-testid=error]") !== null, {
        timeout: 3_000
      })
      .catch(() => undefined)
    const error = await page.$eval(
      "[data-testid=webhooks]",
      (card) => card.querySelector("[data-testid=error]")?.textContent ?? null
    )
    expect({ retries, error }).toEqual({ retries: [202], error: null })
    await close()
  })

  it("a webhook that failed 30 times shows every delivery: 'Mai multe livrări' loads the older ones, 10 at a time", async () => {
    const companyId = app.server.demo.companyIds[0]!
    const tenantId = app.server.demo.tenantId
    const url = "https://thirty.invalid/tss"
    // One statement: the webhook, 30 events and their failed deliveries, a minute apart (newest first).
    await app.server.sql(
      (q) => q`
        WITH hook AS (
          INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events)
          VALUES (${tenantId}, ${url}, '\\x00'::bytea, ARRAY['tender.matched'])
          RETURNING id
        ), picked AS (
          SELECT id, publish_date, row_number() OVER (ORDER BY id) AS n FROM tenders ORDER BY id LIMIT 30
        ), event AS (
          INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date)
          SELECT ${tenantId}, ${companyId}, id, '{}', publish_date FROM picked
          ON CONFLICT (company_id, tender_id, tender_publish_date) DO UPDATE SET payload = match_events.payload
          RETURNING id, tender_id
        )
        INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, attempt_count, last_status_code,
                                        created_at)
        SELECT hook.id, event.id, ${tenantId}, '{"event":"tender.matched"}', 'failed', 4, 500,
               now() - picked.n * interval '1 minute'
        FROM hook, event JOIN picked ON picked.id = event.tender_id`
    )
    const ids = (
      await app.server.sql(
        (q) => q<{ id: string }>`
          SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE w.url = ${url} ORDER BY d.created_at DESC, d.id DESC`
      )
    ).map((row) => row.id)
    expect(ids).toHaveLength(30)
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    await page.click("a[href='/settings']")
    const card = (await page.waitForSelector(`xpath///li[@data-testid='webhook'][.//code[text()='${url}']]`))!
    const rows = () => card.$$eval("tr[data-status]", (trs) => trs.length)
    expect(await rows()).toBe(10)
    for (const shown of [20, 30]) {
      await card.$eval("[data-testid=more-deliveries]", (button) => (button as HTMLButtonElement).click())
      await page.waitForFunction(
        (c, n) => (c as Element).querySelectorAll("tr[data-status]").length === n,
        {},
        card,
        shown
      )
    }
    // All of them, the oldest included, and no button once there are no more.
    expect(await card.$("[data-testid=more-deliveries]")).toBeNull()
    const timestamps = await card.$$eval("tr[data-status] td:first-child", (cells) => cells.map((c) => c.textContent))
    expect(timestamps).toHaveLength(30)
    expect(new Set(timestamps).size).toBe(30)
    // The oldest can be retried from there, and the rows loaded stay.
    await card.$eval("tr:last-child button", (button) => (button as HTMLButtonElement).click())
    await page.waitForFunction(
      (c) => (c as Element).querySelector("tr:last-child")?.getAttribute("data-status") !== "failed",
      {},
      card
    )
    expect(await rows()).toBe(30)
    const [oldest] = await app.server.sql(
      (q) => q<{ attempts_allowed: number }>`SELECT attempts_allowed FROM webhook_deliveries WHERE id = ${ids[29]!}`
    )
    expect(oldest!.attempts_allowed).toBe(5)
    expect(problems).toEqual([])
    await close()
  })

  it("revoking the key the new-key banner shows removes the banner; revoking another key leaves it", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    page.on("dialog", (dialog) => dialog.accept())
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=key]")
    const createKey = async (name: string) => {
      await page.type("input[name=keyName]", name)
      await page.click("[data-testid=create-key]")
      await page.waitForFunction(
        (n) => [...document.querySelectorAll("[data-testid=key]")].some((li) => li.textContent?.includes(n)),
        {},
        name
      )
      return page.$eval("[data-testid=new-key-value]", (el) => el.textContent ?? "")
    }
    const revokeKey = async (name: string) => {
      await page.$$eval(
        "[data-testid=key]",
        (rows, n) =>
          rows
            .find((li) => li.textContent?.includes(n))
            ?.querySelector<HTMLButtonElement>("[data-testid=revoke-key]")
            ?.click(),
        name
      )
      await page.waitForFunction(
        (n) =>
          [...document.querySelectorAll("[data-testid=key]")].some(
            (li) => li.textContent?.includes(n) && li.getAttribute("data-active") === "false"
          ),
        {},
        name
      )
    }
    const bannerKey = () =>
      page.$eval(
        "[data-testid=api-keys]",
        (card) => card.querySelector("[data-testid=new-key-value]")?.textContent ?? null
      )
    await createKey("cheie veche")
    const shown = await createKey("cheie nouă")
    expect(shown).toMatch(/^svc_/)
    await revokeKey("cheie veche")
    expect(await bannerKey()).toBe(shown)
    await revokeKey("cheie nouă")
    expect(await bannerKey()).toBeNull()
    await close()
  })

  it("the tender detail's back link returns to the list with its filters", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const companyId = app.server.demo.companyIds[0]!
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/tenders?minScore=20&sort=value`)
    await page.waitForSelector("[data-testid=tender]")
    expect(await page.$eval("[data-testid=sort]", (s) => (s as HTMLSelectElement).value)).toBe("value")
    await page.click("[data-testid=tender-link]")
    await page.waitForSelector("[data-testid=tender-detail]")
    await page.click("[data-testid=tender-detail] > a")
    await page.waitForSelector("[data-testid=tender]")
    expect(new URL(page.url()).search).toBe("?minScore=20&sort=value")
    expect(await page.$eval("[data-testid=sort]", (s) => (s as HTMLSelectElement).value)).toBe("value")
    await close()
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

  it("the tender detail's back link keeps the list's sort and filters after the detail is reloaded", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const companyId = await scoredCompanyId()
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/tenders`)
    await page.waitForSelector("[data-testid=tender]")
    await page.select("[data-testid=status]", "all")
    await page.select("[data-testid=sort]", "value")
    await page.waitForFunction(() => window.location.search.includes("sort=value"))
    // The list reloads for the new sort: wait until it has shown its first page again.
    await page.waitForFunction(
      () => document.querySelector("[aria-busy=true]") === null && document.querySelector("[data-testid=tender-link]")
    )
    await clickUntilShown(page, "[data-testid=tender-link]", "[data-testid=tender-detail]")
    // F5 on the detail (or the session restored after the laptop slept): the way back is in its address.
    await page.reload()
    await page.waitForSelector("[data-testid=tender-detail]")
    await page.click("[data-testid=back]")
    await page.waitForSelector("[data-testid=tender-filters]")
    const search = await page.evaluate(() => window.location.search)
    expect(search).toContain("sort=value")
    expect(search).toContain("status=all")
    expect(await page.$eval("[data-testid=sort]", (s) => (s as HTMLSelectElement).value)).toBe("value")
    // Another company's list in `from` (a crafted link) is no way back from this company's tender.
    const [other] = await app.server.sql(
      (q) => q<{ id: string }>`
        SELECT id FROM companies WHERE tenant_id = ${app.server.demo.tenantId} AND id <> ${companyId} LIMIT 1`
    )
    const [tender] = await app.server.sql(
      (q) => q<{ id: string }>`SELECT tender_id AS id FROM tender_scores WHERE company_id = ${companyId} LIMIT 1`
    )
    await page.goto(
      `${app.server.baseUrl}/companies/${companyId}/tenders/${tender!.id}?${new URLSearchParams({ from: `/companies/${other!.id}/tenders?sort=value` })}`
    )
    await page.waitForSelector("[data-testid=tender-detail]")
    expect(await page.$eval("[data-testid=back]", (link) => link.getAttribute("href"))).toBe(
      `/companies/${companyId}/tenders`
    )
    await close()
  })

  it("a PDF report's minimum score left empty is not sent as 0 (a report of every tender, 10 credits)", async () => {
    const { page, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    await page.goto(`${app.server.baseUrl}/settings`)
    await page.waitForSelector("[data-testid=reports] form select option")
    const before = await app.server.sql(
      (q) => q<{ n: number }>`SELECT count(*)::int AS n FROM report_jobs WHERE tenant_id = ${app.server.demo.tenantId}`
    )
    const minScore = "[data-testid=reports] input[type=number]"
    await page.click(minScore, { clickCount: 3 })
    await page.keyboard.press("Backspace")
    await page.click("[data-testid=reports] button[type=submit]")
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const requested = await app.server.sql(
      (q) => q<{ min_score: number }>`
        SELECT (params->>'min_score')::int AS min_score FROM report_jobs WHERE tenant_id = ${app.server.demo.tenantId}
        ORDER BY created_at`
    )
    const invalid = await page.$eval(minScore, (input) => !(input as HTMLInputElement).validity.valid)
    // Required, as the watchlist's alert threshold is (test/web/editForms.test.ts).
    expect({ invalid, requested: requested.slice(before[0]!.n) }).toEqual({ invalid: true, requested: [] })
    await close()
  })

  // Last: it rewrites a tender's description.
  /** An account of its own on `plan`, with one company, inactive; logged in on the Settings screen. */
  const settingsOf = async (email: string, plan: Plan) => {
    const password = "parola-setari-2026"
    await app.server.run(
      Effect.gen(function* () {
        const tenant = yield* (yield* TenantsRepo).create({ name: email, plan })
        yield* (yield* UsersRepo).create({ tenantId: tenant.id, email, password }).pipe(Effect.orDie)
      })
    )
    await app.server.sql(
      (q) => q`
        INSERT INTO companies (tenant_id, name, active)
        SELECT t.id, 'Inactivă SRL', false FROM tenants t JOIN users u ON u.tenant_id = t.id WHERE u.email = ${email}`
    )
    const opened = await openPage(app.browser)
    const { page } = opened
    await page.goto(`${app.server.baseUrl}/settings`)
    await page.waitForSelector("[data-testid=login-form]")
    await page.type("input[name=email]", email)
    await page.type("input[name=password]", password)
    await page.click("button[type=submit]")
    await page.waitForSelector("[data-testid=reports]")
    await page.waitForFunction(() => document.querySelector("[aria-busy=true]") === null)
    return opened
  }

  it("the reports of an account without an active company: an empty state that leads to the Companies screen", async () => {
    const { page, problems, close } = await settingsOf("fara.companii@example.ro", "consultant")
    const card = await page.$eval("[data-testid=reports]", (reports) => ({
      forms: reports.querySelectorAll("form").length,
      empty: [...reports.querySelectorAll("[data-testid=empty]")].map((empty) => empty.textContent),
      link: reports.querySelector("[data-testid=empty] a")?.getAttribute("href") ?? null
    }))
    expect(card).toEqual({
      forms: 0,
      empty: [`${t.reports.noCompany} ${t.reports.toCompanies}`],
      link: "/companies"
    })
    await page.click("[data-testid=reports] [data-testid=empty] a")
    await page.waitForFunction(
      (title) => document.querySelector("main h1")?.textContent === title,
      {},
      t.companies.title
    )
    expect(problems).toEqual([])
    await close()
  })

  it("a plan without reports (below Consultant) says so and offers no retry that could only be refused again", async () => {
    const { page, close } = await settingsOf("plan.activ@example.ro", "activ")
    await page.waitForSelector("[data-testid=reports] [data-testid=error]")
    const refusal = await page.$eval("[data-testid=reports] [data-testid=error]", (box) => ({
      text: box.querySelector("span")?.textContent ?? null,
      buttons: [...box.querySelectorAll("button")].map((button) => button.textContent)
    }))
    expect(refusal).toEqual({ text: t.errors.byCode.PLAN_UPGRADE_REQUIRED, buttons: [] })
    // The refusal is the card: no form to fill in vain, no "add a company" to get a report.
    expect(await page.$$("[data-testid=reports] form, [data-testid=reports] .empty, [data-testid=reports] a")).toEqual(
      []
    )
    // Nor on the other cards the plan refuses.
    const retries = await page.$$eval("main [data-testid=error] button", (buttons) => buttons.length)
    expect(retries).toBe(0)
    await close()
  })

  it("a tender whose description carries a notice link fits a 360 px phone (no sideways scrolling)", async () => {
    const companyId = await scoredCompanyId()
    const [tender] = await app.server.sql(
      (q) => q<{ id: string }>`
        UPDATE tenders SET description = ${"Documentația de atribuire se descarcă de la https://ted.europa.eu/ro/notice/detail/712345/2026?origin=SEARCH&lang=ro&tabId=1 începând cu data publicării."}
        WHERE id = (SELECT tender_id FROM tender_scores WHERE company_id = ${companyId} ORDER BY tender_id LIMIT 1)
        RETURNING id`
    )
    const { page, close } = await openPage(app.browser, { width: 360, height: 740 })
    await logInAsDemo(page, app.server)
    await page.goto(`${app.server.baseUrl}/companies/${companyId}/tenders/${tender!.id}`)
    await page.waitForSelector("[data-testid=factor]")
    await page.waitForFunction(() => document.querySelector(".prose")?.textContent?.includes("ted.europa.eu"))
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await close()
  })
})
