import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, query, seedAccount, signIn } from "./fixtures.js"

/**
 * The 10 s grace window of a rotated refresh token is for a lost response or a second tab refreshing
 * the same token. Once its successor has itself been redeemed the client evidently received it, so a
 * replay of the older token is reuse, even inside the window.
 */
describe("account auth: refresh-token reuse inside the grace window", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  const refresh = (refreshToken: string) => client(server).post("/api/v1/auth/refresh", { refreshToken })
  const watchlists = (token: string) => client(server, token).get("/api/v1/watchlists")

  it("a rotated token replayed after its successor was itself redeemed is 401 REFRESH_TOKEN_REUSED and ends the family", async () => {
    const t0 = await signIn(server, await seedAccount(server, "starter"))
    const t1 = (await refresh(t0.refreshToken)).body.data
    const t2 = (await refresh(t1.refreshToken)).body.data
    expect((await watchlists(t2.accessToken)).status).toBe(200)
    const replay = await refresh(t0.refreshToken)
    expect(replay.status).toBe(401)
    expect(replay.body.code).toBe("REFRESH_TOKEN_REUSED")
    const denied = await watchlists(t2.accessToken)
    expect(denied.status).toBe(401)
    expect(denied.body.code).toBe("SESSION_REVOKED")
    expect((await refresh(t2.refreshToken)).body.code).toBe("SESSION_REVOKED")
  })

  it("while the successor is not redeemed, a retried refresh still gets the same pair and the session lives on", async () => {
    const t0 = await signIn(server, await seedAccount(server, "starter"))
    const t1 = (await refresh(t0.refreshToken)).body.data
    // A lost response retried: the same pair, as often as it comes within the window.
    expect((await refresh(t0.refreshToken)).body.data).toEqual(t1)
    expect((await refresh(t0.refreshToken)).body.data).toEqual(t1)
    const t2 = await refresh(t1.refreshToken)
    expect(t2.status).toBe(200)
    expect((await watchlists(t2.body.data.accessToken)).status).toBe(200)
  })

  it("a replay that meets the successor's rotation in flight waits for it and is then reuse", async () => {
    const t0 = await signIn(server, await seedAccount(server, "starter"))
    const t1 = (await refresh(t0.refreshToken)).body.data
    // A rotation of T1 in progress: its row locked and marked rotated, not yet committed.
    const rotation = new pg.Client({ connectionString: server.databaseUrl })
    await rotation.connect()
    try {
      await rotation.query("BEGIN")
      await rotation.query(
        "UPDATE refresh_tokens SET rotated_at = now() WHERE token_hash = sha256(convert_to($1, 'UTF8'))",
        [t1.refreshToken]
      )
      let answered = false
      const replay = refresh(t0.refreshToken).finally(() => {
        answered = true
      })
      // The replay either answers (it did not wait: the check failed) or waits on the locked row.
      for (let waited = 0; !answered && waited < 100; waited++) {
        const waiting = await query(
          server,
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        if (waiting.length > 0) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await rotation.query("COMMIT")
      const answer = await replay
      expect(answer.status).toBe(401)
      expect(answer.body.code).toBe("REFRESH_TOKEN_REUSED")
    } finally {
      await rotation.end()
    }
  })
})
