import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, query, seedAccount, signIn } from "../account/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, api, createAccount } from "./fixtures.js"

/**
 * A webhook that could never be delivered is refused at registration: its host is, or resolves to,
 * an address the delivery-time guard refuses, or it does not resolve. Real servers, real DNS
 * (`localhost` and an `.invalid` name resolve, or fail to, through the system resolver).
 */

const SECRET = "s3cret-of-the-receiver-0123456789abcdef"
const body = (url: string) => ({ url, secret: SECRET, events: ["tender.matched"] })

/** Host, and the words the refusal's message must contain. */
const REFUSED: ReadonlyArray<readonly [string, string]> = [
  ["127.0.0.1", "loopback"],
  ["127.1.2.3:8443", "loopback"],
  // WHATWG URL reads the decimal form as 127.0.0.1.
  ["2130706433", "loopback"],
  ["localhost", "localhost resolves to 127.0.0.1 (127.0.0.0/8, loopback)"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["192.168.1.1", "private"],
  ["169.254.169.254", "cloud metadata"],
  ["169.254.10.1", "link-local"],
  ["100.64.0.1", "CGNAT"],
  ["0.0.0.0", "unspecified"],
  ["[::1]", "loopback"],
  ["[::]", "unspecified"],
  ["[::ffff:127.0.0.1]", "loopback"],
  ["[::ffff:10.0.0.1]", "private"],
  ["[fe80::1]", "link-local"],
  ["[fd12:3456::1]", "unique local"],
  ["[fd00:ec2::254]", "cloud metadata"],
  ["no-such-host.invalid", "no-such-host.invalid does not resolve"]
]

describe("webhook registration refuses receivers no delivery could reach", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({
      webhookAllowPrivateNetworks: false,
      rateLimits: { generalPerMinute: 1_000_000 }
    })
  })
  afterAll(() => server.close())

  const create = (account: Account, url: string) =>
    request(api(server, "/api/v1/webhooks"), { method: "POST", token: account.key, body: body(url) })
  const stored = async (tenantId: string) =>
    (await query<{ n: number }>(server, "SELECT count(*)::int AS n FROM webhooks WHERE tenant_id = $1", [tenantId]))[0]!
      .n

  it("POST /api/v1/webhooks: 400 with the uniform body naming the reason, for every special-purpose host; nothing stored", async () => {
    const account = await createAccount(server)
    const failures: Array<string> = []
    for (const [host, reason] of REFUSED) {
      const res = await create(account, `https://${host}/hook`)
      const ok =
        res.status === 400 &&
        res.body.statusCode === 400 &&
        res.body.code === "VALIDATION_ERROR" &&
        typeof res.body.message === "string" &&
        res.body.message.includes(reason) &&
        res.body.details?.[0]?.path === "url" &&
        res.headers.get("x-api-credits-cost") === "0"
      if (!ok) failures.push(`${host} → ${res.status} ${res.text.slice(0, 300)}`)
    }
    expect(failures).toEqual([])
    expect(await stored(account.tenantId)).toBe(0)
  })

  it("a public address is still accepted (the check refuses hosts, not every registration)", async () => {
    const account = await createAccount(server)
    // TEST-NET and other documentation ranges are special too, so a real public address: no DNS needed.
    const res = await create(account, "https://93.184.215.14/hook")
    expect(res.status).toBe(201)
    expect(await stored(account.tenantId)).toBe(1)
  })

  it("the app's settings endpoint refuses the same hosts", async () => {
    const account = await seedAccount(server, "consultant")
    const app = client(server, (await signIn(server, account)).accessToken)
    for (const url of ["https://localhost/hook", "https://[::ffff:127.0.0.1]/hook", "https://192.168.0.10/x"]) {
      const res = await app.post("/api/v1/settings/webhooks", body(url))
      expect(res.status, url).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
      expect(res.body.details).toEqual([{ path: "url", message: expect.any(String) }])
    }
    expect(await stored(account.tenantId)).toBe(0)
  })
})

describe("WEBHOOK_ALLOW_PRIVATE_NETWORKS lifts the registration check", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ webhookAllowPrivateNetworks: true, rateLimits: { generalPerMinute: 1_000_000 } })
  })
  afterAll(() => server.close())

  it("loopback, private, metadata and mapped addresses are registered (tests, on-premises receivers)", async () => {
    const account = await createAccount(server)
    for (const host of ["127.0.0.1", "localhost", "10.1.2.3", "169.254.169.254", "[::ffff:127.0.0.1]"]) {
      const res = await request(api(server, "/api/v1/webhooks"), {
        method: "POST",
        token: account.key,
        body: body(`https://${host}/hook`)
      })
      expect(res.status, host).toBe(201)
      expect(res.body.url).toBe(`https://${host}/hook`)
    }
  })
})
