import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Tender } from "../../src/domain/tenders/TenderRecord.js"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { RescoreCompany, ScoreTenders } from "../../src/infra/scoring/ScoringJobKinds.js"
import { TenderStore } from "../../src/infra/tenders/TenderStore.js"
import { type Account, api, createAccount } from "../api/fixtures.js"
import { entryPointArgs, PROJECT_ROOT } from "../foundation/processes.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * Issue 13: a list pagination is a snapshot of page 1 even while the real worker process scores
 * tenders that were stored before page 1, scores new ones, and rescores the company (scores change,
 * pairs stop being candidates). Nothing here writes a score: every score row comes from the worker.
 */

const FURNITURE = [
  "Furnizare mobilier școlar pentru grădinițe",
  "Mobilier școlar: bănci și scaune pentru elevi",
  "Dotare cu mobilier a laboratoarelor școlare",
  "Mese și scaune pentru cantina școlii",
  "Mobilier de birou pentru primărie",
  "Dulapuri metalice pentru vestiare",
  "Mobilier pentru biblioteca județeană",
  "Catedre și table școlare",
  "Paturi și mobilier pentru internat",
  "Mobilier ergonomic pentru săli de clasă"
]

let counter = 0
const tender = (title: string, mainCpv: string, publishDay: number): Tender => ({
  source: "hardening",
  sourceNoticeId: `H-${++counter}-${randomUUID().slice(0, 8)}`,
  noticeType: "contract",
  title,
  description: `${title}. Livrare și montaj.`,
  mainCpv,
  additionalCpvs: [],
  authority: { name: "Primăria Test", normalizedName: "primaria test", fiscalCode: null, county: "Cluj" },
  // Open (no deadline): a company rescore recomputes it.
  deadline: null,
  estimatedValueRon: 100_000 + counter * 1_000,
  estimatedValueEur: null,
  publishDate: new Date(Date.UTC(2026, 9, publishDay, 8)),
  sourceUrl: "https://e-licitatie.ro/notice/x",
  winnerFiscalCodes: []
})

const startWorker = (databaseUrl: string, dataDir: string) =>
  spawn(process.execPath, entryPointArgs("worker"), {
    cwd: PROJECT_ROOT,
    stdio: "ignore",
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      MASTER_KEY: randomBytes(32).toString("hex"),
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn"
    }
  })

