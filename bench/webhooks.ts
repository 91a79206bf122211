/**
 * `npm run bench -- webhooks`: webhook delivery by ONE worker process to 5 local HTTPS receivers.
 *
 * 1. A fresh database on the server of DATABASE_URL (default the local postgres), migrated: 5
 *    Consultant tenants, one company and one webhook each (secret sealed with SecretBox under the
 *    worker's MASTER_KEY), each webhook pointing at its own receiver (a real HTTPS server in this
 *    process with its own self-signed certificate, answering 200 at once and checking every
 *    signature with an independent HMAC); match_events for every delivery (setup, not timed).
 * 2. The real worker (`src/bin/worker.ts`) with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true and
 *    NODE_EXTRA_CA_CERTS naming the receivers' certificates. Warm-up: one delivery per receiver.
 * 3. Burst: 10,000 pending webhook_deliveries rows and their jobs committed at once (then NOTIFY
 *    'jobs'): deliveries per second = 10,000 / (last arrival - commit). Latency here
 *    is mostly time spent queued behind the backlog and is printed only for completeness.
 * 4. Steady: 10,000 more rows offered at WEBHOOK_BENCH_RATE per second (default 1,000, the target)
 *    in 20 ms batches: event-to-delivery latency p50/p99 from the row's created_at (stamped by this
 *    process when it inserts the row) to the request's arrival at the receiver (same clock).
 * Prints one JSON report. The database is dropped and the worker stopped at the end.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- webhooks
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHmac, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { migrate } from "../src/infra/DatabaseSetup.js"
import { JOBS_CHANNEL } from "../src/infra/queue/JobQueue.js"
import { DeliverWebhook } from "../src/infra/webhooks/Deliveries.js"
import { makeSecretBox } from "../src/infra/webhooks/SecretBox.js"
import { makeSelfSignedCertificate } from "../test/support/HttpsReceiver.js"
import { admin, databaseUrl as databaseUrlOf, stopProcessGroup } from "./BenchSupport.js"

const RECEIVERS = 5
const EVENTS = Number(process.env.WEBHOOK_BENCH_EVENTS ?? 10_000)
const STEADY_RATE = Number(process.env.WEBHOOK_BENCH_RATE ?? 1_000)
const TICK_MS = 20
const WORKER_START_TIMEOUT_MS = 180_000
const PHASE_TIMEOUT_MS = Number(process.env.WEBHOOK_BENCH_PHASE_TIMEOUT_MS ?? 300_000)

const log = (line: string) => console.error(`[bench webhooks] ${line}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// Receivers: record each delivery's arrival time and check its signature independently.

interface Arrival {
  readonly receivedAt: number
  readonly signatureOk: boolean
}

interface Receiver {
  readonly origin: string
  readonly cert: string
  close(): Promise<void>
}

/** Every delivery id that arrived, first arrival only; repeats are counted (at-least-once). */
const arrivals = new Map<string, Arrival>()
let repeats = 0
let malformed = 0

