/**
 * `npm run bench -- soak [--duration <seconds>]`: mixed traffic for a long run against the real API
 * and worker processes, while the worker scores newly imported notices and delivers webhooks.
 *
 * 1. A fresh database on the server of DATABASE_URL (default the local postgres), migrated: 4
 *    Consultant tenants, each with a user (real Argon2 hash), an API key, the two demo companies with
 *    their watchlists (which queue the companies' first rescoring), 10,000,000 credits; 2,400 demo
 *    tenders stored through TenderStore as an import does.
 * 2. The real `src/bin/api.ts` and `src/bin/worker.ts` (Redis when REDIS_URL is set; rate limits
 *    raised so the measurement is of the service, not of the limiter); a local HTTPS receiver
 *    (test/support/HttpsReceiver.ts, trusted through NODE_EXTRA_CA_CERTS) with one webhook per
 *    tenant registered through the API.
 * 3. Capacity: the mix below in a closed loop at 32 connections for SOAK_CAPACITY_SECONDS (15).
 * 4. Soak: the same mix offered open-loop at SOAK_LOAD (0.7) of that capacity for the duration
 *    (`--duration`, else SOAK_DURATION_SECONDS, else 600 s), while every 5 s 25 new notices are
 *    imported (TenderStore.upsert + a `tenders.score` job, as `tenders import` stores them): the
 *    worker scores them, raises alerts and events, and delivers `tender.matched` to the receiver.
 *    Mix: tender list page 1 (45%) and the next page (15%), a score (20%), an export page (JSON or
 *    CSV, 8%), a login (5%), a webhook registered and deleted again (7%).
 * 5. Report (JSON on stdout): per route count, errors (any unexpected status or network error),
 *    p50/p99; credits drift per tenant (counter minus ledger sum for the period, must be 0) and the
 *    credits the ledger charged against the X-API-Credits-Cost the clients were told; RSS of the API
 *    and worker processes at the start and end of the soak (and the highest seen); the worker's
 *    output (jobs, scores, alerts, deliveries by status, requests at the receiver, bad signatures).
 * The database is dropped and the processes stopped at the end.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHmac, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { Agent, request } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { Clock, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import pg from "pg"
import { DEMO_COMPANIES } from "../src/demo/DemoData.js"
import { planRules } from "../src/domain/Plan.js"
import { normalizeAuthorityName } from "../src/domain/tenders/RomanianText.js"
import type { Tender } from "../src/domain/tenders/TenderRecord.js"
import { CompaniesRepo } from "../src/infra/accounts/CompaniesRepo.js"
import { TenantsRepo } from "../src/infra/accounts/TenantsRepo.js"
import { UsersRepo } from "../src/infra/accounts/UsersRepo.js"
import { WatchlistsRepo } from "../src/infra/accounts/WatchlistsRepo.js"
import { ApiKeysRepo } from "../src/infra/auth/ApiKeysRepo.js"
import { CreditLedger } from "../src/infra/billing/CreditLedger.js"
import { migrate } from "../src/infra/DatabaseSetup.js"
import { PgLive } from "../src/infra/db/PgPool.js"
import { JobQueue } from "../src/infra/queue/JobQueue.js"
import { RepositoriesLive } from "../src/infra/Repositories.js"
import { ScoreTenders } from "../src/infra/scoring/ScoringJobKinds.js"
import { readCpvTable } from "../src/infra/tenders/CpvTable.js"
import { TenderStore } from "../src/infra/tenders/TenderStore.js"
import { deployedCommand } from "../test/support/DeployedCommand.js"
import { startHttpsReceiver } from "../test/support/HttpsReceiver.js"
import { admin, databaseUrl as databaseUrlOf, freePort, stopProcessGroup } from "./BenchSupport.js"
import { generateSyntheticTenders, type SyntheticTender } from "./SyntheticTenders.js"

const durationArg = process.argv.indexOf("--duration")
const DURATION_S = Number(durationArg > 0 ? process.argv[durationArg + 1] : (process.env.SOAK_DURATION_SECONDS ?? 600))
const CAPACITY_S = Number(process.env.SOAK_CAPACITY_SECONDS ?? 15)
const LOAD = Number(process.env.SOAK_LOAD ?? 0.7)
const TENANTS = 4
const PASSWORD = "soak-password-2026"
const CAPACITY_CONNECTIONS = 32
const MAX_IN_FLIGHT = 256
const FEED_EVERY_MS = 5_000
const FEED_TENDERS = 25
const WEBHOOK_SECRET = randomBytes(24).toString("base64url")

if (!Number.isFinite(DURATION_S) || DURATION_S <= 0) {
  console.error(`--duration must be a positive number of seconds, got ${process.argv[durationArg + 1]}`)
  process.exit(2)
}

const log = (line: string) => console.error(`[bench soak] ${line}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// Data, through the service's own repositories.

interface TenantFixture {
  readonly tenantId: string
  readonly email: string
  readonly key: string
  readonly companyIds: ReadonlyArray<string>
}

const asTender = (demo: SyntheticTender, noticeId: string): Tender => ({
  source: "soak",
  sourceNoticeId: noticeId,
  noticeType: "contract",
  title: demo.title,
  description: demo.description,
  mainCpv: demo.mainCpv,
  additionalCpvs: demo.additionalCpvs,
  authority: {
    name: demo.authority.name,
    normalizedName: normalizeAuthorityName(demo.authority.name),
    fiscalCode: null,
    county: demo.authority.county
  },
  deadline: demo.deadline,
  estimatedValueRon: demo.estimatedValueRon,
  estimatedValueEur: demo.estimatedValueEur,
  publishDate: demo.publishDate,
  sourceUrl: `${demo.sourceUrl}#${noticeId}`,
  winnerFiscalCodes: []
})

const seedTenants = Effect.gen(function* () {
  const tenants = yield* TenantsRepo
  const users = yield* UsersRepo
  const companies = yield* CompaniesRepo
  const watchlists = yield* WatchlistsRepo
  const keys = yield* ApiKeysRepo
  const ledger = yield* CreditLedger
  const fixtures: Array<TenantFixture> = []
  for (let t = 0; t < TENANTS; t++) {
    const tenant = yield* tenants.create({ name: `Soak tenant ${t}`, plan: "consultant" })
    const email = `soak-${t}@example.test`
    yield* users.create({ tenantId: tenant.id, email, password: PASSWORD })
    const companyIds: Array<string> = []
    for (const demo of DEMO_COMPANIES) {
      const company = yield* companies.create({
        tenantId: tenant.id,
        name: `${demo.name} ${t}`,
        description: demo.description,
        fiscalCode: null
      })
      companyIds.push(company.id)
      for (const w of demo.watchlists) {
        yield* watchlists.create({
          tenantId: tenant.id,
          limit: planRules.consultant.watchlistLimit,
          fields: { ...w, authorityId: null, companyId: company.id }
        })
      }
    }
    const { key } = yield* keys.create({ tenantId: tenant.id, name: "soak" })
    yield* ledger.set({ tenantId: tenant.id, remaining: 10_000_000, reason: "soak" })
    fixtures.push({ tenantId: tenant.id, email, key, companyIds })
  }
  const catalog = yield* readCpvTable
  const demo = generateSyntheticTenders({ catalog, now: yield* Clock.currentTimeMillis })
  yield* (yield* TenderStore).upsert(demo.map((d, i) => asTender(d, `SOAK-BASE-${i}`)))
  return fixtures
})

/** One import: new notices stored, then a scoring job for the worker (new ones may raise alerts). */
const feed = (batch: number) =>
  Effect.gen(function* () {
    const catalog = yield* readCpvTable
    const now = yield* Clock.currentTimeMillis
    const demo = generateSyntheticTenders({ catalog, now, seed: 1_000 + batch, count: FEED_TENDERS })
    // Published now, open for a month: new notices, as a daily import brings them.
    const fresh = demo.map((d) => ({ ...d, publishDate: new Date(now), deadline: new Date(now + 30 * 86_400_000) }))
    const stored = yield* (yield* TenderStore).upsert(fresh.map((d, i) => asTender(d, `SOAK-${batch}-${i}`)))
    if (stored.inserted.length > 0) {
      yield* (yield* JobQueue).enqueue(ScoreTenders, { tenderIds: stored.inserted, isNew: stored.inserted })
    }
    return stored.inserted.length
  })

