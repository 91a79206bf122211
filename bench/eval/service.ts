/**
 * The service as a user meets it: a fresh database on the server of DATABASE_URL, the real CLI
 * (`src/bin/cli.ts`), the real API and worker processes (`src/bin/api.ts`, `src/bin/worker.ts`).
 * The three entry points are bundled once with esbuild, exactly as `npm start` bundles its own
 * (src/bin/launch.mjs), because loading the Effect packages file by file under tsx costs seconds a
 * call on this machine. The harness reads the database only to wait for the worker's queue to drain
 * and to report how many CPV class affinities the service learned; it writes it only for the
 * `EVAL_AFFINITY=off` run (bench/eval.ts), which empties the learned table.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { ADMIN_URL, admin, freePort } from "../BenchSupport.js"
import { bundleLikeTheService } from "../Bundle.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
/** Two levels below the root, like dist/bin, so src/infra/ProjectFiles.ts finds the project's files. */
export const OUT = path.join(ROOT, ".bench-out", "eval")

export const log = (line: string) => console.error(`[eval ${new Date().toISOString().slice(11, 19)}] ${line}`)

export const bundle = async () => {
  fs.mkdirSync(OUT, { recursive: true })
  await bundleLikeTheService({
    entryPoints: ["cli", "api", "worker"].map((name) => ({
      in: path.join(ROOT, "src", "bin", `${name}.ts`),
      out: name
    })),
    outdir: OUT,
    outExtension: { ".js": ".mjs" }
  })
}

/** One running service: its database, API and worker processes, and the CLI pointed at it. */
export interface Service {
  readonly databaseUrl: string
  readonly baseUrl: string
  readonly cli: (args: ReadonlyArray<string>) => Promise<any>
  readonly http: (method: string, route: string, token: string, body?: unknown) => Promise<any>
  /** One statement on the service's database (the harness's own reads, and the EVAL_AFFINITY=off switch). */
  readonly query: <A extends object>(statement: string) => Promise<Array<A>>
  /** Resolves once no job is queued or running (the worker's rescores are done). */
  readonly drained: () => Promise<void>
  readonly stop: () => Promise<void>
}

export const startService = async (name: string): Promise<Service> => {
  const database = `eval_${name}_${process.pid}`
  const u = new URL(ADMIN_URL)
  u.pathname = `/${database}`
  const databaseUrl = u.toString()
  await admin(`DROP DATABASE IF EXISTS ${database}`)
  await admin(`CREATE DATABASE ${database}`)
  const dataDir = path.join(OUT, `data-${name}`)
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.mkdirSync(dataDir, { recursive: true })
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: "Warn",
    RATE_LIMIT_GENERAL_PER_MINUTE: "1000000"
  }

  const cli = (args: ReadonlyArray<string>) =>
    new Promise<any>((resolve, reject) => {
      execFile(
        process.execPath,
        [path.join(OUT, "cli.mjs"), ...args],
        { env, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error) return reject(new Error(`cli ${args.slice(0, 2).join(" ")}: ${stderr.trim() || error.message}`))
          try {
            resolve(JSON.parse(stdout))
          } catch {
            reject(new Error(`cli ${args.slice(0, 2).join(" ")}: not JSON: ${stdout.slice(0, 200)}`))
          }
        }
      )
    })

  // Migrations first, so the API and the worker start on a migrated database.
  await cli(["migrate"])

  const children: Array<ChildProcess> = []
  const port = await freePort()
  const startChild = (entry: string) => {
    const child = spawn(process.execPath, [path.join(OUT, `${entry}.mjs`)], {
      env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
      detached: true,
      stdio: ["ignore", "ignore", "inherit"]
    })
    children.push(child)
    return child
  }
  const api = startChild("api")
  startChild("worker")
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 180_000
  for (;;) {
    if (api.exitCode !== null) throw new Error(`api exited with ${api.exitCode}`)
    try {
      if ((await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) })).ok) break
    } catch {}
    if (Date.now() > deadline) throw new Error("api did not become healthy")
    await new Promise((r) => setTimeout(r, 250))
  }

  const http = async (method: string, route: string, token: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`)
    return text === "" ? null : JSON.parse(text)
  }

  const drained = async () => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      const until = Date.now() + 600_000
      for (;;) {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running')"
        )
        if (rows[0]!.n === 0) return
        if (Date.now() > until) throw new Error(`${rows[0]!.n} jobs still pending after 10 minutes`)
        await new Promise((r) => setTimeout(r, 500))
      }
    } finally {
      await client.end()
    }
  }

  const query = async <A extends object>(statement: string) => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      return (await client.query(statement)).rows as Array<A>
    } finally {
      await client.end()
    }
  }

  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.pid === undefined || child.exitCode !== null) return resolve()
            child.once("exit", () => resolve())
            try {
              process.kill(-child.pid, "SIGTERM")
            } catch {
              resolve()
            }
          })
      )
    )
    if (process.env.EVAL_KEEP_DB !== "1") await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  }

  return { databaseUrl, baseUrl, cli, http, query, drained, stop }
}

/** Runs `work` over `items`, `concurrency` at a time, results in input order. */
export const mapLimit = async <A, B>(items: ReadonlyArray<A>, concurrency: number, work: (a: A) => Promise<B>) => {
  const results: Array<B> = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        results[i] = await work(items[i]!)
      }
    })
  )
  return results
}

/** A tenant on the Consultant plan with an API key and a large credit balance, all through the CLI. */
export const consultantTenant = async (service: Service, name: string) => {
  const { tenantId } = await service.cli(["tenant", "create", "--name", name, "--plan", "consultant"])
  const { key } = await service.cli(["apikey", "create", "--tenant", tenantId, "--name", "eval"])
  await service.cli(["credits", "set", "--tenant", tenantId, "--remaining", "1000000000"])
  return { tenantId: tenantId as string, apiKey: key as string }
}

export interface ListedTender {
  readonly tender_id: string
  readonly title: string
  readonly score: number
  readonly publish_date: string
  readonly source_url: string
}

/**
 * The key API's order (score desc, publish date desc, tender id) with the notice number in place of
 * the tender id: ids are drawn afresh in every evaluation database, so ties on score and date would
 * fall differently in two runs of the same data; notice numbers are the data's own.
 */
export const inStableOrder = (items: ReadonlyArray<ListedTender>): Array<ListedTender> =>
  [...items].sort(
    (a, b) =>
      b.score - a.score || b.publish_date.localeCompare(a.publish_date) || noticeNoOf(a).localeCompare(noticeNoOf(b))
  )

/** A company's whole tender list, best first (inStableOrder), following `next_cursor` (GET /api/v1/tenders). */
export const fullList = async (service: Service, apiKey: string, companyId: string) => {
  const items: Array<ListedTender> = []
  let cursor: string | null = null
  do {
    const query: string = `/api/v1/tenders?companyId=${companyId}&limit=100${cursor ? `&cursor=${cursor}` : ""}`
    const page: any = await service.http("GET", query, apiKey)
    items.push(...page.data)
    cursor = page.meta.next_cursor
  } while (cursor)
  return inStableOrder(items)
}

/** The notice number an open notice was made from, read back from its source URL. */
export const noticeNoOf = (item: ListedTender) => item.source_url.slice(item.source_url.lastIndexOf("/") + 1)
