import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type SeededAccount, seedAccount, signIn } from "../account/fixtures.js"
import { completeNextReportJob } from "../reports/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * The router (find-my-way: any letter case, percent-encoded letters decoded, a trailing slash
 * ignored) serves `/API/V1/SETTINGS/API-KEYS` and `/api/v1/settings/api%2Dkeys` as
 * `/api/v1/settings/api-keys`. `Cache-Control: no-store` follows the route the router matched, so
 * the answers that carry the full API key or a report's download URL are never cacheable, however
 * the path is spelt (once it was decided on the raw path, and those spellings went out without it).
 */
describe("Cache-Control: no-store on every spelling of a path the router serves", () => {
  let server: TestServer
  let account: SeededAccount
  let token: string
  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "consultant")
    token = (await signIn(server, account)).accessToken
  })
  afterAll(() => server.close())

  it.each(["/API/V1/SETTINGS/API-KEYS", "/api/v1/settings/api%2Dkeys", "/Api/V1/Settings/Api-Keys/"])(
    "POST %s creates a key, and its answer (the full key) is no-store",
    async (path) => {
      const created = await request(`${server.baseUrl}${path}`, { method: "POST", token, body: { name: "spelt" } })
      expect(created.status).toBe(201)
      expect(created.body.data.key).toMatch(/^svc_[0-9a-f]{64}$/)
      try {
        expect(created.headers.get("cache-control")).toBe("no-store")
      } finally {
        await request(`${server.baseUrl}/api/v1/settings/api-keys/${created.body.data.id}`, { method: "DELETE", token })
      }
    }
  )

  it("POST /API/V1/APP/REPORTS/:id/DOWNLOAD-URL answers a download URL (a credential) with no-store, and so does its download", async () => {
    const created = await client(server, token).post(`/api/v1/app/companies/${account.companyId}/reports`, {
      date_from: "2026-10-01",
      date_to: "2026-10-31"
    })
    expect(created.status).toBe(202)
    expect(await completeNextReportJob(server)).toBe("completed")
    const url = await request(`${server.baseUrl}/API/V1/APP/REPORTS/${created.body.data.id}/DOWNLOAD-URL`, {
      method: "POST",
      token
    })
    expect(url.status).toBe(200)
    expect(url.body.data.downloadUrl).toMatch(/\/api\/v1\/reports\/download\/[0-9a-f]{64}$/)
    expect(url.headers.get("cache-control")).toBe("no-store")
    const tokenInUrl = url.body.data.downloadUrl.split("/").pop()
    const pdf = await request(`${server.baseUrl}/API/V1/REPORTS/DOWNLOAD/${tokenInUrl}`)
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get("cache-control")).toBe("no-store")
  })

  it("a HEAD of an authenticated GET carries the GET's no-store (the router answers it with the GET's route)", async () => {
    const head = await request(`${server.baseUrl}/api/v1/settings/API-KEYS`, { method: "HEAD", token })
    expect(head.status).toBe(200)
    expect(head.headers.get("cache-control")).toBe("no-store")
  })

  it("a route that needs no credentials stays cacheable in any spelling", async () => {
    for (const path of ["/HEALTH", "/api/v1/OPENAPI.JSON"]) {
      const response = await request(`${server.baseUrl}${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("cache-control"), path).toBeNull()
    }
  })
})
