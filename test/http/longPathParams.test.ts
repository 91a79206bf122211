import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, seedAccount, signIn } from "../account/fixtures.js"
import { createAccount } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * A path parameter longer than the router's default (find-my-way-ts, 100 characters) reaches its
 * route: it was "no route" (404 NOT_FOUND) instead of the answer the README documents.
 */
describe("path parameters over 100 characters", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("an unknown download token of 101 characters is 410 DOWNLOAD_TOKEN_EXPIRED (README: 'or for an unknown token, 410')", async () => {
    const at100 = await request(`${server.baseUrl}/api/v1/reports/download/${"a".repeat(100)}`)
    expect(at100.status).toBe(410)
    const at101 = await request(`${server.baseUrl}/api/v1/reports/download/${"a".repeat(101)}`)
    expect([at101.status, at101.body?.code]).toEqual([410, "DOWNLOAD_TOKEN_EXPIRED"])
  })

  it("a key API tender id of 8,000 characters is 400 like any id that is no UUID", async () => {
    const account = await createAccount(server, { credits: 10 })
    const long = await request(
      `${server.baseUrl}/api/v1/tenders/${"a".repeat(8_000)}/score?companyId=${account.companyId}`,
      {
        headers: { authorization: `Bearer ${account.key}` }
      }
    )
    expect([long.status, long.body?.code]).toEqual([400, "VALIDATION_ERROR"])
  })

  it("a malformed watchlist / alert id of 101 characters is 400 (README: 'a malformed id (not a UUID) is 400')", async () => {
    const account = await seedAccount(server, "activ")
    const api = client(server, (await signIn(server, account)).accessToken)
    expect((await api.patch(`/api/v1/watchlists/${"a".repeat(100)}`, { name: "x" })).status).toBe(400)
    const wl = await api.patch(`/api/v1/watchlists/${"a".repeat(101)}`, { name: "x" })
    const del = await api.delete(`/api/v1/watchlists/${"a".repeat(101)}`)
    const alert = await api.patch(`/api/v1/alerts/${"a".repeat(101)}`, { read: true })
    expect([wl.status, del.status, alert.status]).toEqual([400, 400, 400])
  })
})