// ---------------------------------------------------------------------------------------------
// Processes.

const startProcess = (script: "api" | "worker", env: Record<string, string>): ChildProcess =>
  // As `npm run api` / `npm run worker` start it: the launcher imports the bundle in its own process,
  // so the RSS read is the service's own.
  spawn(process.execPath, deployedCommand(script), {
    env: { ...process.env, ...env, LOG_LEVEL: "Warn" },
    detached: true,
    stdio: ["ignore", "inherit", "inherit"]
  })

/** Resident set size in MiB, from /proc (Linux). */
const rssMiB = (pid: number | undefined): number | null => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1])
    return Number.isFinite(kb) ? Math.round(kb / 1024) : null
  } catch {
    return null
  }
}

// ---------------------------------------------------------------------------------------------
// Traffic.

interface Response {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
}

/** Idle sockets dropped after 4 s, before the server's 5 s keep-alive timeout (else a reused socket may be reset). */
const agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT, timeout: 4_000 })

const call = (
  port: number,
  method: string,
  pathname: string,
  headers: Record<string, string> = {},
  body?: unknown
): Promise<Response> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: pathname,
        agent,
        headers: payload
          ? { ...headers, "content-type": "application/json", "content-length": String(payload.length) }
          : headers
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") })
        )
        res.on("error", reject)
      }
    )
    req.setTimeout(30_000, () => req.destroy(new Error("no answer within 30 s")))
    req.on("error", reject)
    req.end(payload)
  })

