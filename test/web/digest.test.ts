import { mkdirSync } from "node:fs"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Page } from "puppeteer-core"
import { describe, expect, it } from "vitest"
import { projectFile } from "../../src/infra/config/ProjectFiles.js"
import { appAndBrowser, logInAsDemo, openPage } from "./support/AppServer.js"

/** The daily digest's settings in a real Chromium, against the real API and database (demo data). */
describe("the daily digest in the settings screen", () => {
  const app = appAndBrowser()

  const stored = () =>
    app.server.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ enabled: boolean; hour: number }>`
          SELECT digest_enabled AS enabled, digest_hour AS hour FROM users WHERE email = ${app.server.demo.email}`
      ).pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )
    )

  /** What the card shows: the checkbox, the hour select (value, disabled) and its 24 options. */
  const card = (page: Page) =>
    page.$eval("[data-testid=digest]", (section) => {
      const checkbox = section.querySelector<HTMLInputElement>("input[name=digestEnabled]")!
      const select = section.querySelector<HTMLSelectElement>("select[name=digestHour]")!
      return {
        title: section.querySelector("h2")?.textContent ?? "",
        enabled: checkbox.checked,
        hour: select.value,
        hourDisabled: select.disabled,
        options: [...select.options].map((o) => o.textContent ?? ""),
        notice: section.querySelector("[data-testid=notice]")?.textContent ?? null
      }
    })

  const saveAndWait = async (page: Page, text: string) => {
    await page.click("[data-testid=digest] button[type=submit]")
    await page.waitForFunction(
      (expected) => document.querySelector("[data-testid=digest] [data-testid=notice]")?.textContent === expected,
      {},
      text
    )
  }

  it("turns the digest on at a chosen hour, keeps it over a reload, and turns it off", async () => {
    const { page, problems, close } = await openPage(app.browser)
    await logInAsDemo(page, app.server)
    await page.click("a[href='/settings']")
    await page.waitForSelector("[data-testid=digest] select[name=digestHour]")

    const initial = await card(page)
    expect(initial).toMatchObject({ title: "Rezumat zilnic pe e-mail", enabled: false, hour: "8", hourDisabled: true })
    expect(initial.options).toHaveLength(24)
    expect([initial.options[0], initial.options[8], initial.options[23]]).toEqual(["00:00", "08:00", "23:00"])

    await page.click("input[name=digestEnabled]")
    expect((await card(page)).hourDisabled).toBe(false)
    await page.select("select[name=digestHour]", "6")
    await saveAndWait(page, "Rezumatul zilnic este activ: îl primiți în fiecare zi la 06:00.")
    expect(await stored()).toEqual({ enabled: true, hour: 6 })

    mkdirSync(projectFile("docs"), { recursive: true })
    const section = await page.$("[data-testid=digest]")
    await section!.screenshot({ path: projectFile("docs/settings-digest.png") })

    await page.reload()
    await page.waitForSelector("[data-testid=digest] select[name=digestHour]")
    expect(await card(page)).toMatchObject({ enabled: true, hour: "6", hourDisabled: false, notice: null })

    await page.click("input[name=digestEnabled]")
    await saveAndWait(page, "Rezumatul zilnic este oprit.")
    // Off keeps the chosen hour for the next time it is turned on.
    expect(await stored()).toEqual({ enabled: false, hour: 6 })
    expect(await card(page)).toMatchObject({ enabled: false, hour: "6", hourDisabled: true })
    expect(problems).toEqual([])
    await close()
  })
})
