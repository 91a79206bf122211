import { Duration } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ACCESS_TOKEN_TTL } from "../../src/domain/AccessToken.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, PASSWORD, query, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

describe("account auth: login, refresh rotation, logout, access-token errors", () => {
  let server: TestServer
  let account: SeededAccount
  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "starter")
  })
  afterAll(() => server.close())

  const login = (email = account.email, password = PASSWORD) =>
    client(server).post("/api/v1/auth/login", { email, password })
  const refresh = (refreshToken: string) => client(server).post("/api/v1/auth/refresh", { refreshToken })
  const watchlists = (token: string) => client(server, token).get("/api/v1/watchlists")

  it("POST /api/v1/auth/login gives an access token, a refresh token and expiresIn 900", async () => {
    const { status, body } = await login(`  ${account.email.toUpperCase()} `)
    expect(status).toBe(200)
    expect(body.data.expiresIn).toBe(900)
    expect(body.data.accessToken).toMatch(/^at1\./)
    expect(body.data.refreshToken).toMatch(/^rt_[A-Za-z0-9_-]{43}$/)
    expect((await watchlists(body.data.accessToken)).status).toBe(200)
    // Only the hash of the refresh token is stored.
    const stored = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM refresh_tokens WHERE token_hash = sha256(convert_to($1, 'UTF8'))",
      [body.data.refreshToken]
    )
    expect(stored[0]!.n).toBe(1)
  })

  it("wrong password and unknown e-mail both give 401 INVALID_CREDENTIALS with the same body", async () => {
    const wrong = await login(account.email, "not the password")
    const unknown = await login("nobody-here@example.com", PASSWORD)
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.body).toEqual({ statusCode: 401, code: "INVALID_CREDENTIALS", message: "Wrong e-mail or password" })
    expect(unknown.body).toEqual(wrong.body)
  })

  it("an unknown e-mail costs about as much time as a wrong password (dummy Argon2id verification)", async () => {
    const timed = async (email: string, password: string) => {
      const started = performance.now()
      const response = await login(email, password)
      expect(response.status).toBe(401)
      return performance.now() - started
    }
    const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    const known: Array<number> = []
    const unknown: Array<number> = []
    // Within the per-e-mail budget (4 failures) and the per-address one (2 + 8 so far).
    for (let i = 0; i < 4; i++) {
      known.push(await timed(account.email, `wrong ${i}`))
      unknown.push(await timed(`absent-${i}@example.com`, PASSWORD))
    }
    // Argon2id at 19 MiB takes tens of milliseconds; skipping it for unknown e-mails would show.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.5)
  })

  it("a login body without a password is a 400 naming the field", async () => {
    const { status, body } = await client(server).post("/api/v1/auth/login", { email: account.email })
    expect(status).toBe(400)
    expect(body.code).toBe("VALIDATION_ERROR")
    expect(body.details.map((d: any) => d.path)).toContain("password")
  })

  it("refresh rotates: a new pair, and the old refresh token is marked rotated with its successor", async () => {
    const first = (await login()).body.data
    const { status, body } = await refresh(first.refreshToken)
    expect(status).toBe(200)
    expect(body.data.expiresIn).toBe(900)
    expect(body.data.refreshToken).not.toBe(first.refreshToken)
    expect(body.data.accessToken).not.toBe(first.accessToken)
    expect((await watchlists(body.data.accessToken)).status).toBe(200)
    const rows = await query<{ rotated: boolean; successor: string | null }>(
      server,
      "SELECT rotated_at IS NOT NULL AS rotated, successor_id AS successor FROM refresh_tokens WHERE token_hash = sha256(convert_to($1, 'UTF8'))",
      [first.refreshToken]
    )
    expect(rows[0]!.rotated).toBe(true)
    expect(rows[0]!.successor).not.toBeNull()
    // The successor works in turn.
    expect((await refresh(body.data.refreshToken)).status).toBe(200)
  })

  it("two concurrent refreshes of one token both succeed with the same successor pair", async () => {
    const first = (await login()).body.data
    const [a, b] = await Promise.all([refresh(first.refreshToken), refresh(first.refreshToken)])
    expect(a.status).toBe(200)
    expect(b.status).toBe(200)
    expect(a.body.data.refreshToken).toBe(b.body.data.refreshToken)
    expect(a.body.data.accessToken).toBe(b.body.data.accessToken)
    // The session lives on: the shared successor refreshes, and only one successor row exists.
    const next = await refresh(a.body.data.refreshToken)
    expect(next.status).toBe(200)
    const rows = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM refresh_tokens WHERE token_hash = sha256(convert_to($1, 'UTF8'))",
      [a.body.data.refreshToken]
    )
    expect(rows[0]!.n).toBe(1)
  })

  it("reuse of a rotated token after the grace window revokes the whole family", async () => {
    const first = (await login()).body.data
    const second = (await refresh(first.refreshToken)).body.data
    // Move the rotation 11 s into the past: the grace window (10 s) is over.
    await query(
      server,
      "UPDATE refresh_tokens SET rotated_at = rotated_at - interval '11 seconds' WHERE token_hash = sha256(convert_to($1, 'UTF8'))",
      [first.refreshToken]
    )
    const replay = await refresh(first.refreshToken)
    expect(replay.status).toBe(401)
    expect(replay.body.code).toBe("REFRESH_TOKEN_REUSED")
    // The family is dead: the legitimate successor and its access token are refused too.
    const afterwards = await refresh(second.refreshToken)
    expect(afterwards.status).toBe(401)
    expect(afterwards.body.code).toBe("SESSION_REVOKED")
    const denied = await watchlists(second.accessToken)
    expect(denied.status).toBe(401)
    expect(denied.body.code).toBe("SESSION_REVOKED")
    // Other sessions of the same user are untouched.
    expect((await watchlists((await login()).body.data.accessToken)).status).toBe(200)
  })

  it("an unknown or malformed refresh token is 401 REFRESH_TOKEN_INVALID; a missing one is 400", async () => {
    const unknown = await refresh(`rt_${"A".repeat(43)}`)
    expect(unknown.status).toBe(401)
    expect(unknown.body.code).toBe("REFRESH_TOKEN_INVALID")
    expect((await refresh("garbage")).body.code).toBe("REFRESH_TOKEN_INVALID")
    const missing = await client(server).post("/api/v1/auth/refresh", {})
    expect(missing.status).toBe(400)
    expect(missing.body.details[0].path).toBe("refreshToken")
  })

  it("an expired refresh token is 401 REFRESH_TOKEN_EXPIRED", async () => {
    const first = (await login()).body.data
    await query(
      server,
      "UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = sha256(convert_to($1, 'UTF8'))",
      [first.refreshToken]
    )
    const { status, body } = await refresh(first.refreshToken)
    expect(status).toBe(401)
    expect(body.code).toBe("REFRESH_TOKEN_EXPIRED")
  })

  it("a session 30 days after its login is 401 REFRESH_TOKEN_EXPIRED, its refresh token fresh or not", async () => {
    const first = (await login()).body.data
    // The login moved 30 days into the past; the token itself was issued just now (7 days to go).
    await query(
      server,
      `UPDATE auth_sessions SET created_at = created_at - interval '30 days'
       WHERE id = (SELECT session_id FROM refresh_tokens WHERE token_hash = sha256(convert_to($1, 'UTF8')))`,
      [first.refreshToken]
    )
    const { status, body } = await refresh(first.refreshToken)
    expect(status).toBe(401)
    expect(body).toEqual({
      statusCode: 401,
      code: "REFRESH_TOKEN_EXPIRED",
      message: "The refresh token has expired; log in"
    })
  })

  it("logout answers 204 and at once rejects the access token and the refresh family", async () => {
    const pair = (await login()).body.data
    const out = await client(server, pair.accessToken).post("/api/v1/auth/logout")
    expect(out.status).toBe(204)
    expect(out.text).toBe("")
    const denied = await watchlists(pair.accessToken)
    expect(denied.status).toBe(401)
    expect(denied.body).toEqual({
      statusCode: 401,
      code: "SESSION_REVOKED",
      message: "The session of this access token has ended"
    })
    expect((await refresh(pair.refreshToken)).body.code).toBe("SESSION_REVOKED")
    expect((await client(server, pair.accessToken).post("/api/v1/auth/logout")).status).toBe(401)
  })

  it("logout without a token is 401 ACCESS_TOKEN_MISSING", async () => {
    const { status, body } = await client(server).post("/api/v1/auth/logout")
    expect(status).toBe(401)
    expect(body.code).toBe("ACCESS_TOKEN_MISSING")
  })

  it("access-token errors: missing, empty, other scheme, malformed, tampered, API key", async () => {
    const token = (await login()).body.data.accessToken as string
    const codeFor = async (headers: Record<string, string>) => {
      const response = await client(server).get("/api/v1/watchlists", undefined, headers)
      expect(response.status).toBe(401)
      return response.body.code
    }
    expect(await codeFor({})).toBe("ACCESS_TOKEN_MISSING")
    expect(await codeFor({ authorization: "Bearer " })).toBe("ACCESS_TOKEN_MISSING")
    expect(await codeFor({ authorization: `Token ${token}` })).toBe("ACCESS_TOKEN_MISSING")
    expect(await codeFor({ authorization: "Bearer not-a-token" })).toBe("ACCESS_TOKEN_INVALID")
    const [version, payload, signature] = token.split(".")
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), exp: Date.now() + 1e9 })
    ).toString("base64url")
    expect(await codeFor({ authorization: `Bearer ${version}.${forged}.${signature}` })).toBe("ACCESS_TOKEN_INVALID")
    expect(await codeFor({ authorization: `Bearer svc_${"a".repeat(64)}` })).toBe("ACCESS_TOKEN_INVALID")
    // The scheme is case-insensitive.
    expect(
      (await client(server).get("/api/v1/watchlists", undefined, { authorization: `bearer ${token}` })).status
    ).toBe(200)
  })

  it("an access token past its 15 minutes is 401 ACCESS_TOKEN_EXPIRED; a fresh one of the same user works", async () => {
    // Minted by the service itself, under a clock set 15 minutes and 1 second in the past.
    const stale = await signIn(server, account, Date.now() - Duration.toMillis(ACCESS_TOKEN_TTL) - 1000)
    const { status, body } = await watchlists(stale.accessToken)
    expect(status).toBe(401)
    expect(body).toEqual({
      statusCode: 401,
      code: "ACCESS_TOKEN_EXPIRED",
      message: "The access token has expired; refresh it"
    })
    expect((await watchlists((await signIn(server, account)).accessToken)).status).toBe(200)
  })

  it("a real API key of the tenant is not accepted as an access token", async () => {
    const consultant = await seedAccount(server, "consultant")
    const session = (await login(consultant.email)).body.data.accessToken
    const created = await client(server, session).post("/api/v1/settings/api-keys", { name: "ci" })
    expect(created.status).toBe(201)
    const asAccess = await client(server, created.body.data.key).get("/api/v1/alerts")
    expect(asAccess.status).toBe(401)
    expect(asAccess.body.code).toBe("ACCESS_TOKEN_INVALID")
  })
})
