import type { Browser } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { launchBrowser, openPage } from "./support/AppServer.js"

/** The interactive docs in a real Chromium: rendered under their Content-Security-Policy, nothing refused. */
describe("the docs page at /docs", () => {
  let server: TestServer
  let browser: Browser
  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startTestServer(), launchBrowser()])
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it("renders the API reference with its CSP, and the CSP refuses nothing the page uses", async () => {
    const { page, problems, close } = await openPage(browser)
    try {
      // Every refusal, as the page sees it (console messages miss some, e.g. refused style attributes).
      await page.evaluateOnNewDocument(() => {
        const seen: Array<string> = []
        ;(window as unknown as { cspViolations: Array<string> }).cspViolations = seen
        document.addEventListener("securitypolicyviolation", (event) =>
          seen.push(`${event.effectiveDirective} ${event.blockedURI}`)
        )
      })
      const response = await page.goto(`${server.baseUrl}/docs`)
      expect(response?.headers()["content-security-policy"]).toMatch(/script-src 'sha256-/)
      // Scalar renders the operations' summaries; the first of ours shows the page ran.
      await page.waitForFunction(
        () => document.body.innerText.includes("Liveness: the process is up and serving HTTP"),
        {
          timeout: 30_000
        }
      )
      const violations = await page.evaluate(
        () => (window as unknown as { cspViolations: Array<string> }).cspViolations
      )
      // Scalar probes whether it may compile code (`new Function("")` in a try/catch) and does without:
      // the one refusal the policy is meant to make.
      expect(violations.filter((violation) => violation !== "script-src eval")).toEqual([])
      // The sandbox may not reach fonts.scalar.com: a failed font load is the network, not the policy.
      expect(
        problems.filter((problem) => !/ERR_NAME_NOT_RESOLVED|ERR_CONNECTION|ERR_INTERNET|ERR_TIMED_OUT/.test(problem))
      ).toEqual([])
    } finally {
      await close()
    }
  })
})
