/**
 * `npm run bench -- country`: a Romania-sized day on one PostgreSQL.
 *
 * 1. A fresh database (on the server of DATABASE_URL), migrated, with COUNTRY_COMPANIES (20,000)
 *    companies of 3 watchlists each over Consultant tenants of 100 companies (bench/ScoringPopulation.ts),
 *    one API key and a large balance per tenant, and an award history of one award per 2.5 companies.
 *    That population is the template of each run.
 * 2. For 1 and then 2 worker processes (COUNTRY_WORKERS, default "1,2"), on a copy of the template:
 *    the real `src/bin/api.ts` and the workers (`src/bin/worker.ts`) start; a day of COUNTRY_NOTICES
 *    (5,000) contract notices arrives in 96 batches (one per quarter hour) compressed into
 *    COUNTRY_DAY_SECONDS (60): each batch is stored (TenderStore, as an importer or a poller does)
 *    and queued as one `tenders.score` job on the real queue, which the workers claim. Meanwhile
 *    COUNTRY_READERS (4) connections read company lists through the key API (page 1, limit 20) at
 *    COUNTRY_READS_PER_SECOND (20) in all: the consultants' daytime reading, not a saturating load.
 * 3. Reported: wall time from the first batch to the last job done, each batch's time in the
 *    queue (enqueued to done), pairs kept, the bytes the day added (tables that grow per pair, with
 *    their indexes and partitions), list p50/p99 while it ran. Written to .bench-out/country.json;
 *    BENCHMARKS.md ("Country scale") has the figures and the extrapolation to 100,000 companies.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { Agent, request } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { generateApiKey, hashApiKey, maskApiKey } from "../src/domain/ApiKey.js"
import type { Tender } from "../src/domain/tenders/TenderRecord.js"
import { CreditLedger, CreditLedgerLive } from "../src/infra/billing/CreditLedger.js"
import { migrate } from "../src/infra/DatabaseSetup.js"
import { PgLive } from "../src/infra/db/PgPool.js"
import { JobQueue, JobQueueLive } from "../src/infra/queue/JobQueue.js"
import { ScoreTenders } from "../src/infra/scoring/ScoringJobKinds.js"
import { TenderStore, TenderStoreLive } from "../src/infra/tenders/TenderStore.js"
import { deployedCommand } from "../test/support/DeployedCommand.js"
import { admin, databaseUrl as databaseUrlOf, freePort, stopProcessGroup } from "./BenchSupport.js"
import { seedPopulation } from "./ScoringPopulation.js"

const COMPANIES = Number(process.env.COUNTRY_COMPANIES ?? 20_000)
const COMPANIES_PER_TENANT = 100
const NOTICES = Number(process.env.COUNTRY_NOTICES ?? 5_000)
const BATCHES = 96
const DAY_SECONDS = Number(process.env.COUNTRY_DAY_SECONDS ?? 60)
const READERS = Number(process.env.COUNTRY_READERS ?? 4)
const READS_PER_SECOND = Number(process.env.COUNTRY_READS_PER_SECOND ?? 20)
const WORKER_COUNTS = (process.env.COUNTRY_WORKERS ?? "1,2").split(",").map(Number)
/** The day simulated (its notices' publication dates). */
const DAY = Date.UTC(2026, 10, 26, 6)
/** Tables that grow with the pairs a day scores. */
const GROWING_TABLES = ["tender_scores", "tender_score_history", "alerts", "match_events", "webhook_deliveries"]

const log = (line: string) => console.log(`[bench country] ${line}`)
const seconds = (ms: number) => Number((ms / 1000).toFixed(1))

/** Runs an Effect on the database at `url` with the repositories the bench drives. */
const runOn = <A, E>(url: string, effect: Effect.Effect<A, E, any>) =>
  Effect.runPromise(
    (effect as Effect.Effect<A, E, never>).pipe(
      Effect.provide(
        Layer.mergeAll(TenderStoreLive, JobQueueLive, CreditLedgerLive).pipe(
          Layer.provideMerge(PgLive({ url: Redacted.make(url), maxConnections: 4 })),
          Layer.orDie
        )
      ),
      Effect.scoped
    ) as Effect.Effect<A, E, never>
  )

