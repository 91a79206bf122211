import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, PASSWORD, seedAccount } from "./fixtures.js"

describe("login rate limit (failed logins per e-mail 5 / 15 min, per client address 20 / 15 min)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  const login = (email: string, password: string) => client(server).post("/api/v1/auth/login", { email, password })

  it("successful logins never count", async () => {
    const account = await seedAccount(server, "free")
    for (let i = 0; i < 7; i++) expect((await login(account.email, PASSWORD)).status).toBe(200)
  })

  it("after 5 failures for one e-mail: 429 with Retry-After and retry_after_seconds, even for the right password", async () => {
    const account = await seedAccount(server, "free")
    for (let i = 0; i < 5; i++) expect((await login(account.email, "wrong")).status).toBe(401)
    const limited = await login(account.email, "wrong")
    expect(limited.status).toBe(429)
    expect(limited.body.code).toBe("RATE_LIMIT_EXCEEDED")
    expect(limited.body.statusCode).toBe(429)
    expect(limited.body.retry_after_seconds).toBeGreaterThan(0)
    expect(limited.body.retry_after_seconds).toBeLessThanOrEqual(15 * 60)
    expect(Number(limited.headers.get("retry-after"))).toBe(limited.body.retry_after_seconds)
    // Locked: the right password is refused too, so guessing on is pointless.
    const right = await login(account.email, PASSWORD)
    expect(right.status).toBe(429)
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0)
    // An unknown e-mail is throttled the same way (nothing reveals whether it exists).
    for (let i = 0; i < 5; i++) expect((await login("ghost@example.com", "wrong")).status).toBe(401)
    expect((await login("ghost@example.com", "wrong")).status).toBe(429)
  })

  it("after 20 failures from one address, other e-mails from it are limited too", async () => {
    // The previous test failed 12 times from 127.0.0.1 (the two 429 failures count for the address too;
    // the refused right-password attempt does not): 8 more failures are allowed, the 9th is refused.
    const fresh = await seedAccount(server, "free")
    let status = 0
    let attempts = 0
    while (attempts < 30) {
      attempts++
      status = (await login(`spray-${attempts}@example.com`, "wrong")).status
      if (status === 429) break
      expect(status).toBe(401)
    }
    expect(status).toBe(429)
    expect(attempts).toBe(9)
    const right = await login(fresh.email, PASSWORD)
    expect(right.status).toBe(429)
    expect(right.headers.get("retry-after")).not.toBeNull()
  })
})
