/**
 * `npm run bench -- ingest [--quick]`: live ingestion (issue 19) end to end, with a real worker
 * process (`src/bin/worker.ts`, INGEST_SOURCES=ted) polling the fake TED (test/support/FakeTed.ts,
 * real eForms notices) that runs in this process.
 *
 * 1. Latency: a fresh migrated database, 1,000 companies with 3 watchlists each (CPV codes and
 *    keywords drawn from the cpv_codes table, weighted like Romanian procurement, as in
 *    bench/scoring.ts; 10% of them also watch CPVs of the published pool), 5 tenants with one
 *    company and one webhook each, every webhook at its own real HTTPS receiver (trusted by the
 *    worker through NODE_EXTRA_CA_CERTS), their companies watching every CPV of the pool at
 *    threshold 0. The worker polls every INGEST_POLL_SECONDS=5. Once its first poll is done, 200
 *    notices are published at 2 per second; per notice: publication (`publish()` called) -> first
 *    `tender_scores` row of its tender (the database polled every 100 ms) -> first webhook received
 *    (receiver clock, body `tender.id`). Every (webhook, tender) must arrive exactly once.
 * 2. Throughput: another fresh database with 5,000 companies (no webhooks), 2,000 notices published
 *    at once, then the worker started (INGEST_PAGE_SIZE=250, TED_REQUEST_SPACING_MS=0: politeness
 *    spacing is off against the fake): notices/s = notices / (first search request -> last
 *    `tenders.score` job done), with a breakdown of where the time went.
 * `--quick`: 40 latency notices, 500 throughput notices. INGEST_BENCH_CPU_PROF=1 runs the
 * throughput worker with `--cpu-prof` and prints where the profile was written.
 * Databases, receivers, the fake and the worker are removed at the end, also on failure or Ctrl-C.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- ingest
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { bucharestDate } from "../src/domain/BucharestTime.js"
import { addDays } from "../src/domain/ingest/PublicationDays.js"
import { STOP_WORDS, words } from "../src/domain/scoring/Text.js"
import { migrate } from "../src/infra/DatabaseSetup.js"
import { makeSecretBox } from "../src/infra/webhooks/SecretBox.js"
import { deployedCommand } from "../test/support/DeployedCommand.js"
import { eformsNoticeXml, type FakeTed, type FakeTedRequest, startFakeTed } from "../test/support/FakeTed.js"
import { type HttpsReceiver, makeSelfSignedCertificate, startHttpsReceiver } from "../test/support/HttpsReceiver.js"
import { admin, databaseUrl, stopProcessGroup } from "./BenchSupport.js"
import { syntheticDraws } from "./SyntheticData.js"

const QUICK = process.argv.includes("--quick")
const POLL_SECONDS = 5
const LATENCY_COMPANIES = 1_000
const LATENCY_NOTICES = QUICK ? 40 : 200
const PUBLISH_PER_SECOND = 2
const WEBHOOK_TENANTS = 5
const POOL_CPVS = 40
const THROUGHPUT_COMPANIES = 5_000
const THROUGHPUT_NOTICES = QUICK ? 500 : 2_000
const PAGE_SIZE = 250
const WATCHLISTS_PER_COMPANY = 3
const WORKER_START_TIMEOUT_MS = 120_000
const PHASE_TIMEOUT_MS = 240_000

const log = (line: string) => console.error(`[bench ingest] ${line}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const seconds = (ms: number) => Number((ms / 1000).toFixed(2))

// ---------------------------------------------------------------------------------------------
// Resources, released at the end whatever happens.

const cleanups: Array<() => Promise<void>> = []
const cleanup = async () => {
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()!()
    } catch (error) {
      console.error(error)
    }
  }
}
let interrupted = false
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    interrupted = true
    log(`${signal}: cleaning up`)
    void cleanup().finally(() => process.exit(130))
  })
}

/** A fresh migrated database and a client on it; both dropped at cleanup. */
const freshDatabase = async (label: string) => {
  const name = `tss_bench_ingest_${label}_${randomBytes(4).toString("hex")}`
  const url = databaseUrl(name)
  await admin(`CREATE DATABASE "${name}"`)
  cleanups.push(async () => {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    log(`dropped ${name}`)
  })
  await Effect.runPromise(
    migrate.pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.scoped,
      Effect.orDie
    )
  )
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  cleanups.push(() => db.end().catch(() => {}))
  log(`created ${name}`)
  return { name, url, db }
}