const startReceiver = async (secret: string): Promise<Receiver> => {
  const { key, cert } = makeSelfSignedCertificate()
  const server = https.createServer({ key, cert, keepAliveTimeout: 65_000 }, (req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const receivedAt = Date.now()
      const body = Buffer.concat(chunks).toString("utf8")
      const delivery = req.headers["x-svc-delivery"]
      const timestamp = req.headers["x-svc-timestamp"]
      const signature = req.headers["x-svc-signature"]
      if (typeof delivery !== "string" || typeof timestamp !== "string" || typeof signature !== "string") {
        malformed++
      } else if (arrivals.has(delivery)) {
        repeats++
      } else {
        const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`
        arrivals.set(delivery, { receivedAt, signatureOk: expected === signature })
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `https://127.0.0.1:${port}`,
    cert,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** Resolves once every id has arrived; rejects after the timeout naming how many did. */
const waitForArrivals = async (ids: ReadonlyArray<string>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const missing = ids.filter((id) => !arrivals.has(id)).length
    if (missing === 0) return
    if (Date.now() > deadline) throw new Error(`${ids.length - missing} of ${ids.length} deliveries arrived in time`)
    await sleep(5)
  }
}

// ---------------------------------------------------------------------------------------------
// Data: tenants, companies, webhooks, tenders and one match event per delivery.

interface Planned {
  readonly tenantId: string
  readonly webhookId: string
  readonly eventId: string
  readonly body: string
}

const seed = async (
  db: pg.Client,
  receivers: ReadonlyArray<Receiver>,
  secrets: ReadonlyArray<string>,
  masterKey: Buffer
) => {
  const box = makeSecretBox(masterKey)
  const perTenant = Math.ceil(EVENTS / RECEIVERS)
  const tendersNeeded = 2 * perTenant + 1 // burst, steady, one warm-up event per tenant
  const {
    rows: [authority]
  } = await db.query<{ id: string }>(
    `INSERT INTO contracting_authorities (name, normalized_name, fiscal_code, county)
     VALUES ('Primăria Bench', 'primaria bench', '4000001', 'Cluj') RETURNING id`
  )
  const { rows: tenders } = await db.query<{ id: string; title: string; source_url: string }>(
    `INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, deadline, estimated_value_ron,
                          publish_date, source_url)
     SELECT 'bench', 'webhook-' || n, 'Lucrări de reabilitare - lot ' || n, '45000000-7', $1,
            '2027-03-01T10:00:00Z', 250000 + n, now(), 'https://e-licitatie.ro/bench/' || n
     FROM generate_series(1, $2::int) AS n
     RETURNING id, title, source_url`,
    [authority!.id, tendersNeeded]
  )
  const tenants: Array<{ tenantId: string; companyId: string; webhookId: string }> = []
  for (let t = 0; t < RECEIVERS; t++) {
    const {
      rows: [tenant]
    } = await db.query<{ id: string }>(`INSERT INTO tenants (name, plan) VALUES ($1, 'consultant') RETURNING id`, [
      `Bench Webhooks ${t}`
    ])
    const {
      rows: [company]
    } = await db.query<{ id: string }>(`INSERT INTO companies (tenant_id, name) VALUES ($1, $2) RETURNING id`, [
      tenant!.id,
      `Firma Webhook ${t} SRL`
    ])
    const {
      rows: [webhook]
    } = await db.query<{ id: string }>(
      `INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events) VALUES ($1, $2, $3, '{tender.matched}') RETURNING id`,
      [tenant!.id, `${receivers[t]!.origin}/hooks/${t}`, box.seal(secrets[t]!)]
    )
    tenants.push({ tenantId: tenant!.id, companyId: company!.id, webhookId: webhook!.id })
  }

  // One event per (tenant, tender); bodies as spec 6.1, fixed before any delivery is created.
  const plans: Array<Array<Planned>> = [[], [], []] // burst, steady, warm-up
  for (const { tenantId, companyId, webhookId } of tenants) {
    const payloads = tenders.map((tender, i) => ({
      event: "tender.matched",
      company_id: companyId,
      tender: {
        id: tender.id,
        title: tender.title,
        score: 70 + (i % 30),
        verdict: i % 3 === 0 ? "RESEARCH" : "GO",
        cpv_codes: ["45000000-7"],
        deadline: "2027-03-01T10:00:00.000Z",
        estimated_value_ron: 250_000 + i + 1,
        source_url: tender.source_url
      },
      timestamp: new Date().toISOString()
    }))
    const { rows: events } = await db.query<{ id: string; tender_id: string }>(
      `INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date)
       SELECT $1, $2, x.t, x.p, tenders.publish_date FROM unnest($3::uuid[], $4::jsonb[]) AS x(t, p)
       JOIN tenders ON tenders.id = x.t
       RETURNING id, tender_id`,
      [tenantId, companyId, tenders.map((t) => t.id), payloads.map((p) => JSON.stringify(p))]
    )
    const eventOf = new Map(events.map((e) => [e.tender_id, e.id]))
    tenders.forEach((tender, i) => {
      const phase = i < perTenant ? 0 : i < 2 * perTenant ? 1 : 2
      plans[phase]!.push({ tenantId, webhookId, eventId: eventOf.get(tender.id)!, body: JSON.stringify(payloads[i]) })
    })
  }
  // Interleave tenants so every batch goes to every receiver.
  const interleave = (list: Array<Planned>) =>
    list
      .map((plan, i) => ({ plan, key: (i % perTenant) * RECEIVERS + Math.floor(i / perTenant) }))
      .sort((a, b) => a.key - b.key)
      .map(({ plan }) => plan)
  return {
    burst: interleave(plans[0]!).slice(0, EVENTS),
    steady: interleave(plans[1]!).slice(0, EVENTS),
    warmup: plans[2]!
  }
}

/** Inserts pending deliveries stamped with this process's clock, then wakes the workers. */
const enqueue = async (db: pg.Client, batch: ReadonlyArray<Planned>) => {
  const createdAt = Date.now()
  // Each delivery with its job, as the service writes them (infra/webhooks/Deliveries.recordMatches).
  const { rows } = await db.query<{ id: string }>(
    `WITH d AS (
       INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, body, status, created_at, next_attempt_at)
       SELECT t, w, e, b, 'pending', $5, $5 FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[]) AS x(t, w, e, b)
       RETURNING id, webhook_id
     ), j AS (
       INSERT INTO jobs (kind, payload, group_key, run_at, max_attempts, created_at, updated_at)
       SELECT '${DeliverWebhook.name}', jsonb_build_object('deliveryId', d.id), d.webhook_id::text, $5,
              ${DeliverWebhook.maxAttempts}, $5, $5
       FROM d
     )
     SELECT id FROM d`,
    [
      batch.map((p) => p.tenantId),
      batch.map((p) => p.webhookId),
      batch.map((p) => p.eventId),
      batch.map((p) => p.body),
      new Date(createdAt)
    ]
  )
  // The queue's wake-up: its channel, the kind as payload (PgClient.listen drops empty payloads).
  await db.query(`SELECT pg_notify($1, $2)`, [JOBS_CHANNEL, DeliverWebhook.name])
  return rows.map((row) => ({ id: row.id, createdAt }))
}

// ---------------------------------------------------------------------------------------------
// The worker process.

/** WEBHOOK_BENCH_WORKER_SCRIPT runs another entry point in its place (e.g. a profiling wrapper). */
const startWorker = (env: Record<string, string>): ChildProcess =>
  spawn(path.resolve("node_modules/.bin/tsx"), [process.env.WEBHOOK_BENCH_WORKER_SCRIPT ?? "src/bin/worker.ts"], {
    env: { ...process.env, ...env, LOG_LEVEL: "Warn" },
    detached: true,
    stdio: ["ignore", "inherit", "inherit"]
  })

// ---------------------------------------------------------------------------------------------
// Measurement.

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const summarise = (enqueued: ReadonlyArray<{ id: string; createdAt: number }>, startedAt: number) => {
  const latencies = enqueued.map(({ id, createdAt }) => arrivals.get(id)!.receivedAt - createdAt).sort((a, b) => a - b)
  const last = Math.max(...enqueued.map(({ id }) => arrivals.get(id)!.receivedAt))
  const seconds = (last - startedAt) / 1000
  return {
    deliveries: enqueued.length,
    seconds: Number(seconds.toFixed(2)),
    deliveries_per_second: Math.round(enqueued.length / seconds),
    latency_ms: {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1]
    }
  }
}

const main = async () => {
  const dbName = `tss_bench_webhooks_${randomBytes(4).toString("hex")}`
  const databaseUrl = databaseUrlOf(dbName)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-bench-webhooks-"))
  const masterKey = randomBytes(32)
  const secrets = Array.from({ length: RECEIVERS }, () => randomBytes(24).toString("base64url"))
  const receivers: Array<Receiver> = []
  let worker: ChildProcess | undefined
  log(`creating ${dbName}`)
  await admin(`CREATE DATABASE "${dbName}"`)
  const db = new pg.Client({ connectionString: databaseUrl })
  try {
    await Effect.runPromise(
      migrate.pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 })),
        Effect.scoped,
        Effect.orDie
      )
    )
    for (const secret of secrets) receivers.push(await startReceiver(secret))
    const caFile = path.join(dataDir, "receivers-ca.pem")
    fs.writeFileSync(caFile, receivers.map((r) => r.cert).join("\n"))
    await db.connect()
    const { burst, steady, warmup } = await seed(db, receivers, secrets, masterKey)
    log(`seeded ${burst.length + steady.length + warmup.length} events for ${RECEIVERS} webhooks`)

    worker = startWorker({
      DATABASE_URL: databaseUrl,
      MASTER_KEY: masterKey.toString("hex"),
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      DATA_DIR: dataDir,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      NODE_EXTRA_CA_CERTS: caFile
    })
    const warm = await enqueue(db, warmup)
    await waitForArrivals(
      warm.map((d) => d.id),
      WORKER_START_TIMEOUT_MS
    ).catch((error: Error) => {
      throw new Error(`warm-up: ${error.message} (is the worker's webhook dispatcher running?)`)
    })
    log("worker is delivering; burst phase")

    const burstStart = Date.now()
    const burstEnqueued = await enqueue(db, burst)
    await waitForArrivals(
      burstEnqueued.map((d) => d.id),
      PHASE_TIMEOUT_MS
    )
    const burstReport = summarise(burstEnqueued, burstStart)
    log(`burst: ${burstReport.deliveries_per_second} deliveries/s; steady phase at ${STEADY_RATE}/s`)

    const perTick = Math.max(1, Math.round((STEADY_RATE * TICK_MS) / 1000))
    const steadyEnqueued: Array<{ id: string; createdAt: number }> = []
    const steadyStart = Date.now()
    for (let offset = 0, tick = 0; offset < steady.length; offset += perTick, tick++) {
      // Paced by the schedule, not by the previous batch: a slow insert does not lower the offered rate.
      const due = steadyStart + tick * TICK_MS
      if (due > Date.now()) await sleep(due - Date.now())
      steadyEnqueued.push(...(await enqueue(db, steady.slice(offset, offset + perTick))))
    }
    await waitForArrivals(
      steadyEnqueued.map((d) => d.id),
      PHASE_TIMEOUT_MS
    )
    const steadyReport = summarise(steadyEnqueued, steadyStart)

    // The worker records outcomes after the receiver answered: give it a moment to write the last ones.
    await sleep(2_000)
    const { rows: statuses } = await db.query<{ status: string; count: number }>(
      `SELECT status, count(*)::int AS count FROM webhook_deliveries GROUP BY status ORDER BY status`
    )
    const all = [...arrivals.values()]
    const report = {
      machine: `${os.availableParallelism()} cores, node ${process.version}`,
      receivers: RECEIVERS,
      worker_processes: 1,
      burst: burstReport,
      steady: { offered_per_second: STEADY_RATE, ...steadyReport },
      repeated_requests: repeats,
      malformed_requests: malformed,
      bad_signatures: all.filter((a) => !a.signatureOk).length,
      delivery_rows_by_status: Object.fromEntries(statuses.map((s) => [s.status, s.count])),
      targets: { deliveries_per_second: ">= 1000", steady_p99_ms: "< 500" }
    }
    console.log(JSON.stringify(report, null, 2))
  } finally {
    if (worker) await stopProcessGroup(worker)
    await db.end().catch(() => {})
    await Promise.all(receivers.map((r) => r.close()))
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)
    fs.rmSync(dataDir, { recursive: true, force: true })
    log(`dropped ${dbName}`)
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
