import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Redacted, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { startEmbeddedPostgres } from "../../src/infra/db/EmbeddedPostgres.js"
import { expectJson, PROJECT_ROOT, runBundledCli } from "./processes.js"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const query = (url: Redacted.Redacted, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url, maxConnections: 1 })),
      Effect.scoped
    )
  )

/** Starts the embedded cluster in its own scope; closing the scope stops it. */
const start = async (dataDir: string, port: number) => {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(
    startEmbeddedPostgres({ dataDir, port, database: "tenders" }).pipe(Scope.extend(scope))
  )
  return { url, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

describe("embedded PostgreSQL", () => {
  const dirs: Array<string> = []
  const tempDir = async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tss-embedded-"))
    dirs.push(dir)
    return dir
  }
  afterAll(async () => {
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true })
  })

  it("boots in an empty data folder on a free port, stops cleanly, and restarts on the same data", async () => {
    const dataDir = await tempDir()
    const port = await freePort()

    // Initialised without a locale in the environment (initdb would then pick SQL_ASCII): still UTF-8.
    const locale = Object.entries(process.env).filter(([name]) => name === "LANG" || name.startsWith("LC_"))
    for (const [name] of locale) delete process.env[name]
    const first = await start(dataDir, port).finally(() => {
      for (const [name, value] of locale) process.env[name] = value
    })
    expect(Redacted.value(first.url)).toContain(`127.0.0.1:${port}/tenders`)
    expect(await query(first.url, "SELECT current_setting('server_encoding') AS encoding")).toEqual([
      { encoding: "UTF8" }
    ])
    await query(first.url, "CREATE TABLE kept (note text)")
    await query(first.url, "INSERT INTO kept VALUES ('survives a restart')")
    const version = await fs.readFile(path.join(dataDir, "pg", "PG_VERSION"), "utf8")
    await first.stop()
    expect(await accepts(port)).toBe(false)

    const second = await start(dataDir, port)
    try {
      expect(await query(second.url, "SELECT note FROM kept")).toEqual([{ note: "survives a restart" }])
      // Not initialised again: the same cluster.
      expect(await fs.readFile(path.join(dataDir, "pg", "PG_VERSION"), "utf8")).toBe(version)
    } finally {
      await second.stop()
    }
    expect(await accepts(port)).toBe(false)
  })

  it("the ops CLI uses the embedded cluster that a running service holds, instead of failing on its port", async () => {
    const dataDir = await tempDir()
    const port = await freePort()
    const running = await start(dataDir, port)
    try {
      const result = await runBundledCli(["tenant", "create", "--name", "Alături", "--plan", "free"], {
        DATABASE_URL: undefined,
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(port)
      })
      const { tenantId } = expectJson(result)
      expect(await query(running.url, `SELECT name FROM tenants WHERE id = '${tenantId}'`)).toEqual([
        { name: "Alături" }
      ])
    } finally {
      await running.stop()
    }
  })

  it("a start that finds its folder's cluster still running (a killed start left it) uses it and leaves it running", async () => {
    const dataDir = await tempDir()
    const port = await freePort()
    const left = await start(dataDir, port)
    try {
      await query(left.url, "CREATE TABLE kept (note text)")
      const again = await start(dataDir, port)
      expect(Redacted.value(again.url)).toBe(Redacted.value(left.url))
      expect(await query(again.url, "SELECT count(*)::int AS n FROM kept")).toEqual([{ n: 0 }])
      // Not this start's cluster: stopping it leaves the cluster running.
      await again.stop()
      expect(await accepts(port)).toBe(true)
    } finally {
      await left.stop()
    }
    expect(await accepts(port)).toBe(false)
  })

  it("a taken port is reported clearly, naming the port and the variable to change", async () => {
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const { port } = blocker.address() as net.AddressInfo
    try {
      const dataDir = await tempDir()
      const exit = await Effect.runPromiseExit(
        startEmbeddedPostgres({ dataDir, port, database: "tenders" }).pipe(Effect.scoped)
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(error?._tag).toBe("EmbeddedPostgresError")
        expect(error?.message).toContain(`Port ${port}`)
        expect(error?.message).toContain("EMBEDDED_PG_PORT")
      }
    } finally {
      blocker.close()
    }
  })

  it("npm start on a fresh data folder: SIGTERM lets the request in flight finish, stops the cluster, exits 0", async () => {
    const dataDir = await tempDir()
    const [port, pgPort] = [await freePort(), await freePort()]
    const env: Record<string, string> = { ...(process.env as Record<string, string>) }
    delete env.DATABASE_URL
    delete env.REDIS_URL
    // As `npm start` runs it: the launcher (which runs initdb on a fresh folder) and the bundle.
    const child = spawn(process.execPath, ["src/bin/launch.mjs", "all-in-one"], {
      cwd: PROJECT_ROOT,
      env: { ...env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    try {
      const deadline = Date.now() + 200_000
      while (
        !(await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.ok,
          () => false
        ))
      ) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`)
        await new Promise((r) => setTimeout(r, 300))
      }
      // A login whose body is half sent when SIGTERM arrives.
      const body = JSON.stringify({ email: "nobody@example.com", password: "not the password" })
      const socket = net.connect(port, "127.0.0.1")
      await new Promise((r) => socket.once("connect", r))
      let answer = ""
      socket.on("data", (chunk) => (answer += chunk))
      const closed = new Promise((r) => socket.once("close", r))
      socket.write(
        `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`
      )
      await new Promise((r) => setTimeout(r, 300))
      child.kill("SIGTERM")
      await new Promise((r) => setTimeout(r, 500))
      socket.write(body.slice(10))
      await closed
      expect(answer.split("\r\n")[0], output).toBe("HTTP/1.1 401 Unauthorized")
      expect(await exited, output).toBe(0)
      // The cluster went down with it.
      expect(await accepts(pgPort)).toBe(false)
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL")
    }
  }, 240_000)
})
