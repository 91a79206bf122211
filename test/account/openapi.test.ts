import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

describe("the account API in the OpenAPI document", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("lists every account endpoint, with the access-token scheme and its 401 on the protected ones", async () => {
    const { body: spec } = await request(`${server.baseUrl}/api/v1/openapi.json`)
    // The scheme of each protected operation: the access token, or (the companies' reads) either credential.
    const operations: Array<[string, string, boolean | "accessTokenOrApiKey"]> = [
      ["/api/v1/auth/login", "post", false],
      ["/api/v1/auth/refresh", "post", false],
      ["/api/v1/auth/logout", "post", true],
      ["/api/v1/watchlists", "get", true],
      ["/api/v1/watchlists", "post", true],
      ["/api/v1/watchlists/{id}", "patch", true],
      ["/api/v1/watchlists/{id}", "delete", true],
      ["/api/v1/companies", "get", "accessTokenOrApiKey"],
      ["/api/v1/companies/{id}", "get", "accessTokenOrApiKey"],
      ["/api/v1/companies/{id}", "patch", true],
      ["/api/v1/companies", "post", true],
      ["/api/v1/companies/{id}", "delete", true],
      ["/api/v1/app/companies/{companyId}/tenders", "get", true],
      ["/api/v1/app/companies/{companyId}/tenders/{tenderId}", "get", true],
      ["/api/v1/cpv", "get", true],
      ["/api/v1/settings/credits", "get", true],
      ["/api/v1/settings/webhooks", "post", true],
      ["/api/v1/settings/webhooks/{id}", "delete", true],
      ["/api/v1/alerts", "get", true],
      ["/api/v1/alerts/mark-all-read", "patch", true],
      ["/api/v1/alerts/{id}", "patch", true],
      ["/api/v1/settings/api-keys", "post", true],
      ["/api/v1/settings/api-keys", "get", true],
      ["/api/v1/settings/api-keys/{id}", "delete", true],
      ["/api/v1/settings/webhooks", "get", true],
      ["/api/v1/settings/webhooks/{id}/deliveries", "get", true],
      ["/api/v1/settings/webhooks/deliveries/{deliveryId}/retry", "post", true]
    ]
    for (const [path, method, protectedByToken] of operations) {
      const operation = spec.paths[path]?.[method]
      expect(operation, `${method} ${path}`).toBeDefined()
      if (protectedByToken) {
        const scheme = protectedByToken === true ? "accessToken" : protectedByToken
        expect(operation.security, `${method} ${path}`).toEqual([{ [scheme]: [] }])
        expect(operation.responses["401"], `${method} ${path}`).toBeDefined()
      }
    }
    expect(spec.paths["/api/v1/watchlists"].post.responses["201"]).toBeDefined()
    expect(spec.paths["/api/v1/watchlists"].post.responses["403"]).toBeDefined()
    expect(spec.paths["/api/v1/auth/login"].post.responses["429"]).toBeDefined()
    expect(spec.paths["/api/v1/settings/api-keys"].post.responses["422"]).toBeDefined()
    expect(spec.paths["/api/v1/settings/webhooks/deliveries/{deliveryId}/retry"].post.responses["202"]).toBeDefined()
  })

  it("lists the key API's webhook operations behind the API key, with credit headers", async () => {
    const { body: spec } = await request(`${server.baseUrl}/api/v1/openapi.json`)
    const operations: Array<[string, string, string]> = [
      ["/api/v1/webhooks", "post", "201"],
      ["/api/v1/webhooks", "get", "200"],
      ["/api/v1/webhooks/{id}", "delete", "200"]
    ]
    for (const [path, method, status] of operations) {
      const operation = spec.paths[path][method]
      expect(operation.security, `${method} ${path}`).toEqual([{ apiKey: [] }])
      expect(operation.summary, `${method} ${path}`).toEqual(expect.any(String))
      expect(Object.keys(operation.responses[status].headers).sort()).toEqual([
        "X-API-Credits-Cost",
        "X-API-Credits-Remaining"
      ])
    }
    expect(spec.paths["/api/v1/webhooks"].post.responses["422"]).toBeDefined()
  })
})