class Stats {
  readonly latencies = new Map<string, Array<number>>()
  readonly errors = new Map<string, number>()
  readonly samples: Array<string> = []
  creditsReported = 0
  operations = 0
  record(route: string, ms: number, ok: boolean, detail: string) {
    const list = this.latencies.get(route) ?? []
    list.push(ms)
    this.latencies.set(route, list)
    if (!ok) {
      this.errors.set(route, (this.errors.get(route) ?? 0) + 1)
      if (this.samples.length < 10) this.samples.push(`${route}: ${detail.slice(0, 200)}`)
    }
  }
  get count() {
    let n = 0
    for (const list of this.latencies.values()) n += list.length
    return n
  }
  report(seconds: number) {
    const percentile = (sorted: ReadonlyArray<number>, p: number) =>
      sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
    const routes = Object.fromEntries(
      [...this.latencies.entries()].map(([route, list]) => {
        const sorted = [...list].sort((a, b) => a - b)
        return [
          route,
          {
            requests: list.length,
            errors: this.errors.get(route) ?? 0,
            p50_ms: Number(percentile(sorted, 50).toFixed(1)),
            p99_ms: Number(percentile(sorted, 99).toFixed(1))
          }
        ]
      })
    )
    return {
      requests: this.count,
      requests_per_second: Math.round(this.count / seconds),
      errors: [...this.errors.values()].reduce((a, b) => a + b, 0),
      error_samples: this.samples,
      routes
    }
  }
}

interface TrafficState {
  readonly port: number
  readonly tenants: ReadonlyArray<TenantFixture>
  /** Tender ids seen in list pages, per company: what the score requests ask for. */
  readonly seen: Map<string, Array<string>>
  /** Webhook registrations in flight per tenant (each tenant keeps one permanent webhook; the limit is 5). */
  readonly hooksInFlight: Map<string, number>
  readonly exportRange: { readonly from: string; readonly to: string }
}

const pick = <A>(list: ReadonlyArray<A>) => list[Math.floor(Math.random() * list.length)]!

