import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addScoredTenders, api, createAccount, ledgerState } from "./fixtures.js"

/**
 * HEAD is GET without the body; on the routes whose GET charges credits per item delivered it would
 * pay for nothing, so it is refused there before any work (src/http/HeadRequests.ts).
 */
describe("HEAD on the paid routes", () => {
  let server: TestServer
  let account: Account
  let tenderId: string

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 10_000, exportPerHour: 10_000 } })
    account = await createAccount(server, { credits: 100 })
    ;[tenderId] = await addScoredTenders(server, account, [
      { score: 80, publishDate: "2026-04-10T08:00:00Z" },
      { score: 70, publishDate: "2026-04-11T08:00:00Z" }
    ])
  })
  afterAll(() => server.close())

  const head = (url: string) => fetch(url, { method: "HEAD", headers: { authorization: `Bearer ${account.key}` } })

  it("list, score and export (JSON and CSV): 405 METHOD_NOT_ALLOWED, Allow: GET, nothing charged", async () => {
    const urls = [
      api(server, "/api/v1/tenders", { companyId: account.companyId }),
      api(server, `/api/v1/tenders/${tenderId}/score`, { companyId: account.companyId }),
      api(server, "/api/v1/export/tenders", { companyId: account.companyId, from: "2026-04-01", to: "2026-04-30" }),
      api(server, "/api/v1/export/tenders", {
        companyId: account.companyId,
        from: "2026-04-01",
        to: "2026-04-30",
        format: "csv"
      })
    ]
    const before = await ledgerState(server, account.tenantId)
    // At once, as a client checking several resources would send them.
    const answers = await Promise.all(urls.map(head))
    for (const answer of answers) {
      expect(answer.status).toBe(405)
      expect(answer.headers.get("allow")).toBe("GET")
      // The credit headers say what the request cost: nothing.
      expect(answer.headers.get("x-api-credits-cost")).toBe("0")
      expect(answer.headers.get("x-api-credits-remaining")).toBe("100")
    }
    expect(await ledgerState(server, account.tenantId)).toEqual(before)

    // The same URLs by GET are served and charged as before.
    const list = await fetch(urls[0]!, { headers: { authorization: `Bearer ${account.key}` } })
    expect(list.status).toBe(200)
    expect(list.headers.get("x-api-credits-cost")).toBe("2")
    expect((await ledgerState(server, account.tenantId)).charged).toBe(before.charged + 2)
  })

  it("HEAD on a route whose GET costs nothing is still served (health, webhooks list)", async () => {
    expect((await fetch(`${server.baseUrl}/health`, { method: "HEAD" })).status).toBe(200)
    const webhooks = await head(`${server.baseUrl}/api/v1/webhooks`)
    expect(webhooks.status).toBe(200)
  })
})