// ---------------------------------------------------------------------------------------------
// Realistic data: CPV codes weighted like Romanian procurement (as bench/scoring.ts), Romanian buyers.

const { random, pick, weightedDivision, logNormalValue } = syntheticDraws(20261119)

/** Buyers: name, fiscal code, NUTS 3 of their county. */
const BUYERS: ReadonlyArray<readonly [string, string, string]> = [
  ["Primăria Municipiului București", "4267117", "RO321"],
  ["Primăria Municipiului Cluj-Napoca", "4305857", "RO113"],
  ["Primăria Municipiului Timișoara", "14756536", "RO424"],
  ["Primăria Municipiului Iași", "4541580", "RO213"],
  ["Primăria Municipiului Constanța", "4785224", "RO223"],
  ["Primăria Municipiului Brașov", "4384206", "RO122"],
  ["Primăria Municipiului Oradea", "35482673", "RO111"],
  ["Consiliul Județean Suceava", "4244792", "RO215"],
  ["Consiliul Județean Argeș", "4122183", "RO311"],
  ["Spitalul Clinic Județean de Urgență Cluj", "4288012", "RO113"],
  ["Spitalul Universitar de Urgență București", "4316422", "RO321"],
  ["Compania Națională de Administrare a Infrastructurii Rutiere", "16054368", "RO321"],
  ["Inspectoratul Școlar Județean Dolj", "4417214", "RO411"],
  ["Universitatea Politehnica Timișoara", "4269282", "RO424"],
  ["Direcția Generală de Asistență Socială și Protecția Copilului Sibiu", "4240600", "RO126"],
  ["Primăria Comunei Florești", "4485066", "RO113"],
  ["Primăria Orașului Câmpulung Moldovenesc", "4327648", "RO215"],
  ["Societatea de Transport București STB SA", "39657505", "RO321"]
]
const WHAT: Record<string, string> = { supplies: "Furnizare", works: "Execuție lucrări", services: "Prestare servicii" }

interface CpvRow {
  readonly code_full: string
  readonly level: string
  readonly nature: string
  readonly label_ro: string
}

/** The CPV table of a migrated database, by division: what suppliers watch and what notices name. */
const loadCpv = async (db: pg.Client) => {
  const { rows } = await db.query<CpvRow>(`SELECT code_full, level, nature, label_ro FROM cpv_codes ORDER BY code_full`)
  const frequency = new Map<string, number>()
  for (const row of rows) for (const w of new Set(words(row.label_ro))) frequency.set(w, (frequency.get(w) ?? 0) + 1)
  // Keywords a buyer would type: specific words of the labels, not the generic ones.
  const contentWords = (label: string) =>
    words(label).filter((w) => w.length >= 6 && !STOP_WORDS.has(w) && (frequency.get(w) ?? 0) <= rows.length / 100)
  const byDivision = new Map<string, { watchable: Array<CpvRow>; tenderable: Array<CpvRow> }>()
  for (const row of rows) {
    const division = row.code_full.slice(0, 2)
    const entry = byDivision.get(division) ?? { watchable: [], tenderable: [] }
    if (row.level === "class" || row.level === "category") entry.watchable.push(row)
    if (row.level !== "division" && row.level !== "group") entry.tenderable.push(row)
    byDivision.set(division, entry)
  }
  const tenderable = () => pick(byDivision.get(weightedDivision())!.tenderable)
  return { byDivision, contentWords, tenderable }
}
type Cpv = Awaited<ReturnType<typeof loadCpv>>

/**
 * `count` companies of one tenant with 3 watchlists each, as bench/scoring.ts seeds them; a share
 * `poolShare` of them has its first watchlist on codes of `pool` (the CPVs being published).
 */
