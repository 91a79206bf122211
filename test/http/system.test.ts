import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

describe("system endpoints and the uniform error body", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("GET /health answers 200 ok", async () => {
    const response = await fetch(`${server.baseUrl}/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: "ok" })
  })

  it("GET /ready checks the database and Redis", async () => {
    const { status, body } = await request(`${server.baseUrl}/ready`)
    expect(status).toBe(200)
    expect(body.status).toBe("ready")
    expect(body.checks.database).toBe("ok")
    expect(body.checks.redis).toBe(process.env.REDIS_URL ? "ok" : "in-process")
  })

  it("an unknown route is a JSON 404 in the uniform shape", async () => {
    const response = await fetch(`${server.baseUrl}/no/such/route?x=1`)
    expect(response.status).toBe(404)
    expect(response.headers.get("content-type")).toContain("application/json")
    expect(await response.json()).toEqual({
      statusCode: 404,
      code: "NOT_FOUND",
      message: "No route for GET /no/such/route"
    })
  })

  it("serves the OpenAPI document generated from the API definition", async () => {
    const { status, body: spec } = await request(`${server.baseUrl}/api/v1/openapi.json`)
    expect(status).toBe(200)
    expect(spec.openapi).toMatch(/^3\./)
    expect(spec.paths["/health"].get).toBeDefined()
    expect(spec.paths["/ready"].get.responses["503"]).toBeDefined()
  })

  it("serves interactive docs at /docs", async () => {
    const response = await fetch(`${server.baseUrl}/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    expect(await response.text()).toContain("/api/v1/openapi.json")
  })
})
