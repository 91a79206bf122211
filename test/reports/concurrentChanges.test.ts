import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { client, query, type SeededAccount, seedAccount, signIn, waitingOn } from "../account/fixtures.js"
import { ledgerState } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * Report creation and download while something else changes what they use: the report's watchlist
 * deleted meanwhile (spec 4.3, 4.6), a PDF that cannot be read. Real server and database; a second
 * connection holds locks to stop a request at a chosen statement. No worker: reports stay queued.
 */

const BODY = { date_from: "2026-11-01", date_to: "2026-11-30" }
const CREDITS = 100_000
const PDF = new TextEncoder().encode("%PDF-1.4 stand-in\n%%EOF")

describe("report creation and download under concurrent changes", { timeout: 120_000 }, () => {
  let server: TestServer
  let account: SeededAccount
  let app: ReturnType<typeof client>
  let key: string

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 100_000, reportsPerHour: 100_000 } })
    account = await seedAccount(server, "consultant")
    app = client(server, (await signIn(server, account)).accessToken)
    key = await server.run(
      Effect.gen(function* () {
        const { key } = yield* (yield* ApiKeysRepo).create({ tenantId: account.tenantId, name: "reports" })
        yield* (yield* CreditLedger).set({ tenantId: account.tenantId, remaining: CREDITS, reason: "test" })
        return key
      }).pipe(Effect.orDie)
    )
  })
  afterAll(() => server.close())

  const createReport = (watchlistId: string) =>
    request(`${server.baseUrl}/api/v1/reports/${account.companyId}/pdf`, {
      method: "POST",
      token: key,
      body: { ...BODY, watchlist_id: watchlistId }
    })
  const newWatchlist = async () => (await app.post("/api/v1/watchlists", { name: "Drumuri" })).body.data.id as string
  const reportsOf = async (watchlistId: string) =>
    (
      await query<{ n: number }>(
        server,
        "SELECT count(*)::int AS n FROM report_jobs WHERE params->>'watchlist_id' = $1",
        [watchlistId]
      )
    )[0]!.n
  /** The deletion's answer, with the reports of the watchlist that existed when it came. */
  const deleteWatchlist = async (watchlistId: string) => {
    const answer = await app.delete(`/api/v1/watchlists/${watchlistId}`)
    return { status: answer.status, reportsThen: await reportsOf(watchlistId) }
  }
  /** Resolves once `n` statements of the test database wait for a lock. */
  const lockWaits = async (n: number) => {
    for (;;) {
      const [row] = await query<{ n: number }>(
        server,
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`
      )
      if (row!.n >= n) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  /** Every report queued holds its 10 credits, and nothing else is held. */
  const expectCreditsMatchReports = async () => {
    const [reports] = await query<{ n: number; held: number }>(
      server,
      "SELECT count(*)::int AS n, coalesce(sum(credits_held), 0)::int AS held FROM report_jobs WHERE tenant_id = $1",
      [account.tenantId]
    )
    const [holds] = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM credit_ledger WHERE tenant_id = $1 AND kind = 'hold'",
      [account.tenantId]
    )
    expect(reports!.held).toBe(10 * reports!.n)
    expect(holds!.n).toBe(reports!.n)
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(CREDITS - 10 * reports!.n)
  }
  const withHolder = async <A>(use: (holder: pg.Client) => Promise<A>) => {
    const holder = new pg.Client({ connectionString: server.databaseUrl })
    await holder.connect()
    try {
      await holder.query("BEGIN")
      return await use(holder)
    } finally {
      await holder.end()
    }
  }

  it("a watchlist deleted while its report is queued: the deletion waits, no report appears after it", async () => {
    const watchlistId = await newWatchlist()
    const [created, deleted] = await withHolder(async (holder) => {
      // Stops the creation at its INSERT, past the check of the watchlist.
      await holder.query("LOCK TABLE report_jobs IN SHARE ROW EXCLUSIVE MODE")
      const creating = createReport(watchlistId)
      await waitingOn(server, "report_jobs")
      const deleting = deleteWatchlist(watchlistId)
      // The deletion either answers at once or waits behind the report's lock on the watchlist.
      await Promise.race([deleting, lockWaits(2)])
      await holder.query("COMMIT")
      return Promise.all([creating, deleting])
    })
    expect(deleted.status).toBe(204)
    expect(created.status).toBe(202)
    // Queued before the deletion took effect, or refused: never a report of a watchlist already deleted.
    expect(deleted.reportsThen).toBe(await reportsOf(watchlistId))
    await expectCreditsMatchReports()
  })

  it("a report requested while its watchlist's deletion is in progress waits for it, then 400 with nothing held", async () => {
    const watchlistId = await newWatchlist()
    const before = (await ledgerState(server, account.tenantId)).remaining
    const answer = await withHolder(async (holder) => {
      // An uncommitted deletion: the request's first check still sees a live watchlist.
      await holder.query("UPDATE watchlists SET deleted_at = now(), active = false WHERE id = $1", [watchlistId])
      const creating = createReport(watchlistId)
      const first = await Promise.race([creating.then(() => "answered"), lockWaits(1).then(() => "waiting")])
      expect(first).toBe("waiting")
      await holder.query("COMMIT")
      return creating
    })
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
    expect(answer.body.details.map((d: { path: string }) => d.path)).toEqual(["watchlist_id"])
    expect(await reportsOf(watchlistId)).toBe(0)
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(before)
    await expectCreditsMatchReports()
  })

  it("reports created while their watchlist is deleted, 20 times: 202 or 400, credits held for exactly the reports", async () => {
    for (let round = 0; round < 20; round++) {
      const watchlistId = await newWatchlist()
      const creations = Promise.all(Array.from({ length: 3 }, () => createReport(watchlistId)))
      const deletion = new Promise((resolve) => setTimeout(resolve, round % 5)).then(() => deleteWatchlist(watchlistId))
      const [answers, deleted] = await Promise.all([creations, deletion])
      expect(deleted.status).toBe(204)
      for (const answer of answers) {
        expect([202, 400]).toContain(answer.status)
        if (answer.status === 400) expect(answer.body.details[0].path).toBe("watchlist_id")
      }
      expect(deleted.reportsThen).toBe(await reportsOf(watchlistId))
      expect(await reportsOf(watchlistId)).toBe(answers.filter((a) => a.status === 202).length)
    }
    await expectCreditsMatchReports()
  })

  /** A completed report of the account with its PDF stored, and a fresh download token for it. */
  const completedReport = async () => {
    const [job] = await query<{ id: string }>(
      server,
      `INSERT INTO report_jobs (tenant_id, company_id, params, status, completed_at)
       VALUES ($1, $2, $3, 'completed', now()) RETURNING id`,
      [account.tenantId, account.companyId, JSON.stringify({ ...BODY, min_score: 0, watchlist_id: null })]
    )
    await query(server, "INSERT INTO report_files (job_id, pdf, byte_size, created_at) VALUES ($1, $2, $3, now())", [
      job!.id,
      Buffer.from(PDF),
      PDF.byteLength
    ])
    const link = await request(`${server.baseUrl}/api/v1/reports/jobs/${job!.id}/download`, { token: key })
    expect(link.status).toBe(200)
    const url = `${server.baseUrl}${new URL(link.body.download_url).pathname}`
    return { jobId: job!.id, download: () => fetch(url) }
  }
  const downloadsOf = async (jobId: string) =>
    (await query<{ downloads: number }>(server, "SELECT downloads FROM download_tokens WHERE job_id = $1", [jobId]))[0]!
      .downloads

  it("a download whose PDF is missing is 410 and uses up none of the token's 3 downloads", async () => {
    const report = await completedReport()
    await query(server, "DELETE FROM report_files WHERE job_id = $1", [report.jobId])
    const missing = await report.download()
    expect(missing.status).toBe(410)
    expect(await missing.json()).toMatchObject({ statusCode: 410, code: "DOWNLOAD_TOKEN_EXPIRED" })
    expect(await downloadsOf(report.jobId)).toBe(0)
    await query(server, "INSERT INTO report_files (job_id, pdf, byte_size, created_at) VALUES ($1, $2, $3, now())", [
      report.jobId,
      Buffer.from(PDF),
      PDF.byteLength
    ])
    const statuses: Array<number> = []
    for (let i = 0; i < 4; i++) statuses.push((await report.download()).status)
    expect(statuses).toEqual([200, 200, 200, 410])
  })

  it("a download the storage fails to read is a 500 that uses up none of the 3 downloads", async () => {
    const report = await completedReport()
    // The storage's table unreadable for a moment: its read fails with an SQL error.
    await query(server, "ALTER TABLE report_files RENAME TO report_files_away")
    let failed: Response
    try {
      failed = await report.download()
    } finally {
      await query(server, "ALTER TABLE report_files_away RENAME TO report_files")
    }
    expect(failed.status).toBe(500)
    expect(await failed.json()).toMatchObject({ statusCode: 500 })
    expect(await downloadsOf(report.jobId)).toBe(0)
    const statuses = await Promise.all(Array.from({ length: 4 }, () => report.download()))
    expect(statuses.map((r) => r.status).sort()).toEqual([200, 200, 200, 410])
  })

  it("10 concurrent downloads of one token: exactly 3 PDFs, also after failed reads", async () => {
    const report = await completedReport()
    await query(server, "DELETE FROM report_files WHERE job_id = $1", [report.jobId])
    const failing = await Promise.all(Array.from({ length: 10 }, () => report.download()))
    expect(failing.map((r) => r.status)).toEqual(Array(10).fill(410))
    await query(server, "INSERT INTO report_files (job_id, pdf, byte_size, created_at) VALUES ($1, $2, $3, now())", [
      report.jobId,
      Buffer.from(PDF),
      PDF.byteLength
    ])
    const responses = await Promise.all(Array.from({ length: 10 }, () => report.download()))
    const ok = responses.filter((r) => r.status === 200)
    expect(ok).toHaveLength(3)
    expect(responses.filter((r) => r.status === 410)).toHaveLength(7)
    for (const r of ok) {
      expect(r.headers.get("content-type")).toBe("application/pdf")
      expect(r.headers.get("content-disposition")).toBe(
        'attachment; filename="tender-report-2026-11-01-2026-11-30.pdf"'
      )
      expect(new Uint8Array(await r.arrayBuffer())).toEqual(PDF)
    }
    expect(await responses.find((r) => r.status === 410)!.json()).toMatchObject({
      statusCode: 410,
      code: "DOWNLOAD_TOKEN_EXPIRED"
    })
    expect(await downloadsOf(report.jobId)).toBe(3)
  })
})