const seedCompanies = async (
  db: pg.Client,
  cpv: Cpv,
  count: number,
  pool: ReadonlyArray<CpvRow>,
  poolShare: number
) => {
  const {
    rows: [tenant]
  } = await db.query<{ id: string }>(
    `INSERT INTO tenants (name, plan) VALUES ('Bench Ingest', 'consultant') RETURNING id`
  )
  const descriptions: Array<string> = []
  const watchlists: Array<{ company: number; cpv: Array<string>; keywords: Array<string>; lo: number | null }> = []
  const minScores: Array<number> = []
  for (let c = 0; c < count; c++) {
    const divisions = [weightedDivision(), ...(random() < 0.3 ? [weightedDivision()] : [])]
    const labels: Array<string> = []
    const watchesPool = pool.length > 0 && random() < poolShare
    for (let w = 0; w < WATCHLISTS_PER_COMPANY; w++) {
      const codes =
        watchesPool && w === 0
          ? [pick(pool), pick(pool)]
          : Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
              pick(cpv.byDivision.get(pick(divisions))!.watchable)
            )
      labels.push(...codes.map((code) => code.label_ro))
      const candidates = codes.flatMap((code) => cpv.contentWords(code.label_ro))
      const keywords =
        candidates.length === 0
          ? []
          : [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(candidates)))]
      watchlists.push({
        company: c,
        cpv: [...new Set(codes.map((code) => code.code_full))],
        keywords,
        lo: random() < 0.5 ? 10_000 : null
      })
      minScores.push(50 + Math.floor(random() * 21))
    }
    descriptions.push(`Firmă specializată în ${labels.slice(0, 4).join(", ").toLowerCase()}`)
  }
  const { rows: companies } = await db.query<{ id: string }>(
    `INSERT INTO companies (tenant_id, name, description, fiscal_code)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[]) RETURNING id`,
    [
      tenant!.id,
      descriptions.map((_, i) => `Firma ${i} SRL`),
      descriptions,
      descriptions.map((_, i) => String(10_000_000 + i))
    ]
  )
  await db.query(
    `INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value, min_score)
     SELECT $1, c, 'Watchlist', string_to_array(codes, ',')::char(10)[], string_to_array(kw, '|'), lo,
            CASE WHEN lo IS NULL THEN NULL ELSE 5000000 END, ms
     FROM unnest($2::uuid[], $3::text[], $4::text[], $5::numeric[], $6::smallint[]) AS w(c, codes, kw, lo, ms)`,
    [
      tenant!.id,
      watchlists.map((w) => companies[w.company]!.id),
      watchlists.map((w) => w.cpv.join(",")),
      watchlists.map((w) => w.keywords.join("|")),
      watchlists.map((w) => w.lo),
      minScores
    ]
  )
  return companies.length
}

/** Publishes one real eForms notice at the fake TED, with a Romanian title and its CPV. */
const publishNotice = (ted: FakeTed, code: CpvRow, n: number) => {
  const [buyerName, buyerFiscalCode, buyerNuts] = pick(BUYERS)
  const today = bucharestDate(Date.now())
  const notice = {
    noticeId: randomUUID(),
    publicationNumber: `${String(500_000 + n).padStart(8, "0")}-2026`,
    publicationDate: today,
    title: `${WHAT[code.nature] ?? "Achiziție"}: ${code.label_ro.toLowerCase()} pentru ${buyerName}, lot ${1 + (n % 4)}`,
    description: `Achiziție ${code.label_ro.toLowerCase()} conform caietului de sarcini, cu termen de execuție de 12 luni`,
    cpv: code.code_full.slice(0, 8),
    buyerName,
    buyerFiscalCode,
    buyerNuts,
    estimatedValue: logNormalValue(),
    deadline: addDays(today, 20 + (n % 20))
  }
  const xml = eformsNoticeXml(notice)
  return {
    noticeId: notice.noticeId,
    publish: () => {
      const at = Date.now()
      ted.publish({ publicationNumber: notice.publicationNumber, publicationDate: today, xml })
      return at
    }
  }
}

/** The fake TED, with the arrival time of every request it gets. */
const startTed = async () => {
  const ted = await startFakeTed()
  cleanups.push(() => ted.close())
  const stamps: Array<{ at: number; search: boolean }> = []
  const requests = ted.requests as Array<FakeTedRequest>
  const push = requests.push.bind(requests)
  requests.push = (...items: Array<FakeTedRequest>) => {
    for (const item of items) stamps.push({ at: Date.now(), search: item.path.startsWith("/v3/notices/search") })
    return push(...items)
  }
  return { ted, stamps }
}

