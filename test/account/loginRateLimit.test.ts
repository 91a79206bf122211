import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseTrustProxy, type TrustProxy } from "../../src/domain/TrustProxy.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { PASSWORD, seedAccount } from "./fixtures.js"

const trust = (value: string): TrustProxy => {
  const parsed = parseTrustProxy(value)
  if (!parsed.ok) throw new Error(parsed.reason)
  return parsed.trust
}

/** A random documentation address (TEST-NET-3): what a client could write into X-Forwarded-For. */
const freshAddress = () => `203.0.113.${1 + ((randomBytes(1)[0] as number) % 254)}`
/** A client address of its own for each test (TEST-NET-2), so no test spends another's budget. */
let nextHost = 1
const ownAddress = () => `198.51.100.${nextHost++}`

const login = (server: TestServer, email: string, password: string, forwardedFor?: string) =>
  request(`${server.baseUrl}/api/v1/auth/login`, {
    method: "POST",
    body: { email, password },
    ...(forwardedFor === undefined ? {} : { headers: { "x-forwarded-for": forwardedFor } })
  })

/**
 * Spends a client's budget of 20 failures (each for another e-mail) and sees the 21st answered 429,
 * which locks the address. `header` gives each attempt's X-Forwarded-For.
 */
const exhaustAddress = async (server: TestServer, header: () => string) => {
  const tag = randomBytes(3).toString("hex")
  for (let i = 1; i <= 20; i++) {
    expect((await login(server, `spray-${tag}-${i}@example.com`, "wrong", header())).status).toBe(401)
  }
  expect((await login(server, `spray-${tag}-21@example.com`, "wrong", header())).status).toBe(429)
}

const statuses = (responses: ReadonlyArray<{ status: number }>) =>
  responses.reduce<Record<number, number>>((acc, r) => {
    acc[r.status] = (acc[r.status] ?? 0) + 1
    return acc
  }, {})

