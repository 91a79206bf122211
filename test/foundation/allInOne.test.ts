import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEMO_COMPANIES, DEMO_EMAIL, DEMO_PASSWORD } from "../../src/demo/DemoData.js"
import { readDemoNotices } from "../../src/demo/DemoNotices.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { entryPointArgs, PROJECT_ROOT } from "./processes.js"

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Starts `all-in-one` on the given database, waits for its banner, stops it with SIGTERM; returns its output. */
const startAndStop = async (env: Record<string, string>) => {
  const child = spawn(process.execPath, entryPointArgs("all-in-one"), {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env, REDIS_URL: "", LOG_LEVEL: "warn" }
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk) => {
    stdout += chunk
  })
  child.stderr.on("data", (chunk) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
  const deadline = Date.now() + 90_000
  // The banner ends with the ingestion line (after the key and the companies).
  while (!/Ingestion: .*\n/.test(stdout) && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100))
  }
  const health = await fetch(`http://127.0.0.1:${env.PORT}/health`).then(
    (r) => r.status,
    () => 0
  )
  // One Prometheus endpoint for everything the process runs (METRICS_PORT), when asked for.
  const metrics =
    env.METRICS_PORT === undefined
      ? ""
      : await fetch(`http://127.0.0.1:${env.METRICS_PORT}/metrics`).then(
          (r) => r.text(),
          () => ""
        )
  child.kill("SIGTERM")
  const code = await exited
  return { stdout, stderr, code, health, metrics }
}

/** Runs `all-in-one` to its exit (a start expected to fail); its exit code and standard error. */
const failedStart = async (env: Record<string, string>) => {
  const child = spawn(process.execPath, entryPointArgs("all-in-one"), {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env }
  })
  let stderr = ""
  child.stderr.on("data", (chunk) => {
    stderr += chunk
  })
  child.stdout.resume()
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
  return { code, stderr }
}

describe("npm start (all-in-one)", () => {
  const runtime = ManagedRuntime.make(TestDatabaseLive)
  let env: Record<string, string>
  let dataDir: string
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tss-start-"))
    const port = await freePort()
    env = {
      DATABASE_URL: await runtime.runPromise(TestDatabaseUrl),
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`
    }
  })
  afterAll(async () => {
    await runtime.dispose()
    await fs.rm(dataDir, { recursive: true, force: true })
  })

  /** The "<uuid>  <name>" lines under "Companies:". */
  const bannerCompanies = (stdout: string) =>
    [...stdout.matchAll(/^ {15}([0-9a-f-]{36}) {2}(.+)$/gm)].map(([, id, name]) => ({ id, name }))

  it("seeds the demo data on an empty database and prints the URL, the login, the API key once and the companies' ids", async () => {
    const first = await startAndStop({ ...env, METRICS_PORT: String(await freePort()) })
    expect(first.health, first.stdout + first.stderr).toBe(200)
    // The API's and the worker's figures on the one endpoint (the seed's scoring counted).
    expect(first.metrics).toMatch(/^http_server_request_duration_seconds_count\{http_route="\/health",/m)
    expect(first.metrics).toMatch(/^webhook_deliveries_total\{outcome="delivered"\} /m)
    expect(first.metrics).toMatch(/^scoring_pairs_total [1-9]/m)
    expect(first.stdout).toContain(`URL:       ${env.PUBLIC_BASE_URL}`)
    expect(first.stdout).toContain(`Login:     ${DEMO_EMAIL} / ${DEMO_PASSWORD}`)
    // Live ingestion is off unless asked for, and the banner says how to turn it on.
    expect(first.stdout).toContain("Ingestion: off (INGEST_SOURCES=ted,seap")
    const key = /API key:\s+(svc_[0-9a-f]{64})/.exec(first.stdout)?.[1]
    expect(key, first.stdout + first.stderr).toBeDefined()
    expect(first.code).toBe(0)
    // CI's smoke test greps this exact prefix.
    expect(first.stdout).toContain("    API key:   svc_")
    // The demo companies' ids, so /api/v1/tenders?companyId=… can be called with the key at once.
    const companies = bannerCompanies(first.stdout)
    expect(companies.map((c) => c.name)).toEqual(
      DEMO_COMPANIES.map((c) => c.name).sort((a, b) => a.localeCompare(b, "ro"))
    )

    const second = await startAndStop(env)
    expect(second.health).toBe(200)
    expect(second.stdout).toContain(`Login:     ${DEMO_EMAIL} / ${DEMO_PASSWORD}`)
    expect(second.stdout).toContain("shown at the first start")
    expect(second.stdout).not.toMatch(/svc_[0-9a-f]{64}/)
    // Later starts: how to find the tenant id, and the same companies, read from the database.
    expect(second.stdout).toContain("npm run -s cli -- tenant list")
    expect(bannerCompanies(second.stdout)).toEqual(companies)

    // Seeded once: one tenant, the demo tenders once.
    const [counts] = await runtime.runPromise(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ tenants: number; tenders: number }>`
          SELECT (SELECT count(*)::int FROM tenants) AS tenants,
                 (SELECT count(*)::int FROM tenders WHERE source = 'demo') AS tenders`
      ).pipe(Effect.orDie)
    )
    expect(counts).toEqual({ tenants: 1, tenders: Effect.runSync(readDemoNotices).length })
    const [ids] = await runtime.runPromise(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ ids: Array<string> }>`SELECT array_agg(id::text) AS ids FROM companies`
      ).pipe(Effect.orDie)
    )
    expect(new Set(companies.map((c) => c.id))).toEqual(new Set(ids!.ids))
  })

  it("an invalid INGEST_* variable stops the start with its one line and exit code 1, as in a worker", async () => {
    const { code, stderr } = await failedStart({
      ...env,
      PORT: String(await freePort()),
      REDIS_URL: "",
      INGEST_SOURCES: "ted,foo"
    })
    expect(code, stderr).toBe(1)
    expect(stderr.trim()).toBe("Invalid configuration: INGEST_SOURCES: Expected a comma list of ted, seap (or none)")
  }, 120_000)

  it("a PORT already taken on the first start: one line naming PORT, and the seeded demo key is not lost", async () => {
    const fresh = ManagedRuntime.make(TestDatabaseLive)
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as net.AddressInfo).port
    try {
      const { code, stderr } = await failedStart({
        DATABASE_URL: await fresh.runPromise(TestDatabaseUrl),
        DATA_DIR: dataDir,
        PORT: String(port),
        REDIS_URL: "",
        LOG_LEVEL: "warn"
      })
      expect(code, stderr).toBe(1)
      expect(stderr).toContain(`Cannot listen on HOST 127.0.0.1 / PORT ${port}: listen EADDRINUSE`)
      expect(stderr).toMatch(
        /The demo data was seeded before the start failed\. Its API key \(shown only now\): svc_[0-9a-f]{64}/
      )
      expect(stderr).not.toMatch(/\n\s+at /)
    } finally {
      taken.close()
      await fresh.dispose()
    }
  }, 180_000)
})