// ---------------------------------------------------------------------------------------------
// The worker process, as `npm run worker` starts it (test/support/DeployedCommand).

const startWorker = (env: Record<string, string>, nodeArgs: ReadonlyArray<string> = []): ChildProcess => {
  const child = spawn(process.execPath, [...nodeArgs, ...deployedCommand("worker")], {
    env: {
      ...process.env,
      LOG_LEVEL: process.env.INGEST_BENCH_LOG_LEVEL ?? "Warn",
      INGEST_SOURCES: "ted",
      INGEST_POLL_SECONDS: String(POLL_SECONDS),
      TED_REQUEST_SPACING_MS: "0",
      INGEST_PAGE_SIZE: String(PAGE_SIZE),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      ...env
    },
    detached: true,
    stdio: ["ignore", "inherit", "inherit"]
  })
  cleanups.push(() => stopProcessGroup(child, 15_000))
  return child
}

const waitUntil = async (what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 100) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (interrupted) throw new Error("interrupted")
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(everyMs)
  }
}

const firstPollDone = (db: pg.Client) => async () =>
  (
    await db.query(
      `SELECT 1 FROM ingest_sources WHERE name = 'ted' AND enabled AND last_success_at IS NOT NULL AND cursor IS NULL`
    )
  ).rows.length === 1

// ---------------------------------------------------------------------------------------------
// Figures.

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const distribution = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return {
    n: sorted.length,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    max_ms: sorted[sorted.length - 1] ?? Number.NaN
  }
}

// ---------------------------------------------------------------------------------------------
// Phase 1: latency at 1,000 companies.