describe("login rate limit behind a trusted proxy (TRUST_PROXY=127.0.0.1; each test is its own client)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ trustProxy: trust("127.0.0.1") })
  })
  afterAll(() => server.close())

  it("successful logins never count", async () => {
    const account = await seedAccount(server, "free")
    const client = ownAddress()
    for (let i = 0; i < 7; i++) expect((await login(server, account.email, PASSWORD, client)).status).toBe(200)
  })

  it("logins of one address in the same instant do not lock each other out (the lock check consumes nothing)", async () => {
    const account = await seedAccount(server, "free")
    const client = ownAddress()
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => login(server, account.email, PASSWORD, client))
    )
    expect(statuses(responses)).toEqual({ 200: 12 })
  })

  it("10 concurrent wrong passwords for one e-mail: exactly 5 are answered 401, the other 5 429", async () => {
    const account = await seedAccount(server, "free")
    const client = ownAddress()
    const responses = await Promise.all(Array.from({ length: 10 }, () => login(server, account.email, "wrong", client)))
    expect(statuses(responses)).toEqual({ 401: 5, 429: 5 })
    expect((await login(server, account.email, PASSWORD, client)).status).toBe(429)
  })

  // The order of the 13 verifications is the machine's: on a loaded one the right password may be
  // verified before the 6th failure locks the e-mail (then 200 is right). Without the second lock
  // check it would fail every time, so a few tries keep the test meaningful and not flaky.
  it("a right password sent just after 12 concurrent wrong ones is refused: it is verified after the lock was set", {
    retry: 3
  }, async () => {
    const account = await seedAccount(server, "free")
    const client = ownAddress()
    const wrong = Array.from({ length: 12 }, (_, i) => login(server, account.email, `wrong ${i}`, client))
    // All 13 pass the first lock check at once; the right one is verified last, after the 6th failure locked the e-mail.
    const right = login(server, account.email, PASSWORD, client)
    expect(statuses(await Promise.all(wrong))).toEqual({ 401: 5, 429: 7 })
    expect((await right).status).toBe(429)
  })

  it("an IPv6 client is counted by its /64: a new address of the same network for each guess is still limited", async () => {
    const fresh = await seedAccount(server, "free")
    const network = `2001:db8:${(nextHost++).toString(16)}:1`
    let host = 1
    await exhaustAddress(server, () => `${network}::${(host++).toString(16)}`)
    expect((await login(server, fresh.email, PASSWORD, `${network}::${(host++).toString(16)}`)).status).toBe(429)
    // Another network (another subscriber) keeps its budget.
    expect((await login(server, fresh.email, PASSWORD, `2001:db8:${(nextHost++).toString(16)}:1::1`)).status).toBe(200)
  })

  it("after 5 failures for one e-mail: 429 with Retry-After and retry_after_seconds, even for the right password", async () => {
    const account = await seedAccount(server, "free")
    const client = ownAddress()
    for (let i = 0; i < 5; i++) expect((await login(server, account.email, "wrong", client)).status).toBe(401)
    const limited = await login(server, account.email, "wrong", client)
    expect(limited.status).toBe(429)
    expect(limited.body.code).toBe("RATE_LIMIT_EXCEEDED")
    expect(limited.body.statusCode).toBe(429)
    expect(limited.body.retry_after_seconds).toBeGreaterThan(0)
    expect(limited.body.retry_after_seconds).toBeLessThanOrEqual(15 * 60)
    expect(Number(limited.headers.get("retry-after"))).toBe(limited.body.retry_after_seconds)
    // Locked: the right password is refused too, so guessing on is pointless; from another client as well.
    const right = await login(server, account.email, PASSWORD, client)
    expect(right.status).toBe(429)
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0)
    expect((await login(server, account.email, PASSWORD, ownAddress())).status).toBe(429)
    // An unknown e-mail is throttled the same way (nothing reveals whether it exists).
    const ghost = `ghost-${randomBytes(4).toString("hex")}@example.com`
    for (let i = 0; i < 5; i++) expect((await login(server, ghost, "wrong", client)).status).toBe(401)
    expect((await login(server, ghost, "wrong", client)).status).toBe(429)
  })

  it("after 20 failures from one client, other e-mails from it are limited too, and other clients are not", async () => {
    const fresh = await seedAccount(server, "free")
    const client = ownAddress()
    await exhaustAddress(server, () => client)
    const right = await login(server, fresh.email, PASSWORD, client)
    expect(right.status).toBe(429)
    expect(right.headers.get("retry-after")).not.toBeNull()
    // Behind the same proxy, another client keeps its own budget: one guesser does not lock everyone out.
    expect((await login(server, fresh.email, PASSWORD, ownAddress())).status).toBe(200)
  })

  it("only the hop the trusted proxy appended is believed: entries a client wrote to the left are ignored", async () => {
    const fresh = await seedAccount(server, "free")
    const client = ownAddress()
    // The client writes a new fake address each time; the proxy appends the real one.
    await exhaustAddress(server, () => `${freshAddress()}, ${client}`)
    expect((await login(server, fresh.email, PASSWORD, `${freshAddress()}, ${client}`)).status).toBe(429)
  })
})

describe("login rate limit with TRUST_PROXY off (the default): X-Forwarded-For is ignored", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("a client cannot escape the address budget by writing X-Forwarded-For", async () => {
    const fresh = await seedAccount(server, "free")
    await exhaustAddress(server, freshAddress)
    // Every request came from 127.0.0.1, whatever the header said: the address is locked.
    expect((await login(server, fresh.email, PASSWORD, freshAddress())).status).toBe(429)
  })
})

describe("login rate limit with a proxy list that does not include the peer", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ trustProxy: trust("10.0.0.0/8, fd00::/8") })
  })
  afterAll(() => server.close())

  it("X-Forwarded-For from an untrusted peer is ignored", async () => {
    const fresh = await seedAccount(server, "free")
    await exhaustAddress(server, freshAddress)
    expect((await login(server, fresh.email, PASSWORD, freshAddress())).status).toBe(429)
  })
})

describe("login rate limit with a hop count (TRUST_PROXY=2)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ trustProxy: trust("2") })
  })
  afterAll(() => server.close())

  it("the address two hops out is the client; what the client prepended does not matter", async () => {
    const fresh = await seedAccount(server, "free")
    const client = ownAddress()
    // peer (127.0.0.1, hop 1) ← 10.1.2.3 (hop 2) ← client
    await exhaustAddress(server, () => `${freshAddress()}, ${client}, 10.1.2.3`)
    expect((await login(server, fresh.email, PASSWORD, `${client}, 10.1.2.3`)).status).toBe(429)
    expect((await login(server, fresh.email, PASSWORD, `${client}, 10.9.9.9`)).status).toBe(429)
    expect((await login(server, fresh.email, PASSWORD, `${ownAddress()}, 10.1.2.3`)).status).toBe(200)
  })
})
