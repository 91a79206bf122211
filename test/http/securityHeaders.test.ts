import { createHash, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { UNMATCHED } from "../../src/http/RouteTemplates.js"
import { HSTS, isNoStoreRoute, NO_STORE_ROUTES } from "../../src/http/SecurityHeaders.js"
import { client, PASSWORD, seedAccount, signIn } from "../account/fixtures.js"
import { createAccount } from "../api/fixtures.js"
import { request, type TestResponse } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const expectBaseline = (response: TestResponse, what: string) => {
  expect(response.headers.get("x-content-type-options"), what).toBe("nosniff")
  expect(response.headers.get("referrer-policy"), what).toBe("no-referrer")
}

const WEBHOOK = { url: "https://hooks.example.com/tss", secret: "s".repeat(32), events: ["tender.matched"] }

describe("security headers (CORS off, the default)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("nosniff and no-referrer on every route of the OpenAPI document, answered without credentials", async () => {
    const spec = (await request(`${server.baseUrl}/api/v1/openapi.json`)).body
    let checked = 0
    for (const [path, operations] of Object.entries<Record<string, unknown>>(spec.paths)) {
      for (const method of Object.keys(operations)) {
        const url = `${server.baseUrl}${path.replace(/\{[^}]+\}/g, randomUUID())}`
        const response = await request(url, {
          method: method.toUpperCase(),
          ...(["post", "patch"].includes(method) ? { body: {} } : {})
        })
        expect(response.status, `${method} ${path}`).toBeLessThan(500)
        expectBaseline(response, `${method} ${path}`)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(20)
  })

  it("nosniff and no-referrer on successes, the docs, an unknown route, an unreadable body and a CSV export", async () => {
    const account = await createAccount(server, { credits: 100 })
    const responses: Array<[string, TestResponse]> = [
      ["health", await request(`${server.baseUrl}/health`)],
      ["docs", await request(`${server.baseUrl}/docs`)],
      ["openapi", await request(`${server.baseUrl}/api/v1/openapi.json`)],
      ["unknown route", await request(`${server.baseUrl}/no/such/route`)],
      ["unreadable body", await request(`${server.baseUrl}/api/v1/auth/login`, { method: "POST", body: "{oops" })],
      [
        "csv export",
        await request(
          `${server.baseUrl}/api/v1/export/tenders?companyId=${account.companyId}&from=2026-01-01&to=2026-01-31&format=csv`,
          {
            token: account.key
          }
        )
      ]
    ]
    expect(responses.map(([, r]) => r.status)).toEqual([200, 200, 200, 404, 400, 200])
    for (const [what, response] of responses) expectBaseline(response, what)
  })

  it("Cache-Control: no-store, once, on login, refresh, API-key creation and webhook creation", async () => {
    const account = await seedAccount(server, "consultant")
    const login = await client(server).post("/api/v1/auth/login", { email: account.email, password: PASSWORD })
    expect(login.status).toBe(200)
    const wrong = await client(server).post("/api/v1/auth/login", { email: account.email, password: "wrong" })
    expect(wrong.status).toBe(401)
    const refresh = await client(server).post("/api/v1/auth/refresh", { refreshToken: login.body.data.refreshToken })
    expect(refresh.status).toBe(200)
    const session = await signIn(server, account)
    const key = await client(server, session.accessToken).post("/api/v1/settings/api-keys", { name: "ci" })
    expect(key.status).toBe(201)
    const webhook = await request(`${server.baseUrl}/api/v1/webhooks`, {
      method: "POST",
      token: key.body.data.key,
      body: WEBHOOK
    })
    expect(webhook.status).toBe(201)
    for (const [what, response] of Object.entries({ login, wrong, refresh, key, webhook })) {
      // Exactly one value: a duplicate would read "no-store, no-store".
      expect(response.headers.get("cache-control"), what).toBe("no-store")
      expectBaseline(response, what)
    }
  })

  it("Cache-Control: no-store, once, on every authenticated answer of the key API and the account API", async () => {
    const keyAccount = await createAccount(server, { credits: 100 })
    const account = await seedAccount(server, "consultant")
    const session = await signIn(server, account)
    const answers = {
      tenders: await request(`${server.baseUrl}/api/v1/tenders?companyId=${keyAccount.companyId}`, {
        token: keyAccount.key
      }),
      webhooks: await request(`${server.baseUrl}/api/v1/webhooks`, { token: keyAccount.key }),
      keyRefused: await request(`${server.baseUrl}/api/v1/tenders`, { token: "svc_wrong" }),
      apiKeys: await client(server, session.accessToken).get("/api/v1/settings/api-keys"),
      companies: await client(server, session.accessToken).get("/api/v1/companies"),
      credits: await client(server, session.accessToken).get("/api/v1/settings/credits"),
      tokenRefused: await client(server).get("/api/v1/watchlists")
    }
    expect(Object.values(answers).map((answer) => answer.status)).toEqual([200, 200, 401, 200, 200, 200, 401])
    for (const [what, response] of Object.entries(answers)) {
      expect(response.headers.get("cache-control"), what).toBe("no-store")
    }
  })

  it("no-store on exactly the operations the OpenAPI document says need credentials (and the secret-carrying ones)", async () => {
    const spec = (await request(`${server.baseUrl}/api/v1/openapi.json`)).body
    let authenticated = 0
    for (const [path, operations] of Object.entries<Record<string, { security?: unknown }>>(spec.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const pattern = path.replace(/\{([^}]+)\}/g, ":$1")
        const needsCredentials = Array.isArray(operation.security) && operation.security.length > 0
        if (needsCredentials) authenticated++
        expect(isNoStoreRoute(method, pattern), `${method} ${path}`).toBe(
          needsCredentials || NO_STORE_ROUTES.some(([m, p]) => m === method.toUpperCase() && p === pattern)
        )
      }
    }
    expect(authenticated).toBeGreaterThan(40)
    // Each secret-carrying route is named by its exact template, as the router matches it.
    for (const [method, template] of NO_STORE_ROUTES) {
      const path = template.replace(/:([^/]+)/g, "{$1}")
      expect(spec.paths[path]?.[method.toLowerCase()], `${method} ${template}`).toBeDefined()
    }
    for (const path of ["/health", "/ready", "/api/v1/openapi.json", "/docs"]) {
      expect((await request(`${server.baseUrl}${path}`)).headers.get("cache-control"), path).toBeNull()
    }
  })

  it("no Strict-Transport-Security while PUBLIC_BASE_URL is http", async () => {
    expect((await request(`${server.baseUrl}/health`)).headers.get("strict-transport-security")).toBeNull()
  })

  it("a Content-Security-Policy on /docs that allows its own two inline scripts by hash, and no other script", async () => {
    const response = await request(`${server.baseUrl}/docs`)
    const csp = response.headers.get("content-security-policy") ?? ""
    const directives = new Map(
      csp.split(";").map((directive) => {
        const [name = "", ...values] = directive.trim().split(/\s+/)
        return [name, values] as const
      })
    )
    expect(directives.get("default-src")).toEqual(["'none'"])
    expect(directives.get("frame-ancestors")).toEqual(["'none'"])
    const inlineScripts = [...response.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? "")
    expect(inlineScripts).toHaveLength(2)
    const hashes = inlineScripts.map((script) => `'sha256-${createHash("sha256").update(script).digest("base64")}'`)
    expect(directives.get("script-src")).toEqual([...hashes, "'wasm-unsafe-eval'"])
    expect(directives.get("font-src")).toEqual(["https://fonts.scalar.com"])
  })

  it("the report download routes are no-store by their route templates, whatever answers them", async () => {
    // Decided on the template the router matched (RouteTemplates), never on the raw path.
    expect(isNoStoreRoute("GET", "/api/v1/reports/jobs/:jobId/download")).toBe(true)
    expect(isNoStoreRoute("GET", "/api/v1/reports/download/:token")).toBe(true)
    expect(isNoStoreRoute("get", "/api/v1/reports/download/:token")).toBe(true)
    expect(isNoStoreRoute("HEAD", "/api/v1/reports/download/:token")).toBe(true)
    expect(isNoStoreRoute("GET", "/api/v1/reports/download/abc")).toBe(false)
    expect(isNoStoreRoute("DELETE", "/api/v1/webhooks")).toBe(false)
    expect(isNoStoreRoute("GET", UNMATCHED)).toBe(false)
    // Served by whatever answers the path (a token unknown: the JSON error): the header is there either way.
    for (const path of [
      `/api/v1/reports/jobs/${randomUUID()}/download`,
      "/api/v1/reports/download/some-token",
      "/api/v1/reports/download/abc.def/"
    ]) {
      const response = await request(`${server.baseUrl}${path}`)
      expect(response.headers.get("cache-control"), path).toBe("no-store")
      expectBaseline(response, path)
    }
    // No route takes these (404): nothing of a secret's to keep from caches.
    for (const path of ["/api/v1/reports/download", "/api/v1/reports/jobs/x/download/more"]) {
      const response = await request(`${server.baseUrl}${path}`)
      expect(response.status, path).toBe(404)
      expect(response.headers.get("cache-control"), path).toBeNull()
    }
  })

  it("no CORS header for any origin, and a preflight is not answered", async () => {
    const origin = "https://app.example.com"
    const response = await request(`${server.baseUrl}/health`, { headers: { origin } })
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
    expect(response.headers.get("vary")).toBeNull()
    const preflight = await request(`${server.baseUrl}/api/v1/tenders`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "GET" }
    })
    expect(preflight.status).toBe(404)
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull()
    expect(preflight.headers.get("access-control-allow-methods")).toBeNull()
  })
})