const latencyPhase = async () => {
  const { url, db } = await freshDatabase("latency")
  const cpv = await loadCpv(db)
  // The CPVs being published: realistic codes, weighted by division.
  const pool = [...new Map(Array.from({ length: POOL_CPVS * 2 }, () => cpv.tenderable()).map((r) => [r.code_full, r]))]
    .map(([, row]) => row)
    .slice(0, POOL_CPVS)
  const bulk = await seedCompanies(db, cpv, LATENCY_COMPANIES - WEBHOOK_TENANTS, pool, 0.1)

  // Tenants with a webhook each, at their own receiver; one company each watching the pool at threshold 0.
  const masterKey = randomBytes(32)
  const box = makeSecretBox(masterKey)
  const certificate = makeSelfSignedCertificate()
  const arrivals: Array<{ at: number; receiver: number; delivery: string; signatureOk: boolean; body: string }> = []
  const receivers: Array<HttpsReceiver> = []
  const tenants: Array<{ tenantId: string; companyId: string; secret: string }> = []
  for (let t = 0; t < WEBHOOK_TENANTS; t++) {
    const secret = randomBytes(24).toString("base64url")
    const receiver = await startHttpsReceiver((request) => {
      const timestamp = request.headers["x-svc-timestamp"] ?? ""
      const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${request.body}`).digest("hex")}`
      arrivals.push({
        at: Date.now(),
        receiver: t,
        delivery: request.headers["x-svc-delivery"] ?? "",
        signatureOk: request.headers["x-svc-signature"] === expected,
        body: request.body
      })
      return { status: 200 }
    }, certificate)
    cleanups.push(() => receiver.close())
    receivers.push(receiver)
    const {
      rows: [tenant]
    } = await db.query<{ id: string }>(`INSERT INTO tenants (name, plan) VALUES ($1, 'consultant') RETURNING id`, [
      `Consultanță Achiziții ${t + 1}`
    ])
    const {
      rows: [company]
    } = await db.query<{ id: string }>(
      `INSERT INTO companies (tenant_id, name, description) VALUES ($1, $2, $3) RETURNING id`,
      [
        tenant!.id,
        `Client Consultanță ${t + 1} SRL`,
        `Firmă care urmărește ${pool
          .slice(0, 4)
          .map((c) => c.label_ro.toLowerCase())
          .join(", ")}`
      ]
    )
    for (let w = 0; w < 3; w++) {
      const codes = pool.filter((_, i) => i % 3 === w).map((c) => c.code_full)
      await db.query(
        `INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, min_score)
         VALUES ($1, $2, $3, $4::char(10)[], 0)`,
        [tenant!.id, company!.id, `Pool ${w + 1}`, codes]
      )
    }
    await db.query(
      `INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events) VALUES ($1, $2, $3, '{tender.matched}')`,
      [tenant!.id, `${receiver.origin}/hooks/${t}`, box.seal(secret)]
    )
    tenants.push({ tenantId: tenant!.id, companyId: company!.id, secret })
  }
  await db.query("ANALYZE")
  log(`latency: ${bulk + WEBHOOK_TENANTS} companies, ${WEBHOOK_TENANTS} webhook tenants, ${pool.length} published CPVs`)

  const { ted, stamps } = await startTed()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-bench-ingest-"))
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }))
  const caFile = path.join(dataDir, "receivers-ca.pem")
  fs.writeFileSync(caFile, certificate.cert)
  const worker = startWorker({
    DATABASE_URL: url,
    MASTER_KEY: masterKey.toString("hex"),
    DATA_DIR: dataDir,
    NODE_EXTRA_CA_CERTS: caFile,
    TED_API_URL: ted.url
  })
  await waitUntil("the worker's first poll", firstPollDone(db), WORKER_START_TIMEOUT_MS)
  log(`worker polling every ${POLL_SECONDS} s; publishing ${LATENCY_NOTICES} notices at ${PUBLISH_PER_SECOND}/s`)

  const notices = Array.from({ length: LATENCY_NOTICES }, (_, n) => publishNotice(ted, pick(pool), n))
  const publishedAt = new Map<string, number>()
  const scoredAt = new Map<string, number>()
  const tenderOf = new Map<string, string>() // tender id -> notice id
  let watching = true
  // The database every 100 ms: which published notices have their first tender_scores row.
  const watcher = (async () => {
    while (watching && !interrupted) {
      const pending = [...publishedAt.keys()].filter((id) => !scoredAt.has(id))
      if (pending.length > 0) {
        const { rows } = await db.query<{ id: string; source_notice_id: string }>(
          `SELECT t.id, t.source_notice_id FROM tenders t
           WHERE t.source = 'ted-eforms' AND t.source_notice_id = ANY($1::text[])
             AND EXISTS (SELECT 1 FROM tender_scores s WHERE s.tender_id = t.id)`,
          [pending]
        )
        const now = Date.now()
        for (const row of rows) {
          scoredAt.set(row.source_notice_id, now)
          tenderOf.set(row.id, row.source_notice_id)
        }
      }
      await sleep(100)
    }
  })()
  const start = Date.now()
  for (let n = 0; n < notices.length; n++) {
    const due = start + (n * 1000) / PUBLISH_PER_SECOND
    if (due > Date.now()) await sleep(due - Date.now())
    if (interrupted) throw new Error("interrupted")
    publishedAt.set(notices[n]!.noticeId, notices[n]!.publish())
  }
  log("all published; waiting for scores and webhooks")
  const expected = LATENCY_NOTICES * WEBHOOK_TENANTS
  const deadline = Date.now() + (POLL_SECONDS + 60) * 1000
  await waitUntil(
    "every notice scored and every webhook received",
    async () => scoredAt.size === publishedAt.size && arrivals.length >= expected,
    Math.max(0, deadline - Date.now())
  ).catch((error: Error) => log(`${error.message}: ${scoredAt.size} scored, ${arrivals.length}/${expected} webhooks`))
  // Two more polls: a notice seen again must raise no second alert nor webhook.
  await sleep((2 * POLL_SECONDS + 2) * 1000)
  watching = false
  await watcher

  const { rows: tenderRows } = await db.query<{ id: string; source_notice_id: string }>(
    `SELECT id, source_notice_id FROM tenders WHERE source = 'ted-eforms'`
  )
  for (const row of tenderRows) tenderOf.set(row.id, row.source_notice_id)
  const firstWebhook = new Map<string, number>()
  const perPair = new Map<string, number>() // receiver + tender -> arrivals
  const deliveries = new Map<string, number>()
  const everyDelivery: Array<number> = []
  let unknown = 0
  for (const arrival of arrivals) {
    deliveries.set(arrival.delivery, (deliveries.get(arrival.delivery) ?? 0) + 1)
    const body = JSON.parse(arrival.body) as { tender?: { id?: string } }
    const noticeId = tenderOf.get(body.tender?.id ?? "")
    if (noticeId === undefined) {
      unknown++
      continue
    }
    const key = `${arrival.receiver}/${noticeId}`
    perPair.set(key, (perPair.get(key) ?? 0) + 1)
    if (perPair.get(key) === 1) everyDelivery.push(arrival.at - publishedAt.get(noticeId)!)
    if (!firstWebhook.has(noticeId) || firstWebhook.get(noticeId)! > arrival.at) firstWebhook.set(noticeId, arrival.at)
  }
  const [counts] = (
    await db.query<{ tenders: number; scores: number; alerts: number; events: number; webhook_alerts: number }>(
      `SELECT (SELECT count(*)::int FROM tenders WHERE source = 'ted-eforms') AS tenders,
              (SELECT count(*)::int FROM tender_scores) AS scores,
              (SELECT count(*)::int FROM alerts) AS alerts,
              (SELECT count(*)::int FROM match_events) AS events,
              (SELECT count(*)::int FROM alerts WHERE tenant_id = ANY($1::uuid[])) AS webhook_alerts`,
      [tenants.map((t) => t.tenantId)]
    )
  ).rows
  await stopProcessGroup(worker, 15_000)
  const ids = [...publishedAt.keys()]
  return {
    settings: {
      companies: bulk + WEBHOOK_TENANTS,
      watchlists: bulk * WATCHLISTS_PER_COMPANY + WEBHOOK_TENANTS * 3,
      webhook_tenants: WEBHOOK_TENANTS,
      published_cpvs: pool.length,
      notices: LATENCY_NOTICES,
      publish_per_second: PUBLISH_PER_SECOND,
      poll_seconds: POLL_SECONDS,
      page_size: PAGE_SIZE,
      ted_request_spacing_ms: 0
    },
    publication_to_scored: distribution(
      ids.flatMap((id) => (scoredAt.has(id) ? [scoredAt.get(id)! - publishedAt.get(id)!] : []))
    ),
    publication_to_first_webhook: distribution(
      ids.flatMap((id) => (firstWebhook.has(id) ? [firstWebhook.get(id)! - publishedAt.get(id)!] : []))
    ),
    publication_to_every_webhook: distribution(everyDelivery),
    notices_scored: scoredAt.size,
    tenders: counts!.tenders,
    score_rows: counts!.scores,
    alerts: counts!.alerts,
    match_events: counts!.events,
    alerts_of_webhook_tenants: counts!.webhook_alerts,
    /** XML downloads beyond one per notice: a notice read again after a failed read. */
    xml_reads_again: stamps.filter((s) => !s.search).length - LATENCY_NOTICES,
    webhooks_expected: expected,
    webhooks_received: arrivals.length,
    webhook_pairs_missing: expected - perPair.size,
    /** A tenant's webhook for one notice received more than once (whatever its delivery id). */
    webhook_duplicates: [...perPair.values()].reduce((sum, n) => sum + n - 1, 0),
    /** One delivery id received more than once (an at-least-once retry). */
    repeated_delivery_ids: [...deliveries.values()].reduce((sum, n) => sum + n - 1, 0),
    webhooks_for_unknown_tenders: unknown,
    bad_signatures: arrivals.filter((a) => !a.signatureOk).length
  }
}