describe("list cursors under late scoring and rescoring (real worker process)", () => {
  let server: TestServer
  let account: Account
  let worker: ChildProcess
  let dataDir: string

  const sqlRun = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    server.run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))

  /** Stores tenders as an import does, then queues their scoring for the worker (not done here). */
  const importTenders = (tenders: ReadonlyArray<Tender>) =>
    server.run(
      Effect.gen(function* () {
        const result = yield* (yield* TenderStore).upsert(tenders)
        return result.inserted
      })
    )
  const queueScoring = (ids: ReadonlyArray<string>) =>
    server.run(
      Effect.flatMap(JobQueue, (q) => q.enqueue(ScoreTenders, { tenderIds: ids, isNew: ids })).pipe(Effect.orDie)
    )

  const scoredCount = (ids: ReadonlyArray<string>) =>
    sqlRun(
      (sql) => sql<{ n: number }>`
        SELECT count(*)::int AS n FROM tender_scores WHERE company_id = ${account.companyId} AND tender_id = ANY(${ids}::uuid[])`
    ).then((rows) => rows[0]!.n)
  const jobsLeft = () =>
    sqlRun((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running')`).then(
      (rows) => rows[0]!.n
    )
  /** Waits (up to 60 s) until the worker has finished every queued job. */
  const workerIdle = async () => {
    for (let i = 0; i < 600; i++) {
      if ((await jobsLeft()) === 0) {
        const failed = await sqlRun(
          (sql) => sql<{ last_error: string }>`SELECT last_error FROM jobs WHERE status = 'failed'`
        )
        expect(failed).toEqual([])
        return
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error("the worker did not finish its jobs")
  }

  const list = async (params: Record<string, string | number>) => {
    const res = await request(api(server, "/api/v1/tenders", { companyId: account.companyId, ...params }), {
      token: account.key
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as {
      data: Array<{ tender_id: string; score: number }>
      meta: { total: number; next_cursor: string | null; has_more: boolean }
    }
  }
  const ranking = async () => (await list({ limit: 100 })).data.map((d) => `${d.tender_id}:${d.score}`)

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 100_000, exportPerHour: 100_000 } })
    account = await createAccount(server, { credits: 1_000_000 })
    await sqlRun(
      (sql) => sql`
        UPDATE companies SET description = 'Mobilier școlar, bănci, scaune și catedre' WHERE id = ${account.companyId}`
    )
    await sqlRun(
      (sql) => sql`
        INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score)
        VALUES (${account.tenantId}, ${account.companyId}, 'Mobilier', '{39160000-1}', '{mobilier}', 0),
               (${account.tenantId}, ${account.companyId}, 'IT', '{30213000-5}', '{}', 0)`
    )
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-hardening-"))
    worker = startWorker(server.databaseUrl, dataDir)
  }, 60_000)

  afterAll(async () => {
    if (worker.exitCode === null) worker.kill("SIGKILL")
    await server.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("a page sequence is exactly page 1's snapshot: no repeat, no skip, nothing that arrived later", async () => {
    // 20 furniture tenders and 8 laptop tenders, stored and scored by the worker.
    const furniture = Array.from({ length: 20 }, (_, i) => tender(FURNITURE[i % 10]!, "39160000-1", 1 + i))
    const laptops = Array.from({ length: 8 }, (_, i) =>
      tender(`Laptopuri pentru școli, lotul ${i}`, "30213000-5", 1 + i)
    )
    const scored = await importTenders([...furniture, ...laptops])
    await queueScoring(scored)
    await workerIdle()
    expect(await scoredCount(scored)).toBe(28)

    // Stored before page 1, scored by the worker only after it (a worker that lags behind imports).
    const late = await importTenders(Array.from({ length: 6 }, (_, i) => tender(FURNITURE[i]!, "39160000-1", 25 + i)))

    const snapshot = await ranking()
    expect(snapshot).toHaveLength(28)
    const first = await list({ limit: 5 })
    expect(first.meta.total).toBe(28)
    const seen = first.data.map((d) => `${d.tender_id}:${d.score}`)
    let cursor = first.meta.next_cursor

    const next = async (limit: number) => {
      const page = await list({ limit, cursor: cursor! })
      expect(page.meta.total).toBe(28)
      seen.push(...page.data.map((d) => `${d.tender_id}:${d.score}`))
      cursor = page.meta.next_cursor
    }

    // The late tenders get scored; they rank high (same text as the best ones, newer).
    await queueScoring(late)
    await workerIdle()
    expect(await scoredCount(late)).toBe(6)
    await next(4)

    // New tenders arrive and are scored.
    const arrived = await importTenders(
      Array.from({ length: 5 }, (_, i) => tender(FURNITURE[9 - i]!, "39160000-1", 10 + i))
    )
    await queueScoring(arrived)
    await workerIdle()
    expect(await scoredCount(arrived)).toBe(5)
    await next(3)

    // The company is rescored: a new description reorders the furniture, and the laptop watchlist
    // is removed, so the laptop pairs stop being candidates and are deleted.
    await sqlRun(
      (sql) => sql`
        UPDATE companies SET description = 'Mobilier de birou, dulapuri metalice, paturi pentru internat'
        WHERE id = ${account.companyId}`
    )
    await sqlRun(
      (sql) => sql`UPDATE watchlists SET deleted_at = now() WHERE company_id = ${account.companyId} AND name = 'IT'`
    )
    await server.run(
      Effect.flatMap(JobQueue, (q) => q.enqueue(RescoreCompany, { companyId: account.companyId })).pipe(Effect.orDie)
    )
    await workerIdle()
    const rescored = await ranking()
    // The rescore did change what a fresh page 1 sees (else this test would prove nothing).
    const furnitureIds = new Set(scored.slice(0, 20))
    const changed = rescored.filter((r) => furnitureIds.has(r.split(":")[0]!) && !snapshot.includes(r))
    expect(changed.length).toBeGreaterThan(0)
    expect(await scoredCount(scored.slice(20))).toBe(0)

    while (cursor !== null) await next(4)

    // Exactly page 1's snapshot, in its order, with page 1's scores.
    expect(seen).toEqual(snapshot)
    expect(new Set(seen).size).toBe(seen.length)
    for (const id of [...late, ...arrived]) expect(seen.some((s) => s.startsWith(id))).toBe(false)
  }, 180_000)
})