describe("CORS with CORS_ORIGINS listing origins", () => {
  const allowed = "https://app.example.com"
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ corsOrigins: [allowed, "http://localhost:5173"] })
  })
  afterAll(() => server.close())

  it("a listed origin gets itself back (not *), no credentials, the API's headers exposed; errors too", async () => {
    const account = await createAccount(server, { credits: 10 })
    for (const response of [
      await request(`${server.baseUrl}/api/v1/tenders?companyId=${account.companyId}`, {
        token: account.key,
        headers: { origin: allowed }
      }),
      await request(`${server.baseUrl}/api/v1/tenders`, { headers: { origin: allowed } })
    ]) {
      expect([200, 401]).toContain(response.status)
      expect(response.headers.get("access-control-allow-origin")).toBe(allowed)
      expect(response.headers.get("access-control-allow-credentials")).toBeNull()
      expect(response.headers.get("access-control-expose-headers")).toContain("X-API-Credits-Remaining")
      expect(response.headers.get("access-control-expose-headers")).toContain("Idempotent-Replayed")
      expect(response.headers.get("vary")).toBe("Origin")
      expectBaseline(response, "cors")
    }
  })

  it("an origin not listed exactly gets no CORS header", async () => {
    for (const origin of [
      "https://evil.example.com",
      "https://app.example.com.evil.test",
      "http://app.example.com",
      "null"
    ]) {
      const response = await request(`${server.baseUrl}/health`, { headers: { origin } })
      expect(response.status).toBe(200)
      expect(response.headers.get("access-control-allow-origin"), origin).toBeNull()
      expect(response.headers.get("vary")).toBe("Origin")
    }
  })

  it("a preflight is answered 204: methods and headers for a listed origin, nothing for another", async () => {
    const preflight = await request(`${server.baseUrl}/api/v1/webhooks`, {
      method: "OPTIONS",
      headers: {
        origin: allowed,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type"
      }
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe(allowed)
    // Every method a route accepts, PUT included (feedback marks, digest settings).
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE")
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization")
    // A report creation's Idempotency-Key may be sent from another origin.
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("idempotency-key")
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull()
    expect(Number(preflight.headers.get("access-control-max-age"))).toBeGreaterThan(0)
    expectBaseline(preflight, "preflight")

    const refused = await request(`${server.baseUrl}/api/v1/webhooks`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example.com", "access-control-request-method": "POST" }
    })
    expect(refused.status).toBe(204)
    expect(refused.headers.get("access-control-allow-origin")).toBeNull()
    expect(refused.headers.get("access-control-allow-methods")).toBeNull()
  })
})

describe("Strict-Transport-Security when PUBLIC_BASE_URL is https", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ publicBaseUrl: "https://tenders.example.com" })
  })
  afterAll(() => server.close())

  it("on every response: successes, errors, the docs", async () => {
    for (const path of ["/health", "/api/v1/tenders", "/no/such/route", "/docs"]) {
      const response = await request(`${server.baseUrl}${path}`)
      expect(response.headers.get("strict-transport-security"), path).toBe(HSTS)
    }
    expect(HSTS).toBe("max-age=31536000; includeSubDomains")
  })
})