const query = async <Row>(url: string, text: string, values: ReadonlyArray<unknown> = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, [...values])).rows as Array<Row>
  } finally {
    await client.end()
  }
}

const children: Array<ChildProcess> = []
/** A process of the service; with `cpuProfileDir`, it writes a V8 CPU profile there when it stops. */
/** Starts `npm run api` or `npm run worker` as deployed (the launcher's bundle, the script's options). */
const startProcess = (script: "api" | "worker", env: Record<string, string>, cpuProfileDir?: string) => {
  const profiling = cpuProfileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${path.resolve(cpuProfileDir)}`]
  const child = spawn(process.execPath, [...profiling, ...deployedCommand(script)], {
    env: { ...process.env, ...env, LOG_LEVEL: "Warn" },
    detached: true,
    stdio: ["ignore", "inherit", "inherit"]
  })
  children.push(child)
  return child
}

/** The population, once: the template database of every run; returns the day's notices, batch by batch. */
const populate = async (url: string): Promise<ReadonlyArray<ReadonlyArray<Tender>>> =>
  runOn(
    url,
    Effect.gen(function* () {
      yield* migrate
      const { makeTender } = yield* seedPopulation({
        companies: COMPANIES,
        tenants: Math.ceil(COMPANIES / COMPANIES_PER_TENANT),
        watchlistsPerCompany: 3,
        authorities: 2_000
      })
      const store = yield* TenderStore
      const awards = Math.round(COMPANIES / 2.5)
      for (let i = 0; i < awards; i += 1_000) {
        yield* store.upsert(
          Array.from({ length: Math.min(1_000, awards - i) }, (_, n) =>
            makeTender(i + n, "award", new Date(2026, 0, 1))
          )
        )
      }
      const ledger = yield* CreditLedger
      const tenants = yield* (yield* SqlClient.SqlClient)<{ id: string }>`SELECT id FROM tenants`
      yield* Effect.forEach(tenants, (t) =>
        ledger.set({ tenantId: t.id, remaining: 2_000_000_000, reason: "benchmark balance" })
      )
      yield* (yield* SqlClient.SqlClient)`ANALYZE`
      // A batch per quarter hour of the day, each published at its quarter hour.
      const perBatch = Math.ceil(NOTICES / BATCHES)
      return Array.from({ length: BATCHES }, (_, b) =>
        Array.from({ length: Math.max(0, Math.min(perBatch, NOTICES - b * perBatch)) }, (_, i) =>
          makeTender(b * perBatch + i, "contract", new Date(DAY + b * 15 * 60_000))
        )
      ).filter((batch) => batch.length > 0)
    })
  )

/** One key per tenant (only hashes are stored) and each tenant's companies. */
const issueKeys = async (url: string) => {
  const tenants = await query<{ id: string; companies: Array<string> }>(
    url,
    "SELECT tenant_id AS id, array_agg(id) AS companies FROM companies GROUP BY tenant_id"
  )
  const keys: Array<{ key: string; companies: ReadonlyArray<string> }> = []
  for (const tenant of tenants) {
    const key = generateApiKey()
    await query(url, "INSERT INTO api_keys (tenant_id, name, key_hash, display_prefix) VALUES ($1, 'bench', $2, $3)", [
      tenant.id,
      hashApiKey(key),
      maskApiKey(key)
    ])
    keys.push({ key, companies: tenant.companies })
  }
  return keys
}

/** Bytes of the growing tables with their indexes, TOAST and partitions (a partitioned parent holds none itself). */
const bytesOfGrowingTables = async (url: string) => {
  const [row] = await query<{ bytes: string }>(
    url,
    `WITH RECURSIVE tree AS (
       SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relname = ANY($1::text[])
       UNION ALL
       SELECT i.inhrelid FROM pg_inherits i JOIN tree t ON i.inhparent = t.oid
     )
     SELECT coalesce(sum(pg_total_relation_size(oid)), 0)::bigint::text AS bytes FROM tree`,
    [GROWING_TABLES]
  )
  return Number(row!.bytes)
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** READERS readers of page 1 of the companies' lists, READS_PER_SECOND in all, until `stop` resolves. */
const readLists = async (
  baseUrl: string,
  keys: ReadonlyArray<{ key: string; companies: ReadonlyArray<string> }>,
  stop: Promise<void>
) => {
  const agent = new Agent({ keepAlive: true, maxSockets: READERS })
  const url = new URL(baseUrl)
  const latencies: Array<number> = []
  let errors = 0
  let stopped = false
  void stop.then(() => {
    stopped = true
  })
  const get = (pathAndQuery: string, key: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        { agent, host: url.hostname, port: url.port, path: pathAndQuery, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          res.resume()
          res.on("end", () => resolve(res.statusCode ?? 0))
          res.on("error", reject)
        }
      )
      req.on("error", reject)
      req.end()
    })
  let n = 0
  // Each reader sends one request per interval (or at once when the last took longer).
  const interval = (READERS * 1000) / READS_PER_SECOND
  await Promise.all(
    Array.from({ length: READERS }, async () => {
      for (let next = performance.now(); !stopped; next += interval) {
        const wait = next - performance.now()
        if (wait > 0) await new Promise((r) => setTimeout(r, wait))
        else next = performance.now()
        const tenant = keys[n++ % keys.length]!
        const company = tenant.companies[n % tenant.companies.length]!
        const started = performance.now()
        const status = await get(`/api/v1/tenders?companyId=${company}&limit=20`, tenant.key).catch(() => 0)
        if (status === 200) latencies.push(performance.now() - started)
        else errors++
      }
    })
  )
  agent.destroy()
  latencies.sort((a, b) => a - b)
  return { requests: latencies.length, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}

const waitForHealth = async (baseUrl: string, child: ChildProcess) => {
  for (let i = 0; i < 900; i++) {
    if (child.exitCode !== null) throw new Error(`the API process exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) })).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error("the API process did not become healthy")
}

