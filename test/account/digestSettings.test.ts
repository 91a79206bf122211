import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { query, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

describe("daily digest settings (GET/PUT /api/v1/settings/digest)", () => {
  let server: TestServer
  let account: SeededAccount
  let token: string
  const url = () => `${server.baseUrl}/api/v1/settings/digest`
  const get = () => request(url(), { token })
  const put = (body: unknown) => request(url(), { method: "PUT", token, body })
  const stored = async () =>
    (
      await query<{ digest_enabled: boolean; digest_hour: number }>(
        server,
        "SELECT digest_enabled, digest_hour FROM users WHERE id = $1",
        [account.userId]
      )
    )[0]

  beforeAll(async () => {
    server = await startTestServer()
  })
  beforeEach(async () => {
    // Every plan has the digest: the account here is on the free plan.
    account = await seedAccount(server, "free")
    token = (await signIn(server, account)).accessToken
  })
  afterAll(() => server.close())

  it("is off by default, with 8 o'clock ready for when it is turned on", async () => {
    const { status, body } = await get()
    expect(status).toBe(200)
    expect(body).toEqual({ data: { enabled: false, hour: 8 } })
  })

  it("opt in at the default hour, at a chosen hour, then opt out keeping the hour", async () => {
    expect((await put({ enabled: true })).body).toEqual({ data: { enabled: true, hour: 8 } })
    expect(await stored()).toEqual({ digest_enabled: true, digest_hour: 8 })

    const changed = await put({ enabled: true, hour: 0 })
    expect(changed.status).toBe(200)
    expect(changed.body).toEqual({ data: { enabled: true, hour: 0 } })
    expect((await put({ enabled: true, hour: 23 })).body.data.hour).toBe(23)

    const off = await put({ enabled: false })
    expect(off.body).toEqual({ data: { enabled: false, hour: 23 } })
    expect(await stored()).toEqual({ digest_enabled: false, digest_hour: 23 })
    expect((await get()).body).toEqual({ data: { enabled: false, hour: 23 } })
    // Back on: the hour chosen before.
    expect((await put({ enabled: true })).body).toEqual({ data: { enabled: true, hour: 23 } })
  })

  it.each([
    [{ enabled: true, hour: 24 }, "hour"],
    [{ enabled: true, hour: -1 }, "hour"],
    [{ enabled: true, hour: 7.5 }, "hour"],
    [{ enabled: true, hour: "8" }, "hour"],
    [{ enabled: true, hour: null }, "hour"],
    [{ enabled: "yes" }, "enabled"],
    [{ hour: 8 }, "enabled"]
  ])("%j is 400 VALIDATION_ERROR naming %s, and changes nothing", async (body, field) => {
    const { status, body: error } = await put(body)
    expect(status).toBe(400)
    expect(error).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR", message: expect.any(String) })
    expect(error.details.map((d: { path: string }) => d.path)).toContain(field)
    expect(await stored()).toEqual({ digest_enabled: false, digest_hour: 8 })
  })

  it("malformed JSON is 400, not 500", async () => {
    const { status, body } = await request(url(), {
      method: "PUT",
      token,
      body: "{enabled:",
      headers: { "content-type": "application/json" }
    })
    expect(status).toBe(400)
    expect(body.code).toBe("VALIDATION_ERROR")
  })

  it("needs an access token; an API key is not one", async () => {
    expect((await request(url())).status).toBe(401)
    expect((await request(url(), { method: "PUT", body: { enabled: true } })).body.code).toBe("ACCESS_TOKEN_MISSING")
    expect((await request(url(), { token: `svc_${"0".repeat(64)}` })).body.code).toBe("ACCESS_TOKEN_INVALID")
  })

  it("is per user: another user keeps their own choice", async () => {
    await put({ enabled: true, hour: 6 })
    const other = await seedAccount(server, "consultant")
    const otherToken = (await signIn(server, other)).accessToken
    expect((await request(url(), { token: otherToken })).body).toEqual({ data: { enabled: false, hour: 8 } })
    expect((await get()).body).toEqual({ data: { enabled: true, hour: 6 } })
  })
})
