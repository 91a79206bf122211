import type { Page } from "puppeteer-core"
import { describe, expect, it } from "vitest"
import { appAndBrowser, logInAsDemo, openPage } from "./support/AppServer.js"

/**
 * Feedback in a real Chromium against the real API and worker over the demo data: a tender marked
 * relevant on its detail screen is stored, the worker's rescore names the mark in the cpv reason,
 * and undo removes it.
 */

describe("feedback on a tender in the browser app", () => {
  const app = appAndBrowser()

  const cpvReason = (page: Page) =>
    page.$eval("[data-factor=cpv] [data-testid=factor-reason]", (node) => node.textContent ?? "")

  it("marks a tender relevant, shows the mark in the cpv reason after the rescore, and undoes it", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    const companyId = app.server.demo.companyIds[0]!
    const [top] = await app.server.sql(
      (q) => q<{ tender_id: string; main_cpv: string }>`
        SELECT s.tender_id, t.main_cpv FROM tender_scores s JOIN tenders t ON t.id = s.tender_id
        WHERE s.company_id = ${companyId} AND (t.deadline IS NULL OR t.deadline > now())
        ORDER BY s.overall_score DESC, s.tender_id LIMIT 1`
    )
    const detailUrl = `${app.server.baseUrl}/companies/${companyId}/tenders/${top!.tender_id}`
    await page.goto(detailUrl)
    await page.waitForSelector("[data-testid=feedback][data-mark=none]")
    await page.click("[data-testid=mark-relevant]")
    await page.waitForSelector("[data-testid=feedback][data-mark=true]")
    expect(await page.$eval("[data-testid=feedback-note]", (node) => node.textContent)).toContain("relevantă")
    const stored = await app.server.sql(
      (q) => q<{ relevant: boolean }>`
        SELECT relevant FROM tender_feedback WHERE company_id = ${companyId} AND tender_id = ${top!.tender_id}`
    )
    expect(stored).toEqual([{ relevant: true }])

    // The worker runs the queued rescore; the reason then names the mark.
    const cpvClass = top!.main_cpv.slice(0, 4)
    const expected = `ați marcat o licitație din clasa CPV ${cpvClass} ca relevantă`
    for (let attempt = 0; attempt < 60 && !(await cpvReason(page)).includes(expected); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      await page.goto(detailUrl)
      await page.waitForSelector("[data-testid=feedback]")
      await page.waitForSelector("[data-factor=cpv] [data-testid=factor-reason]")
    }
    expect(await cpvReason(page)).toContain(expected)

    await page.waitForSelector("[data-testid=unmark]")
    await page.click("[data-testid=unmark]")
    await page.waitForSelector("[data-testid=feedback][data-mark=none]")
    const left = await app.server.sql(
      (q) => q<{ n: number }>`SELECT count(*)::int AS n FROM tender_feedback WHERE company_id = ${companyId}`
    )
    expect(left[0]!.n).toBe(0)
    expect(problems).toEqual([])
    await close()

    // The buttons fit a 360 px phone screen.
    const phone = await openPage(app.browser, { width: 360, height: 740 })
    await logInAsDemo(phone.page, app.server)
    await phone.page.goto(detailUrl)
    await phone.page.waitForSelector("[data-testid=feedback][data-mark=none]")
    expect(
      await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    ).toBeLessThanOrEqual(0)
    expect(phone.problems).toEqual([])
    await phone.close()
  })
})