// ---------------------------------------------------------------------------------------------
// Phase 2: throughput at 5,000 companies.

const throughputPhase = async (companyCount: number, label: string) => {
  const { url, db } = await freshDatabase(label)
  const cpv = await loadCpv(db)
  const companies = companyCount === 0 ? 0 : await seedCompanies(db, cpv, companyCount, [], 0)
  await db.query("ANALYZE")
  const { ted, stamps } = await startTed()
  const built = Array.from({ length: THROUGHPUT_NOTICES }, (_, n) => publishNotice(ted, cpv.tenderable(), 10_000 + n))
  for (const notice of built) notice.publish()
  log(`throughput: ${companies} companies, ${THROUGHPUT_NOTICES} notices published at once; starting the worker`)

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-bench-ingest-"))
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }))
  const profileDir =
    process.env.INGEST_BENCH_CPU_PROF === "1"
      ? fs.mkdtempSync(path.join(os.tmpdir(), `tss-bench-ingest-prof-${label}-`))
      : null
  const spawnedAt = Date.now()
  const worker = startWorker(
    { DATABASE_URL: url, MASTER_KEY: randomBytes(32).toString("hex"), DATA_DIR: dataDir, TED_API_URL: ted.url },
    profileDir === null ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]
  )
  // Each tenders.score job: when it was first seen running (sampled every 100 ms).
  const runningSince = new Map<string, number>()
  const ingestedAt: Array<{ at: number; n: number }> = []
  await waitUntil(
    "every notice taken in and scored",
    async () => {
      const { rows } = await db.query<{ id: string; status: string }>(
        `SELECT id::text, status FROM jobs WHERE kind = 'tenders.score'`
      )
      const now = Date.now()
      for (const row of rows) if (row.status !== "queued" && !runningSince.has(row.id)) runningSince.set(row.id, now)
      const [ingested] = (
        await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ingested_notices WHERE source = 'ted'`)
      ).rows
      if (ingestedAt.length === 0 || ingestedAt[ingestedAt.length - 1]!.n !== ingested!.n)
        ingestedAt.push({ at: now, n: ingested!.n })
      return (
        ingested!.n >= THROUGHPUT_NOTICES &&
        rows.length > 0 &&
        rows.every((row) => row.status === "done" || row.status === "failed")
      )
    },
    PHASE_TIMEOUT_MS
  )
  const { rows: jobs } = await db.query<{
    id: string
    status: string
    tenders: number
    created: Date
    finished: Date
  }>(
    `SELECT id::text, status, jsonb_array_length(payload->'tenderIds') AS tenders, created_at AS created,
            updated_at AS finished
     FROM jobs WHERE kind = 'tenders.score' ORDER BY created_at`
  )
  const [counts] = (
    await db.query<{ tenders: number; skipped: number; scores: number; alerts: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM tenders WHERE source = 'ted-eforms') AS tenders,
              (SELECT count(*)::int FROM ingested_notices WHERE skip_reason IS NOT NULL) AS skipped,
              (SELECT count(*)::int FROM tender_scores) AS scores,
              (SELECT count(*)::int FROM alerts) AS alerts,
              (SELECT count(*)::int FROM match_events) AS events`
    )
  ).rows
  await stopProcessGroup(worker, 15_000)

  const firstSearch = stamps.find((s) => s.search)!.at
  const downloads = stamps.filter((s) => !s.search)
  const lastDownload = downloads[downloads.length - 1]!.at
  const lastIntake = Math.max(...jobs.map((j) => j.created.getTime()))
  const lastScored = Math.max(...jobs.map((j) => j.finished.getTime()))
  const wall = lastScored - firstSearch
  const scoringBusy = jobs.map((j) => j.finished.getTime() - (runningSince.get(j.id) ?? j.created.getTime()))
  const profiles = profileDir === null ? [] : fs.readdirSync(profileDir).map((f) => path.join(profileDir, f))
  return {
    settings: {
      companies,
      watchlists: companies * WATCHLISTS_PER_COMPANY,
      notices: THROUGHPUT_NOTICES,
      page_size: PAGE_SIZE,
      ted_request_spacing_ms: 0,
      webhooks: 0
    },
    worker_start_to_first_search_s: seconds(firstSearch - spawnedAt),
    wall_seconds: seconds(wall),
    notices_per_second: Math.round((counts!.tenders / wall) * 1000),
    timeline_s: {
      last_xml_downloaded: seconds(lastDownload - firstSearch),
      last_page_taken_in: seconds(lastIntake - firstSearch),
      last_tender_scored: seconds(lastScored - firstSearch)
    },
    search_requests: stamps.filter((s) => s.search).length,
    xml_downloads: downloads.length,
    download_parse_intake_notices_per_second: Math.round((counts!.tenders / (lastIntake - firstSearch)) * 1000),
    score_jobs: jobs.length,
    score_job_tenders: jobs.map((j) => j.tenders),
    score_jobs_failed: jobs.filter((j) => j.status !== "done").length,
    score_job_seconds: distribution(scoringBusy),
    score_job_seconds_sum: seconds(scoringBusy.reduce((sum, ms) => sum + ms, 0)),
    tenders: counts!.tenders,
    skipped: counts!.skipped,
    score_rows: counts!.scores,
    pairs_per_tender: Number((counts!.scores / Math.max(1, counts!.tenders)).toFixed(1)),
    alerts: counts!.alerts,
    match_events: counts!.events,
    intake_progress: ingestedAt.map((p) => [seconds(p.at - firstSearch), p.n]),
    ...(profiles.length > 0 ? { cpu_profiles: profiles } : {})
  }
}

