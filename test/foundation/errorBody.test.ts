import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** The uniform error body `{statusCode, code, message}` (+ details) for bad input and unknown routes. */
describe("uniform error body", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("a body that does not match the schema is a 400 VALIDATION_ERROR naming the field", async () => {
    const { status, headers, body } = await request(`${server.baseUrl}/api/v1/auth/login`, {
      method: "POST",
      body: { email: 42, password: "x" }
    })
    expect(status).toBe(400)
    expect(headers.get("content-type")).toContain("application/json")
    expect(Object.keys(body).sort()).toEqual(["code", "details", "message", "statusCode"])
    expect(body.statusCode).toBe(400)
    expect(body.code).toBe("VALIDATION_ERROR")
    expect(body.message).toContain("email")
    expect(body.details).toEqual([{ path: "email", message: expect.any(String) }])
  })

  it("a missing required field is a 400 VALIDATION_ERROR too", async () => {
    const { status, body } = await request(`${server.baseUrl}/api/v1/auth/login`, {
      method: "POST",
      body: { email: "a@b.ro" }
    })
    expect(status).toBe(400)
    expect(body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
    expect(body.details.map((d: { path: string }) => d.path)).toEqual(["password"])
  })

  it("an unreadable JSON body is a 400 VALIDATION_ERROR, not a 500", async () => {
    const { status, body } = await request(`${server.baseUrl}/api/v1/auth/login`, {
      method: "POST",
      body: '{"email": "a@b.ro", "password": ',
      headers: { "content-type": "application/json" }
    })
    expect(status).toBe(400)
    expect(body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
    expect(typeof body.message).toBe("string")
  })

  it("an unknown route is a JSON 404 NOT_FOUND, for any method", async () => {
    for (const method of ["GET", "POST", "DELETE"]) {
      const { status, headers, body } = await request(`${server.baseUrl}/api/v1/no-such-thing`, { method })
      expect(status).toBe(404)
      expect(headers.get("content-type")).toContain("application/json")
      expect(body).toEqual({
        statusCode: 404,
        code: "NOT_FOUND",
        message: `No route for ${method} /api/v1/no-such-thing`
      })
    }
  })
})