/** The day, with `workers` worker processes, on a fresh copy of the template. */
const runDay = async (template: string, workers: number, day: ReadonlyArray<ReadonlyArray<Tender>>) => {
  const name = `${template}_w${workers}`
  await admin(`CREATE DATABASE "${name}" TEMPLATE "${template}"`)
  const url = databaseUrlOf(name)
  try {
    const keys = await issueKeys(url)
    const env = {
      DATABASE_URL: url,
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      MASTER_KEY: randomBytes(32).toString("hex"),
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "tss-country-")),
      RATE_LIMIT_GENERAL_PER_MINUTE: "600000"
    }
    const port = await freePort()
    const api = startProcess("api", { ...env, PORT: String(port), HOST: "127.0.0.1" })
    const baseUrl = `http://127.0.0.1:${port}`
    await waitForHealth(baseUrl, api)
    // COUNTRY_WORKER_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it stops.
    const started = Array.from({ length: workers }, () =>
      startProcess("worker", env, process.env.COUNTRY_WORKER_CPU_PROF)
    )
    const bytesBefore = await bytesOfGrowingTables(url)
    const [{ pairs: pairsBefore }] = await query<{ pairs: number }>(
      url,
      "SELECT count(*)::int AS pairs FROM tender_scores"
    )

    let endReading: () => void = () => {}
    const reading = readLists(baseUrl, keys, new Promise<void>((resolve) => (endReading = resolve)))
    const dayStart = performance.now()
    await runOn(
      url,
      Effect.gen(function* () {
        const store = yield* TenderStore
        const queue = yield* JobQueue
        for (const [b, batch] of day.entries()) {
          const wait = dayStart + (b * DAY_SECONDS * 1000) / day.length - performance.now()
          if (wait > 0) yield* Effect.sleep(wait)
          const stored = yield* store.upsert(batch)
          yield* queue.enqueue(ScoreTenders, { tenderIds: stored.inserted, isNew: stored.inserted })
        }
      })
    )
    const arrived = performance.now()
    for (;;) {
      const [{ pending }] = await query<{ pending: number }>(
        url,
        "SELECT count(*)::int AS pending FROM jobs WHERE kind = 'tenders.score' AND status IN ('queued', 'running')"
      )
      if (pending === 0) break
      if (started.every((child) => child.exitCode !== null)) throw new Error("every worker process exited")
      await new Promise((r) => setTimeout(r, 250))
    }
    const drained = performance.now()
    endReading()
    const lists = await reading
    const [{ pairs: pairsAfter }] = await query<{ pairs: number }>(
      url,
      "SELECT count(*)::int AS pairs FROM tender_scores"
    )
    const [{ alerts }] = await query<{ alerts: number }>(url, "SELECT count(*)::int AS alerts FROM alerts")
    const bytesAfter = await bytesOfGrowingTables(url)
    const queued = (
      await query<{ s: number }>(
        url,
        `SELECT extract(epoch FROM updated_at - created_at)::float8 AS s FROM jobs
         WHERE kind = 'tenders.score' AND status = 'done' ORDER BY 1`
      )
    ).map((row) => row.s)
    const dead = await query(url, "SELECT id FROM jobs WHERE kind = 'tenders.score' AND status = 'dead'")
    await Promise.all([api, ...started].map((child) => stopProcessGroup(child)))
    const pairs = pairsAfter - pairsBefore
    const bytes = bytesAfter - bytesBefore
    return {
      workers,
      companies: COMPANIES,
      notices: NOTICES,
      day_compressed_to_s: DAY_SECONDS,
      wall_s: seconds(drained - dayStart),
      drained_after_last_arrival_s: seconds(drained - arrived),
      batch_in_queue_p50_s: Number(percentile(queued, 50).toFixed(1)),
      batch_in_queue_max_s: Number((queued[queued.length - 1] ?? 0).toFixed(1)),
      dead_jobs: dead.length,
      pairs_kept: pairs,
      pairs_per_notice: Number((pairs / NOTICES).toFixed(1)),
      kept_share: Number((pairs / (NOTICES * COMPANIES)).toFixed(4)),
      scoring_pairs_per_s: Math.round(pairs / ((drained - dayStart) / 1000)),
      alerts,
      bytes_per_day: bytes,
      bytes_per_pair: Math.round(bytes / Math.max(1, pairs)),
      list_requests: lists.requests,
      list_errors: lists.errors,
      list_p50_ms: Number(lists.p50.toFixed(1)),
      list_p99_ms: Number(lists.p99.toFixed(1))
    }
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  }
}

const main = async () => {
  const template = `tss_bench_country_${randomBytes(4).toString("hex")}`
  await admin(`CREATE DATABASE "${template}"`)
  try {
    const started = performance.now()
    const day = await populate(databaseUrlOf(template))
    log(`population: ${COMPANIES} companies in ${seconds(performance.now() - started)} s`)
    const results = []
    for (const workers of WORKER_COUNTS) {
      const result = await runDay(template, workers, day)
      log(JSON.stringify(result))
      results.push(result)
    }
    const out = path.resolve(".bench-out")
    fs.mkdirSync(out, { recursive: true })
    fs.writeFileSync(
      path.join(out, "country.json"),
      `${JSON.stringify({ at: new Date().toISOString(), cores: os.availableParallelism(), results }, null, 2)}\n`
    )
    log(`wrote ${path.join(out, "country.json")}`)
  } finally {
    await Promise.all(children.map((child) => stopProcessGroup(child)))
    await admin(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`)
  }
}

// Interrupted (Ctrl-C): the API and workers are detached process groups; stop them too.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void Promise.all(children.map((child) => stopProcessGroup(child, 2_000))).then(() => process.exit(130))
  })
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