// ---------------------------------------------------------------------------------------------

const main = async () => {
  const startedAt = Date.now()
  const latency = await latencyPhase()
  log(
    `latency: publication -> scored p50 ${latency.publication_to_scored.p50_ms} ms, p99 ${latency.publication_to_scored.p99_ms} ms; -> webhook p99 ${latency.publication_to_first_webhook.p99_ms} ms`
  )
  const throughput = await throughputPhase(THROUGHPUT_COMPANIES, "throughput")
  log(`throughput: ${throughput.notices_per_second} notices/s; the same notices with no companies (ingestion alone)`)
  const ingestionAlone = await throughputPhase(0, "nocompanies")
  const targetMs = (POLL_SECONDS + 10) * 1000
  const report = {
    machine: `${os.availableParallelism()} cores, node ${process.version}${QUICK ? " (--quick)" : ""}`,
    latency,
    throughput,
    ingestion_alone_no_companies: ingestionAlone,
    targets: {
      p99_publication_to_webhook_ms: `< ${targetMs} (poll interval + 10 s)`,
      p99_met: latency.publication_to_first_webhook.p99_ms < targetMs,
      notices_per_second: ">= 100 at 5,000 companies",
      throughput_met: throughput.notices_per_second >= 100
    },
    bench_seconds: seconds(Date.now() - startedAt)
  }
  const row = (label: string, d: { p50_ms: number; p99_ms: number; max_ms: number; n: number }) =>
    `${label.padEnd(44)} ${String(d.p50_ms).padStart(7)} ${String(d.p99_ms).padStart(7)} ${String(d.max_ms).padStart(7)} ${String(d.n).padStart(6)}`
  console.log(
    [
      "",
      `Latency (${latency.settings.companies} companies, ${latency.settings.notices} notices at ${PUBLISH_PER_SECOND}/s, poll every ${POLL_SECONDS} s)`,
      `${"".padEnd(44)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"max ms".padStart(7)} ${"n".padStart(6)}`,
      row("publication -> scored in the list", latency.publication_to_scored),
      row("publication -> first webhook received", latency.publication_to_first_webhook),
      row("publication -> each tenant's webhook", latency.publication_to_every_webhook),
      `alerts ${latency.alerts}, webhooks ${latency.webhooks_received}/${latency.webhooks_expected}, duplicates ${latency.webhook_duplicates}, missing ${latency.webhook_pairs_missing}`,
      "",
      `Throughput (${throughput.settings.companies} companies, ${throughput.settings.notices} notices at once, page ${PAGE_SIZE})`,
      `first search -> all scored: ${throughput.wall_seconds} s = ${throughput.notices_per_second} notices/s (download+parse+intake done at ${throughput.timeline_s.last_page_taken_in} s)`,
      `scoring jobs (${throughput.score_jobs} x ${PAGE_SIZE} tenders, ${throughput.pairs_per_tender} pairs/tender): p50 ${seconds(throughput.score_job_seconds.p50_ms)} s each, ${throughput.score_job_seconds_sum} s in all`,
      `the same ${ingestionAlone.settings.notices} notices with no companies (download + parse + intake alone): ${ingestionAlone.wall_seconds} s = ${ingestionAlone.notices_per_second} notices/s`,
      ""
    ].join("\n")
  )
  console.log(JSON.stringify(report, null, 2))
}

try {
  await main()
} catch (error) {
  console.error(error)
  process.exitCode = 1
} finally {
  await cleanup()
}
