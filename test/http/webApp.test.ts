import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { APP_CSP, IMMUTABLE, isHashedName } from "../../src/http/web/WebApp.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * The browser app served by the API process, from a build directory laid out as the web build
 * writes it (`index.html` + hashed assets). A fixture directory stands in for `dist/web`.
 */

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/app-LKXV7DQA.js"></script></head><body><div id="root"></div></body></html>'
const SCRIPT = 'console.log("app")'
const STYLE = "body{margin:0}"

const html = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" }

describe("the browser app at /", () => {
  let server: TestServer
  let webDir: string

  beforeAll(async () => {
    webDir = await mkdtemp(join(tmpdir(), "tss-web-"))
    await mkdir(join(webDir, "assets"))
    await writeFile(join(webDir, "index.html"), INDEX)
    await writeFile(join(webDir, "assets", "app-LKXV7DQA.js"), SCRIPT)
    await writeFile(join(webDir, "assets", "app-2MZQ4WRT.css"), STYLE)
    await writeFile(join(webDir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>")
    await writeFile(join(webDir, ".secret"), "hidden")
    server = await startTestServer({ webDir })
  })
  afterAll(async () => {
    await server.close()
    await rm(webDir, { recursive: true, force: true })
  })

  const get = (path: string, headers: Record<string, string> = {}) => request(`${server.baseUrl}${path}`, { headers })

  it("/ is index.html, not cached, with the app's Content-Security-Policy", async () => {
    const response = await get("/")
    expect(response.status).toBe(200)
    expect(response.text).toBe(INDEX)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    expect(response.headers.get("cache-control")).toBe("no-cache")
    expect(response.headers.get("content-security-policy")).toBe(APP_CSP)
    expect(APP_CSP).toContain("script-src 'self';")
    expect(APP_CSP).not.toContain("unsafe-inline")
  })

  it("hashed assets are immutable for a year, with their media types", async () => {
    const script = await get("/assets/app-LKXV7DQA.js")
    expect(script.status).toBe(200)
    expect(script.text).toBe(SCRIPT)
    expect(script.headers.get("content-type")).toMatch(/^(text|application)\/javascript/)
    expect(script.headers.get("cache-control")).toBe(IMMUTABLE)
    const style = await get("/assets/app-2MZQ4WRT.css")
    expect(style.headers.get("content-type")).toMatch(/^text\/css/)
    expect(style.headers.get("cache-control")).toBe(IMMUTABLE)
  })

  it("files without a hash in their name are revalidated", async () => {
    const icon = await get("/favicon.svg")
    expect(icon.status).toBe(200)
    expect(icon.headers.get("cache-control")).toBe("no-cache")
    const page = await get("/index.html")
    expect(page.text).toBe(INDEX)
    expect(page.headers.get("cache-control")).toBe("no-cache")
    expect(page.headers.get("content-security-policy")).toBe(APP_CSP)
  })

  it("deep links from a browser reload into the app", async () => {
    for (const path of ["/companies", "/companies/3f0e7c1a-0000-4000-8000-000000000000/tenders", "/setari?tab=chei"]) {
      const response = await get(path, html)
      expect(response.status, path).toBe(200)
      expect(response.text, path).toBe(INDEX)
      expect(response.headers.get("cache-control"), path).toBe("no-cache")
      expect(response.headers.get("content-security-policy"), path).toBe(APP_CSP)
    }
  })

  it("without Accept: text/html, an unknown path stays the API's JSON 404", async () => {
    const response = await get("/companies")
    expect(response.status).toBe(404)
    expect(response.body).toMatchObject({ statusCode: 404, code: "NOT_FOUND" })
  })

  it("unknown /api paths are JSON 404s even for a browser; API routes are untouched", async () => {
    for (const path of ["/api/v1/nothing-here", "/api", "/api/v1/alerts/mark-all-read"]) {
      const response = await get(path, html)
      expect(response.status, path).toBe(404)
      expect(response.body, path).toMatchObject({ statusCode: 404, code: "NOT_FOUND" })
    }
    const health = await get("/health", html)
    expect(health.status).toBe(200)
    expect(health.headers.get("content-security-policy")).toBeNull()
    const openapi = await get("/api/v1/openapi.json")
    expect(openapi.status).toBe(200)
    expect(openapi.body.openapi).toMatch(/^3\./)
  })

  it("missing assets, dot files and paths outside the build are 404s", async () => {
    for (const path of [
      "/assets/app-AAAAAAAA.js",
      "/.secret",
      "/assets/../.secret",
      "/..%2F..%2Fetc%2Fpasswd",
      "/assets/%00.js",
      "/%FF.js",
      "/%"
    ]) {
      const response = await get(path, html)
      expect(response.status, path).toBe(404)
      expect(response.text, path).not.toContain("hidden")
      expect(response.text, path).not.toContain("root:")
    }
  })

  it("an encoded dot-dot is resolved by the URL rules first: never a file outside the build", async () => {
    // fetch (as browsers) turns /%2e%2e/ into /../ and resolves it away: this asks for /etc/passwd.
    const response = await get("/%2e%2e/%2e%2e/etc/passwd", html)
    expect(response.text).toBe(INDEX)
  })

  it("only GET: other methods on app paths are JSON 404s", async () => {
    const response = await request(`${server.baseUrl}/companies`, { method: "POST", body: {}, headers: html })
    expect(response.status).toBe(404)
    expect(response.body).toMatchObject({ code: "NOT_FOUND" })
  })
})

describe("the browser app before it is built", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ webDir: join(tmpdir(), `tss-web-missing-${process.pid}`) })
  })
  afterAll(() => server.close())

  it("/ says the app is not built (503), and the API still answers", async () => {
    const page = await request(`${server.baseUrl}/`)
    expect(page.status).toBe(503)
    expect(page.headers.get("content-type")).toMatch(/^text\/html/)
    expect(page.text).toContain("has not been built")
    const deepLink = await request(`${server.baseUrl}/companies`, { headers: html })
    expect(deepLink.status).toBe(503)
    expect((await request(`${server.baseUrl}/health`)).status).toBe(200)
  })
})

describe("hashed names", () => {
  it("recognises esbuild's and hex content hashes only", () => {
    expect(isHashedName("app-LKXV7DQA.js")).toBe(true)
    expect(isHashedName("chunk-2MZQ4WRT.css")).toBe(true)
    expect(isHashedName("main.3f2a9c1d.js")).toBe(true)
    expect(isHashedName("app-ALCNX7FV.js.map")).toBe(true)
    expect(isHashedName("favicon.svg")).toBe(false)
    expect(isHashedName("index.html")).toBe(false)
    expect(isHashedName("logo-company.png")).toBe(false)
    expect(isHashedName("build-meta.json")).toBe(false)
  })
})
