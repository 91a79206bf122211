import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAccount } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * A 400 of the real server never quotes a credential it refused: error bodies are kept by proxies,
 * gateways and clients' logs. Schema's messages quote the rejected value (`actual "…"`, a string's
 * first 64 characters): a password one character too long came back with its first 64 characters,
 * and a login body wrapped in an array with the whole password.
 */
describe("credentials in validation errors", () => {
  let server: TestServer
  let account: Awaited<ReturnType<typeof createAccount>>
  const secret = () => `cred-${randomBytes(24).toString("hex")}`

  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server, { credits: 10 })
  }, 120_000)

  afterAll(async () => {
    await server?.close()
  })

  const refusal = async (path: string, body: unknown, token?: string) => {
    const res = await request(`${server.baseUrl}${path}`, {
      method: "POST",
      body,
      ...(token === undefined ? {} : { token })
    })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("VALIDATION_ERROR")
    return res
  }

  it("a password over login's limit is refused without quoting it", async () => {
    const password = secret()
    const res = await refusal("/api/v1/auth/login", { email: "a@example.com", password: password.padEnd(1025, "x") })
    expect(res.text).not.toContain(password.slice(0, 20))
    // What the caller needs is still said: the field and the rule.
    expect(res.body.details).toEqual([
      { path: "password", message: "Expected a string at most 1024 character(s) long" }
    ])
  })

  it("a password of the wrong type is refused without quoting it", async () => {
    const password = secret()
    const res = await refusal("/api/v1/auth/login", { email: "a@example.com", password: [password] })
    expect(res.text).not.toContain(password)
    expect(res.body.details).toEqual([{ path: "password", message: "Expected string" }])
  })

  it("a refresh token over its limit is refused without quoting it", async () => {
    const token = secret()
    const res = await refusal("/api/v1/auth/refresh", { refreshToken: token.padEnd(201, "x") })
    expect(res.text).not.toContain(token.slice(0, 20))
    expect(res.body.message).toBe("Invalid request: refreshToken: Expected a string at most 200 character(s) long")
  })

  it("a webhook secret of the wrong type is refused without quoting it", async () => {
    const webhookSecret = secret()
    const res = await refusal(
      "/api/v1/webhooks",
      { url: "https://receiver.example/hook", secret: { value: webhookSecret }, events: ["tender.matched"] },
      account.key
    )
    expect(res.text).not.toContain(webhookSecret)
    expect(res.body.details[0].path).toBe("secret")
  })

  it("a login body sent inside an array is refused without quoting its password", async () => {
    const password = secret()
    const res = await refusal("/api/v1/auth/login", [{ email: "a@example.com", password }])
    expect(res.text).not.toContain(password)
    expect(res.body.details).toEqual([{ path: "", message: "Expected a JSON object" }])
  })

  it("a credential inside another field's value is not quoted either", async () => {
    const password = secret()
    const res = await refusal("/api/v1/auth/login", { email: { password }, password: "whatever-password" })
    expect(res.text).not.toContain(password)
    expect(res.body.details).toEqual([{ path: "email", message: "Expected string" }])
  })

  it("other fields still quote the start of what was refused", async () => {
    const res = await refusal("/api/v1/auth/login", { email: "e".repeat(400), password: "whatever-password" })
    expect(res.body.details[0].message).toContain(`actual "${"e".repeat(64)}…"`)
  })
})