/** One operation of the mix; resolves when its request(s) have been answered and recorded. */
const operation = async (state: TrafficState, stats: Stats): Promise<void> => {
  stats.operations++
  const tenant = pick(state.tenants)
  const companyId = pick(tenant.companyIds)
  const auth = { authorization: `Bearer ${tenant.key}` }
  const timed = async (route: string, expected: number, send: () => Promise<Response>): Promise<Response | null> => {
    const started = performance.now()
    try {
      const response = await send()
      const ok = response.status === expected
      stats.record(route, performance.now() - started, ok, `${response.status} ${response.text}`)
      const cost = Number(response.headers["x-api-credits-cost"])
      if (ok && Number.isFinite(cost)) stats.creditsReported += cost
      return ok ? response : null
    } catch (error) {
      stats.record(route, performance.now() - started, false, String(error))
      return null
    }
  }
  const roll = Math.random() * 100
  if (roll < 60) {
    const page1 = await timed("GET /api/v1/tenders (page 1)", 200, () =>
      call(state.port, "GET", `/api/v1/tenders?companyId=${companyId}&limit=20`, auth)
    )
    if (page1 === null) return
    const body = JSON.parse(page1.text) as { data: Array<{ tender_id: string }>; meta: { next_cursor: string | null } }
    if (body.data.length > 0)
      state.seen.set(
        companyId,
        body.data.map((t) => t.tender_id)
      )
    if (roll < 15 && body.meta.next_cursor !== null) {
      await timed("GET /api/v1/tenders (next page)", 200, () =>
        call(
          state.port,
          "GET",
          `/api/v1/tenders?companyId=${companyId}&limit=20&cursor=${encodeURIComponent(body.meta.next_cursor!)}`,
          auth
        )
      )
    }
  } else if (roll < 80) {
    const ids = state.seen.get(companyId)
    if (ids === undefined) return
    await timed("GET /api/v1/tenders/:id/score", 200, () =>
      call(state.port, "GET", `/api/v1/tenders/${pick(ids)}/score?companyId=${companyId}`, auth)
    )
  } else if (roll < 88) {
    const format = Math.random() < 0.5 ? "json" : "csv"
    await timed(`GET /api/v1/export/tenders (${format})`, 200, () =>
      call(
        state.port,
        "GET",
        `/api/v1/export/tenders?companyId=${companyId}&from=${state.exportRange.from}&to=${state.exportRange.to}&limit=100&format=${format}`,
        auth
      )
    )
  } else if (roll < 93) {
    await timed("POST /api/v1/auth/login", 200, () =>
      call(state.port, "POST", "/api/v1/auth/login", {}, { email: tenant.email, password: PASSWORD })
    )
  } else {
    const inFlight = state.hooksInFlight.get(tenant.tenantId) ?? 0
    if (inFlight >= 3) return
    state.hooksInFlight.set(tenant.tenantId, inFlight + 1)
    try {
      const created = await timed("POST /api/v1/webhooks", 201, () =>
        call(state.port, "POST", "/api/v1/webhooks", auth, {
          url: "https://hooks.example.com/soak",
          secret: WEBHOOK_SECRET,
          events: ["tender.matched"]
        })
      )
      if (created === null) return
      const id = (JSON.parse(created.text) as { webhook_id: string }).webhook_id
      await timed("DELETE /api/v1/webhooks/:id", 200, () => call(state.port, "DELETE", `/api/v1/webhooks/${id}`, auth))
    } finally {
      state.hooksInFlight.set(tenant.tenantId, (state.hooksInFlight.get(tenant.tenantId) ?? 1) - 1)
    }
  }
}

/** Closed loop: `connections` loops, each starting its next operation when the last one ended. */
const closedLoop = async (state: TrafficState, stats: Stats, seconds: number, connections: number) => {
  const end = Date.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) await operation(state, stats)
    })
  )
}

/** Open loop: operations started at `rate` per second on a schedule, whatever the answers' pace. */
const openLoop = async (
  state: TrafficState,
  stats: Stats,
  seconds: number,
  rate: number,
  onTick: (elapsedS: number) => Promise<void>
) => {
  const start = Date.now()
  const end = start + seconds * 1000
  let started = 0
  let shed = 0
  let inFlight = 0
  const pending = new Set<Promise<void>>()
  let nextTick = 0
  while (Date.now() < end) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate)
    for (; started < due; started++) {
      if (inFlight >= MAX_IN_FLIGHT) {
        shed++
        continue
      }
      inFlight++
      const p: Promise<void> = operation(state, stats).finally(() => {
        inFlight--
        pending.delete(p)
      })
      pending.add(p)
    }
    const elapsed = (Date.now() - start) / 1000
    if (elapsed >= nextTick) {
      nextTick += 1
      void onTick(elapsed)
    }
    await sleep(5)
  }
  await Promise.all(pending)
  return { operations_started: started - shed, operations_shed: shed }
}

// ---------------------------------------------------------------------------------------------

const bucharestDay = (ms: number) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Bucharest" }).format(new Date(ms))

