import { mkdtempSync, rmSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Duration } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { API_STOP_LIMIT } from "../../src/bin/Main.js"
import { DRAIN_DEADLINE } from "../../src/http/Draining.js"
import { type Account, addScoredTenders, createAccount } from "../api/fixtures.js"
import { eventually, freePort, pause, type ServiceProcess, spawnService, stopProcess } from "../hardening/OwnServers.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * The API's shutdown on SIGTERM (README, "Faults and shutdown"), on real API processes
 * (src/bin/api.ts) over a database of this file: the drain ends even when a client keeps its
 * connection alive or a request never completes. Test/hardening/faults.test.ts has the plain drain.
 */

/** A raw HTTP/1.1 keep-alive connection: what a load balancer's or a client's connection pool holds. */
const rawConnection = async (port: number) => {
  const socket = net.connect(port, "127.0.0.1")
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve)
    socket.once("error", reject)
  })
  let received = ""
  let closed = false
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
  socket.on("close", () => (closed = true))
  socket.on("error", () => {})
  return {
    send: (text: string) => socket.write(text),
    received: () => received,
    closed: () => closed,
    destroy: () => socket.destroy()
  }
}

/** Responses seen so far on a raw connection (status lines; a body without a line break may precede one). */
const statusLines = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3})[^\r\n]*\r\n/g)].map((m) => Number(m[1]))

describe("the API's shutdown (SIGTERM)", () => {
  let server: TestServer
  let account: Account
  let dataDir: string
  const processes: Array<ServiceProcess> = []

  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server, { credits: 100_000 })
    await addScoredTenders(server, account, [
      { score: 80, publishDate: "2026-11-01" },
      { score: 60, publishDate: "2026-11-02" }
    ])
    dataDir = mkdtempSync(path.join(tmpdir(), "tss-shutdown-"))
  }, 120_000)

  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL")
    await server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  const startApi = async (env: Record<string, string> = {}) => {
    const port = await freePort()
    const api = spawnService("api", {
      DATABASE_URL: server.databaseUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      RATE_LIMIT_GENERAL_PER_MINUTE: "100000",
      ...env
    })
    processes.push(api)
    const baseUrl = `http://127.0.0.1:${port}`
    await eventually(async () => ((await fetch(`${baseUrl}/health`)).status === 200 ? true : undefined), 120)
    return { api, port, baseUrl }
  }

  /** Holds the tenant's credit period: the next key-API request's charge waits on it (a slow request). */
  const holdCredits = async () => {
    const holder = new pg.Client({ connectionString: server.databaseUrl })
    await holder.connect()
    await holder.query("BEGIN")
    await holder.query("SELECT 1 FROM credit_periods WHERE tenant_id = $1 FOR UPDATE", [account.tenantId])
    return {
      release: async () => {
        await holder.query("COMMIT")
        await holder.end()
      }
    }
  }

  const waitingOnLock = () =>
    eventually(async () => {
      const db = new pg.Client({ connectionString: server.databaseUrl })
      await db.connect()
      try {
        const rows = (await db.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).rows
        return rows.length > 0 ? true : undefined
      } finally {
        await db.end()
      }
    }, 60)

  it("a request sent on a kept-alive connection after the in-flight one is answered (or the connection is closed), and the API exits 0", async () => {
    const { api, port, baseUrl } = await startApi()
    const listPath = `/api/v1/tenders?companyId=${account.companyId}&limit=1`
    // Opens the credit period, so the lock below has a row to hold.
    expect((await fetch(`${baseUrl}${listPath}`, { headers: { authorization: `Bearer ${account.key}` } })).status).toBe(
      200
    )
    const lock = await holdCredits()
    const connection = await rawConnection(port)
    connection.send(
      `GET ${listPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${account.key}\r\nConnection: keep-alive\r\n\r\n`
    )
    await waitingOnLock()

    const exitCode = stopProcess(api.child, "SIGTERM")
    await pause(1_000)
    await lock.release()
    // The in-flight request is answered.
    await eventually(async () => (statusLines(connection.received()).length === 1 ? true : undefined), 30)
    expect(statusLines(connection.received())).toEqual([200])
    const keptAlive = !/\r\nconnection: close\r\n/i.test(connection.received())
    // A pooled client reuses a connection the server kept alive: the next request must get an answer,
    // or the connection must close so the client retries elsewhere. Held unanswered, it hangs the
    // client and keeps the server from ever closing.
    if (keptAlive && !connection.closed()) connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    const settled = await Promise.race([
      exitCode.then((code) => ({ exited: true, code })),
      pause(20_000).then(() => ({ exited: false, code: null }))
    ])
    const answeredSecond = statusLines(connection.received()).length === 2
    connection.destroy()
    const seen = { keptAlive, answeredSecond, closedByServer: connection.closed() || settled.exited, ...settled }
    expect(seen, `${JSON.stringify(seen)}\n${api.output().slice(-1500)}`).toMatchObject({ exited: true, code: 0 })
    // The response in flight when the drain began said it closes the connection.
    expect(keptAlive).toBe(false)
  }, 180_000)

  it("SIGTERM ends the API within a bounded time (30 s) while a request in flight waits on a lock", async () => {
    // The process's own bound, under the supervisors' 30 s.
    expect(Duration.toSeconds(API_STOP_LIMIT)).toBeLessThan(30)
    const { api, baseUrl } = await startApi()
    const listPath = `/api/v1/tenders?companyId=${account.companyId}&limit=1`
    const headers = { authorization: `Bearer ${account.key}` }
    expect((await fetch(`${baseUrl}${listPath}`, { headers })).status).toBe(200)
    const lock = await holdCredits()
    try {
      // A request waiting on a lock: the request pool's lock timeout answers it 503 (REQUEST_LOCK_TIMEOUT),
      // within the drain's deadline (test/http/draining.test.ts gives up on one that never ends).
      const stuck = fetch(`${baseUrl}${listPath}`, { headers }).then(
        (res) => res.status,
        () => 0
      )
      await waitingOnLock()
      const started = Date.now()
      const exitCode = stopProcess(api.child, "SIGTERM")
      const settled = await Promise.race([
        exitCode.then((code) => ({ exited: true, code, seconds: Math.round((Date.now() - started) / 1000) })),
        pause(40_000).then(() => ({ exited: false, code: null, seconds: 40 }))
      ])
      // Kubernetes' default grace period is 30 s, after which the process is SIGKILLed mid-response anyway:
      // the API should give up on a drain it cannot finish and exit on its own before that.
      expect(settled, api.output().slice(-800)).toMatchObject({ exited: true })
      expect(settled.seconds).toBeLessThanOrEqual(30)
      expect(settled.code).toBe(0)
      expect(settled.seconds).toBeLessThan(Duration.toSeconds(DRAIN_DEADLINE))
      // The request was answered (the service is unavailable for it), not cut.
      expect(await stuck).toBe(503)
    } finally {
      await lock.release()
    }
  }, 180_000)
})
