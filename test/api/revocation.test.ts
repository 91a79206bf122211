import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { freePort } from "../hardening/OwnServers.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, createAccount } from "./fixtures.js"

const waitForHealth = async (baseUrl: string, child: ChildProcess, output: () => string) => {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`API process exited early:\n${output()}`)
    try {
      // A request that lands between listen() and the handler being attached is never answered:
      // give each probe its own timeout instead of waiting on it forever.
      if ((await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) })).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`API process did not become healthy:\n${output()}`)
}

/** A real `src/bin/api.ts` process on the given database. */
const startApiProcess = async (databaseUrl: string, dataDir: string) => {
  const port = await freePort()
  const child = spawn(path.resolve("node_modules/.bin/tsx"), ["src/bin/api.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      MASTER_KEY: randomBytes(32).toString("hex"),
      RATE_LIMIT_GENERAL_PER_MINUTE: "100000",
      LOG_LEVEL: "Warn"
    },
    // Its own process group, so the tsx wrapper and its node child stop together.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const baseUrl = `http://127.0.0.1:${port}`
  await waitForHealth(baseUrl, child, () => output)
  return { baseUrl, child }
}

const stop = (child: ChildProcess) => {
  if (child.pid !== undefined && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGTERM")
    } catch {}
  }
}

describe("revocation across two API processes sharing one database", () => {
  let server: TestServer
  let account: Account
  let dataDir: string
  const processes: Array<{ baseUrl: string; child: ChildProcess }> = []

  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server)
    dataDir = mkdtempSync(path.join(tmpdir(), "tss-revocation-"))
    processes.push(...(await Promise.all([0, 1].map(() => startApiProcess(server.databaseUrl, dataDir)))))
  }, 120_000)
  afterAll(async () => {
    for (const p of processes) stop(p.child)
    rmSync(dataDir, { recursive: true, force: true })
    await server.close()
  })

  it("after revocation both processes answer 401 API_KEY_REVOKED within 1 s", async () => {
    const list = (baseUrl: string) =>
      request(`${baseUrl}/api/v1/tenders?companyId=${account.companyId}`, { token: account.key })
    for (const p of processes) expect((await list(p.baseUrl)).status).toBe(200)

    await server.run(Effect.flatMap(ApiKeysRepo, (keys) => keys.revoke({ keyId: account.keyId })))
    const revokedAt = Date.now()

    for (const p of processes) {
      let res = await list(p.baseUrl)
      while (res.status !== 401 && Date.now() - revokedAt < 1000) {
        await new Promise((r) => setTimeout(r, 20))
        res = await list(p.baseUrl)
      }
      expect(res.status).toBe(401)
      expect(res.body.code).toBe("API_KEY_REVOKED")
      expect(Date.now() - revokedAt).toBeLessThan(1000)
    }
  })
})