const main = async () => {
  const dbName = `tss_bench_soak_${randomBytes(4).toString("hex")}`
  const databaseUrl = databaseUrlOf(dbName)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-bench-soak-"))
  const processes: Array<ChildProcess> = []
  log(`creating ${dbName}; soak ${DURATION_S} s at ${LOAD} of the capacity measured over ${CAPACITY_S} s`)
  await admin(`CREATE DATABASE "${dbName}"`)
  const runtime = ManagedRuntime.make(
    RepositoriesLive.pipe(
      Layer.provideMerge(PgLive({ url: Redacted.make(databaseUrl), maxConnections: 4 })),
      Layer.orDie
    )
  )
  const receiver = await startHttpsReceiver()
  const db = new pg.Client({ connectionString: databaseUrl })
  try {
    await runtime.runPromise(migrate.pipe(Effect.orDie))
    const tenants = await runtime.runPromise(seedTenants.pipe(Effect.orDie))
    log(`seeded ${TENANTS} tenants, 2,400 tenders`)
    const caFile = path.join(dataDir, "receiver-ca.pem")
    fs.writeFileSync(caFile, receiver.ca)
    const port = await freePort()
    const env = {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      MASTER_KEY: randomBytes(32).toString("hex"),
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      DATA_DIR: dataDir,
      RATE_LIMIT_GENERAL_PER_MINUTE: "100000000",
      RATE_LIMIT_EXPORT_PER_HOUR: "100000000",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      NODE_EXTRA_CA_CERTS: caFile
    }
    const api = startProcess("api", env)
    const worker = startProcess("worker", env)
    processes.push(api, worker)
    for (let waited = 0; ; waited += 250) {
      const up = await call(port, "GET", "/health").then(
        (r) => r.status === 200,
        () => false
      )
      if (up) break
      if (waited > 180_000) throw new Error("the API did not answer /health within 180 s")
      await sleep(250)
    }
    for (const tenant of tenants) {
      const response = await call(
        port,
        "POST",
        "/api/v1/webhooks",
        { authorization: `Bearer ${tenant.key}` },
        { url: `${receiver.origin}/hooks/${tenant.tenantId}`, secret: WEBHOOK_SECRET, events: ["tender.matched"] }
      )
      if (response.status !== 201) throw new Error(`webhook registration: ${response.status} ${response.text}`)
    }
    await db.connect()
    // The first rescoring (queued by the watchlists) must have given every company scores to list.
    for (let waited = 0; ; waited += 1_000) {
      const {
        rows: [row]
      } = await db.query<{ pending: number; unscored: number }>(
        `SELECT (SELECT count(*)::int FROM jobs WHERE status IN ('queued', 'running')) AS pending,
                (SELECT count(*)::int FROM companies c WHERE NOT EXISTS
                   (SELECT 1 FROM tender_scores s WHERE s.company_id = c.id)) AS unscored`
      )
      if (row!.unscored === 0 && row!.pending === 0) break
      if (waited > 600_000) throw new Error(`first scoring not done after 600 s: ${JSON.stringify(row)}`)
      await sleep(1_000)
    }
    log("worker scored the first tenders; measuring capacity")

    const now = Date.now()
    const state: TrafficState = {
      port,
      tenants,
      seen: new Map(),
      hooksInFlight: new Map(),
      exportRange: { from: bucharestDay(now - 60 * 86_400_000), to: bucharestDay(now) }
    }
    const warmStats = new Stats()
    await closedLoop(state, warmStats, 3, CAPACITY_CONNECTIONS)
    const capacityStats = new Stats()
    await closedLoop(state, capacityStats, CAPACITY_S, CAPACITY_CONNECTIONS)
    const capacity = capacityStats.count / CAPACITY_S
    const rate = capacity * LOAD
    // The schedule starts operations; an operation is 0-2 requests (measured in the capacity phase).
    const requestsPerOperation = capacityStats.count / capacityStats.operations
    log(`capacity ${capacity.toFixed(0)} requests/s; soak at ${rate.toFixed(0)} requests/s for ${DURATION_S} s`)

    const rssStart = { api: rssMiB(api.pid), worker: rssMiB(worker.pid) }
    const rssMax = { ...rssStart }
    const soakStats = new Stats()
    const deliveredBefore = receiver.requests.length
    let batch = 0
    let imported = 0
    let feeding: Promise<void> = Promise.resolve()
    const soakStart = Date.now()
    const loop = await openLoop(state, soakStats, DURATION_S, rate / requestsPerOperation, async (elapsed) => {
      for (const [name, pid] of [
        ["api", api.pid],
        ["worker", worker.pid]
      ] as const) {
        const rss = rssMiB(pid)
        if (rss !== null && rss > (rssMax[name] ?? 0)) rssMax[name] = rss
      }
      if (elapsed * 1000 >= batch * FEED_EVERY_MS) {
        const n = batch++
        feeding = feeding.then(() =>
          runtime.runPromise(feed(n)).then(
            (count) => {
              imported += count
            },
            (error) => log(`import ${n} failed: ${error}`)
          )
        )
      }
      if (Math.floor(elapsed) % 30 === 0 && elapsed >= 1) {
        log(
          `${Math.floor(elapsed)} s: ${soakStats.count} requests, ${receiver.requests.length - deliveredBefore} webhook deliveries`
        )
      }
    })
    const soakSeconds = (Date.now() - soakStart) / 1000
    await feeding
    const rssEnd = { api: rssMiB(api.pid), worker: rssMiB(worker.pid) }

    // Let the worker finish what the last imports queued, then read its output.
    for (let waited = 0; waited < 120_000; waited += 1_000) {
      const {
        rows: [row]
      } = await db.query<{ busy: number }>(
        `SELECT (SELECT count(*)::int FROM jobs WHERE status IN ('queued', 'running'))
              + (SELECT count(*)::int FROM webhook_deliveries WHERE status IN ('pending', 'delivering')) AS busy`
      )
      if (row!.busy === 0) break
      await sleep(1_000)
    }
    const { rows: drift } = await db.query<{ tenant_id: string; remaining: number; ledger: number; charged: number }>(
      `SELECT cp.tenant_id, cp.remaining,
              (SELECT coalesce(sum(delta), 0)::int FROM credit_ledger l
                WHERE l.tenant_id = cp.tenant_id AND l.period_start = cp.period_start) AS ledger,
              (SELECT coalesce(-sum(delta), 0)::int FROM credit_ledger l
                WHERE l.tenant_id = cp.tenant_id AND l.period_start = cp.period_start AND l.kind = 'charge') AS charged
       FROM credit_periods cp`
    )
    const {
      rows: [worked]
    } = await db.query<Record<string, unknown>>(
      `SELECT (SELECT count(*)::int FROM tenders WHERE source_notice_id NOT LIKE 'SOAK-BASE-%') AS tenders_imported,
              (SELECT count(*)::int FROM tender_scores) AS score_rows,
              (SELECT count(*)::int FROM alerts) AS alerts,
              (SELECT count(*)::int FROM match_events) AS events,
              (SELECT json_object_agg(status, n) FROM (SELECT status, count(*)::int AS n FROM jobs GROUP BY status) j) AS jobs,
              (SELECT json_object_agg(status, n) FROM (SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status) d) AS deliveries`
    )
    const delivered = receiver.requests.slice(deliveredBefore)
    const badSignatures = delivered.filter((r) => {
      const expected = `sha256=${createHmac("sha256", WEBHOOK_SECRET)
        .update(`${r.headers["x-svc-timestamp"]}.${r.body}`)
        .digest("hex")}`
      return r.headers["x-svc-signature"] !== expected
    }).length
    const report = {
      machine: `${os.availableParallelism()} cores, node ${process.version}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" / ")}`,
      redis: process.env.REDIS_URL !== undefined,
      capacity: {
        connections: CAPACITY_CONNECTIONS,
        seconds: CAPACITY_S,
        requests_per_second: Math.round(capacity),
        errors: capacityStats.report(CAPACITY_S).errors,
        error_samples: capacityStats.samples
      },
      soak: {
        seconds: Number(soakSeconds.toFixed(1)),
        offered_fraction_of_capacity: LOAD,
        offered_requests_per_second: Math.round(rate),
        ...loop,
        ...soakStats.report(soakSeconds)
      },
      credits: {
        drift_per_tenant: drift.map((d) => d.remaining - d.ledger),
        drift_total: drift.reduce((sum, d) => sum + (d.remaining - d.ledger), 0),
        charged_by_ledger: drift.reduce((sum, d) => sum + d.charged, 0),
        reported_to_clients: warmStats.creditsReported + capacityStats.creditsReported + soakStats.creditsReported
      },
      memory_rss_mib: { start: rssStart, end: rssEnd, highest: rssMax },
      worker: {
        imports: batch,
        tenders_imported: imported,
        ...worked,
        receiver_requests_during_soak: delivered.length,
        bad_signatures: badSignatures
      }
    }
    console.log(JSON.stringify(report, null, 2))
  } finally {
    for (const child of processes) await stopProcessGroup(child)
    agent.destroy()
    await db.end().catch(() => {})
    await receiver.close()
    await runtime.dispose()
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)
    fs.rmSync(dataDir, { recursive: true, force: true })
    log(`dropped ${dbName}`)
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
