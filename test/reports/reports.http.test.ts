import type { ChildProcess } from "node:child_process"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { query } from "../account/fixtures.js"
import { type Account, addScoredTenders, createAccount, ledgerState } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { readPdf } from "./fixtures.js"
import { eventually, killHard, startWorker } from "./workerProcess.js"

/** Spec 4.3 against the real server, a real worker process and a real Chromium; the PDFs are parsed. */

const PUBLIC_BASE_URL = "https://rapoarte.example.test"
const MARKUP_TITLE = `<script>alert("x")</script><b>Achiziție</b> & <i>întreținere</i>`
const BODY = { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 0 }

// Generous timeouts: the first report starts the worker's renderer process and Chromium, which on a
// busy 2-core machine takes most of a minute.
describe("PDF reports over HTTP", { timeout: 300_000 }, () => {
  let server: TestServer
  let worker: ChildProcess
  let account: Account
  let tenderIds: Array<string>

  const post = (companyId: string, body: unknown, key = account.key) =>
    request(`${server.baseUrl}/api/v1/reports/${companyId}/pdf`, { method: "POST", token: key, body })
  const status = (jobId: string, key = account.key) =>
    request(`${server.baseUrl}/api/v1/reports/jobs/${jobId}/status`, { token: key })
  const downloadUrl = (jobId: string, key = account.key) =>
    request(`${server.baseUrl}/api/v1/reports/jobs/${jobId}/download`, { token: key })
  /** The download URL's path on this test server (the URL itself names PUBLIC_BASE_URL). */
  const download = (url: string) => fetch(`${server.baseUrl}${new URL(url).pathname}`)
  const completed = (jobId: string) =>
    eventually(async () => {
      const answer = await status(jobId)
      expect(answer.body.status).not.toBe("failed")
      return answer.body.status === "completed" ? answer : undefined
    })

  beforeAll(async () => {
    server = await startTestServer({
      publicBaseUrl: PUBLIC_BASE_URL,
      rateLimits: { generalPerMinute: 100_000, reportsPerHour: 1_000 }
    })
    account = await createAccount(server, { credits: 100 })
    await query(server, "UPDATE tenants SET name = 'Consultanță Achiziții Publice SRL' WHERE id = $1", [
      account.tenantId
    ])
    await query(server, "UPDATE companies SET name = 'Drumuri și Poduri Transilvania SRL' WHERE id = $1", [
      account.companyId
    ])
    tenderIds = await addScoredTenders(server, account, [
      { title: MARKUP_TITLE, score: 91, publishDate: "2026-11-05T09:00:00Z", county: "Cluj" },
      {
        title: "Modernizare străzi în municipiul Târgu Mureș",
        score: 64,
        publishDate: "2026-11-10T09:00:00Z",
        // Passed before any report of these tests is generated: marked in the PDF.
        deadline: "2026-11-20T10:00:00Z"
      },
      { title: "Furnizare echipamente IT", score: 22, publishDate: "2026-11-20T09:00:00Z", valueRon: null },
      { title: "Outside the period", score: 99, publishDate: "2026-10-31T21:59:00Z" }
    ])
    worker = startWorker(server.databaseUrl)
  })
  afterAll(async () => {
    await killHard(worker)
    await server.close()
  })

  it("creation → 202 generating; the worker completes it; 10 credits charged once; the PDF is the report", async () => {
    const before = (await ledgerState(server, account.tenantId)).remaining!
    const created = await post(account.companyId, BODY)
    expect(created.status).toBe(202)
    expect(created.body).toEqual({ job_id: expect.any(String), status: "generating", estimated_seconds: 5 })
    // Held at once: the balance no longer offers these credits; the charge itself waits for completion.
    expect(created.headers.get("x-api-credits-cost")).toBe("0")
    expect(created.headers.get("x-api-credits-remaining")).toBe(String(before - 10))

    const done = await completed(created.body.job_id)
    expect(done.body).toEqual({ job_id: created.body.job_id, status: "completed" })
    const ledger = await ledgerState(server, account.tenantId)
    expect(ledger.remaining).toBe(before - 10)
    const charges = await query<{ kind: string; delta: number }>(
      server,
      "SELECT kind, delta FROM credit_ledger WHERE tenant_id = $1 AND reason LIKE $2 ORDER BY id",
      [account.tenantId, `report ${created.body.job_id}%`]
    )
    expect(charges).toEqual([
      { kind: "hold", delta: -10 },
      { kind: "release", delta: 10 },
      { kind: "charge", delta: -10 }
    ])

    const link = await downloadUrl(created.body.job_id)
    expect(link.status).toBe(200)
    expect(link.headers.get("cache-control")).toBe("no-store")
    expect(link.body.download_url).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/api/v1/reports/download/[0-9a-f]{64}$`))
    const expiresIn = Date.parse(link.body.expires_at) - Date.now()
    expect(expiresIn).toBeGreaterThan(14 * 60_000)
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000)
    // Stored hashed: the table holds the SHA-256 of the token, never the token.
    const token = link.body.download_url.split("/").pop()
    const stored = await query<{ hex: string }>(
      server,
      "SELECT encode(token_hash, 'hex') AS hex FROM download_tokens WHERE job_id = $1",
      [created.body.job_id]
    )
    expect(stored.map((r) => r.hex)).toEqual([createHash("sha256").update(token).digest("hex")])

    const response = await download(link.body.download_url)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/pdf")
    expect(response.headers.get("content-disposition")).toBe(
      'attachment; filename="tender-report-2026-11-01-2026-11-30.pdf"'
    )
    expect(response.headers.get("cache-control")).toBe("no-store")
    const { pages, text } = await readPdf(new Uint8Array(await response.arrayBuffer()))
    expect(pages).toBeGreaterThanOrEqual(1)
    expect(text).toContain("Drumuri și Poduri Transilvania SRL")
    expect(text).toContain("Consultanță Achiziții Publice SRL")
    expect(text).toContain("Târgu Mureș")
    // The title is text: its markup is printed, not interpreted.
    expect(text).toContain(`<script>alert("x")</script><b>Achiziție</b> & <i>întreținere</i>`)
    // The Romanian CPV label of 45000000-7, with the comma-below ț the table's cedilla became.
    expect(text).toContain("Lucrări de construcții")
    expect(text).not.toMatch(/[şţŞŢ]/)
    // Romanian: the app's verdict words, dates and numbers; the passed deadline marked; the top
    // tenders' reasons as the app phrases them (this company has no description, no watchlist).
    const flat = text.replace(/\s+/g, " ")
    for (const label of ["MERITĂ", "DE ANALIZAT", "NU MERITĂ"]) expect(flat).toContain(label)
    expect(flat).not.toMatch(/\b(GO|RESEARCH|SKIP)\b/)
    expect(flat).toContain("Perioada: 01.11.2026 – 30.11.2026")
    expect(flat).toContain("20.11.2026, 12:00")
    // The mark (upper case by its style) on the row and on its breakdown, and the legend.
    expect(flat.match(/TERMEN EXPIRAT/g)).toHaveLength(2)
    expect(flat).toContain("O licitație are termenul de depunere depășit")
    expect(flat).toContain("100.000 RON")
    expect(flat).toContain("nicio descriere, niciun cuvânt cheie și niciun titlu de contract câștigat de comparat")
    expect(flat).toContain("fără cod fiscal nu există un istoric de contracte de comparat")
    expect(flat).not.toContain("no evidence")
    expect(text).not.toContain("Outside the period")
    expect(text).toContain(`Pagina 1 din ${pages}`)
  })

  it("20 concurrent downloads of one token: exactly 3 PDFs, the rest 410 DOWNLOAD_TOKEN_EXPIRED", async () => {
    const created = await post(account.companyId, BODY)
    await completed(created.body.job_id)
    const link = await downloadUrl(created.body.job_id)
    const responses = await Promise.all(Array.from({ length: 20 }, () => download(link.body.download_url)))
    const statuses = responses.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(3)
    expect(statuses.filter((s) => s === 410)).toHaveLength(17)
    for (const r of responses.filter((r) => r.status === 200)) {
      expect(
        Buffer.from(await r.arrayBuffer())
          .subarray(0, 5)
          .toString()
      ).toBe("%PDF-")
    }
    const gone = responses.find((r) => r.status === 410)!
    expect(await gone.json()).toMatchObject({ statusCode: 410, code: "DOWNLOAD_TOKEN_EXPIRED" })
    // A fresh URL works again: each request issues its own token.
    const again = await downloadUrl(created.body.job_id)
    expect((await download(again.body.download_url)).status).toBe(200)
  })

  it("HEAD on a download URL is 405 with Allow: GET and uses up none of its 3 downloads", async () => {
    const created = await post(account.companyId, BODY)
    await completed(created.body.job_id)
    const link = await downloadUrl(created.body.job_id)
    const url = `${server.baseUrl}${new URL(link.body.download_url).pathname}`
    for (let i = 0; i < 3; i++) {
      const head = await fetch(url, { method: "HEAD" })
      expect(head.status).toBe(405)
      expect(head.headers.get("allow")).toBe("GET")
    }
    const pdfs = await Promise.all(Array.from({ length: 4 }, () => fetch(url)))
    expect(pdfs.map((r) => r.status).sort()).toEqual([200, 200, 200, 410])
  })

  it("HEAD on the download-URL endpoint is 405 with Allow: GET and stores no token", async () => {
    const created = await post(account.companyId, BODY)
    await completed(created.body.job_id)
    const tokens = async () =>
      (
        await query<{ n: number }>(server, "SELECT count(*)::int AS n FROM download_tokens WHERE job_id = $1", [
          created.body.job_id
        ])
      )[0]!.n
    const head = await fetch(`${server.baseUrl}/api/v1/reports/jobs/${created.body.job_id}/download`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${account.key}` }
    })
    expect(head.status).toBe(405)
    expect(head.headers.get("allow")).toBe("GET")
    expect(await tokens()).toBe(0)
    expect((await downloadUrl(created.body.job_id)).status).toBe(200)
    expect(await tokens()).toBe(1)
  })

  it("an unknown or malformed token is 410 in the uniform body, without authentication", async () => {
    for (const token of ["0".repeat(64), "nope", "A".repeat(64)]) {
      const answer = await request(`${server.baseUrl}/api/v1/reports/download/${token}`)
      expect(answer.status).toBe(410)
      expect(answer.body).toMatchObject({
        statusCode: 410,
        code: "DOWNLOAD_TOKEN_EXPIRED",
        message: expect.any(String)
      })
    }
  })

  it("an empty period still gives a valid report that says so", async () => {
    const created = await post(account.companyId, { date_from: "2025-01-01", date_to: "2025-01-31" })
    await completed(created.body.job_id)
    const link = await downloadUrl(created.body.job_id)
    const { pages, text } = await readPdf(new Uint8Array(await (await download(link.body.download_url)).arrayBuffer()))
    expect(pages).toBe(1)
    expect(text).toContain("Nicio licitație în această perioadă")
  })

  it("min_score and watchlist_id filter the tenders", async () => {
    const created = await post(account.companyId, { ...BODY, min_score: 60 })
    await completed(created.body.job_id)
    const link = await downloadUrl(created.body.job_id)
    const { text } = await readPdf(new Uint8Array(await (await download(link.body.download_url)).arrayBuffer()))
    expect(text).toContain("Târgu Mureș")
    expect(text).not.toContain("Furnizare echipamente IT")

    const [watchlist] = await query<{ id: string }>(
      server,
      "INSERT INTO watchlists (tenant_id, company_id, name) VALUES ($1, $2, 'Drumuri') RETURNING id",
      [account.tenantId, account.companyId]
    )
    await query(
      server,
      `INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, tender_publish_date)
       VALUES ($1, $2, $3, $4, 64, 'RESEARCH', (SELECT publish_date FROM tenders WHERE id = $4))`,
      [account.tenantId, account.companyId, watchlist!.id, tenderIds[1]]
    )
    const filtered = await post(account.companyId, { ...BODY, watchlist_id: watchlist!.id.toUpperCase() })
    expect(filtered.status).toBe(202)
    await completed(filtered.body.job_id)
    const only = await readPdf(
      new Uint8Array(await (await download((await downloadUrl(filtered.body.job_id)).body.download_url)).arrayBuffer())
    )
    expect(only.text).toContain("Târgu Mureș")
    expect(only.text).toContain("„Drumuri”")
    expect(only.text).not.toContain("Furnizare echipamente IT")
    expect(only.text).not.toContain("alert(")
  })

  it("download URL before completion: 409 REPORT_NOT_READY naming the status", async () => {
    const [generating] = await query<{ id: string }>(
      server,
      `INSERT INTO report_jobs (tenant_id, company_id, params, status)
       VALUES ($1, $2, $3, 'generating') RETURNING id`,
      [account.tenantId, account.companyId, JSON.stringify({ ...BODY, watchlist_id: null })]
    )
    const [failed] = await query<{ id: string }>(
      server,
      `INSERT INTO report_jobs (tenant_id, company_id, params, status, completed_at)
       VALUES ($1, $2, $3, 'failed', now()) RETURNING id`,
      [account.tenantId, account.companyId, JSON.stringify({ ...BODY, watchlist_id: null })]
    )
    const early = await downloadUrl(generating!.id)
    expect(early.status).toBe(409)
    expect(early.body).toMatchObject({ statusCode: 409, code: "REPORT_NOT_READY", status: "generating" })
    expect((await downloadUrl(failed!.id)).body).toMatchObject({ code: "REPORT_NOT_READY", status: "failed" })
    expect((await status(failed!.id)).body).toEqual({ job_id: failed!.id, status: "failed" })
  })

  it("another tenant's job, or an unknown one, is 404 on status and download", async () => {
    const created = await post(account.companyId, BODY)
    const other = await createAccount(server, { credits: 100 })
    for (const answer of [
      await status(created.body.job_id, other.key),
      await downloadUrl(created.body.job_id, other.key),
      await status("00000000-0000-4000-8000-000000000000")
    ]) {
      expect(answer.status).toBe(404)
      expect(answer.body).toMatchObject({ statusCode: 404, code: "NOT_FOUND" })
    }
    expect((await status("not-a-uuid")).status).toBe(400)
  })

  it("bad bodies are 400 VALIDATION_ERROR naming the field; nothing is held", async () => {
    const before = (await ledgerState(server, account.tenantId)).remaining
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ date_from: "2026-11-30", date_to: "2026-11-01" }, "date_to"],
      [{ date_from: "2026-02-30", date_to: "2026-03-01" }, "date_from"],
      [{ date_from: "2026-11-01" }, "date_to"],
      [{ ...BODY, min_score: 101 }, "min_score"],
      [{ ...BODY, min_score: 5.5 }, "min_score"],
      [{ ...BODY, watchlist_id: "nope" }, "watchlist_id"],
      [{ ...BODY, watchlist_id: "00000000-0000-4000-8000-000000000000" }, "watchlist_id"]
    ]
    for (const [body, path] of cases) {
      const answer = await post(account.companyId, body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_ERROR")
      expect(answer.body.details.map((d: { path: string }) => d.path)).toContain(path)
    }
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(before)
  })

  it("another tenant's company is 403 COMPANY_ACCESS_DENIED; a plan below Consultant is 403", async () => {
    const other = await createAccount(server, { credits: 100 })
    const denied = await post(other.companyId, BODY)
    expect(denied.status).toBe(403)
    expect(denied.body.code).toBe("COMPANY_ACCESS_DENIED")
    const starter = await createAccount(server, { plan: "starter" })
    expect((await post(starter.companyId, BODY, starter.key)).body.code).toBe("PLAN_UPGRADE_REQUIRED")
  })

  it("a balance below 10 is 402 API_CREDITS_EXHAUSTED; concurrent creations hold at most the balance", async () => {
    const poor = await createAccount(server, { credits: 9 })
    const refused = await post(poor.companyId, BODY, poor.key)
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({
      statusCode: 402,
      code: "API_CREDITS_EXHAUSTED",
      credits_remaining: 9,
      credits_required: 10,
      period_ends_at: expect.stringMatching(/T00:00:00\+0[23]:00$/)
    })
    const thirty = await createAccount(server, { credits: 30 })
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(thirty.companyId, BODY, thirty.key)))
    expect(answers.filter((a) => a.status === 202)).toHaveLength(3)
    expect(answers.filter((a) => a.status === 402)).toHaveLength(5)
    expect((await ledgerState(server, thirty.tenantId)).remaining).toBe(0)
  })
})

describe("report creation rate limit (RATE_LIMIT_REPORTS_PER_HOUR)", { timeout: 120_000 }, () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { reportsPerHour: 2 } })
  })
  afterAll(() => server.close())

  it("the third creation in the hour is 429 with Retry-After, and holds nothing", async () => {
    const account = await createAccount(server, { credits: 100 })
    const post = () =>
      request(`${server.baseUrl}/api/v1/reports/${account.companyId}/pdf`, {
        method: "POST",
        token: account.key,
        body: BODY
      })
    expect((await post()).status).toBe(202)
    expect((await post()).status).toBe(202)
    const limited = await post()
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", retry_after_seconds: expect.any(Number) })
    expect(Number(limited.headers.get("retry-after"))).toBe(limited.body.retry_after_seconds)
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(80)
  })

  it("refused requests (invalid body, foreign company) do not count: the hour's creations stay available", async () => {
    const account = await createAccount(server, { credits: 100 })
    const other = await createAccount(server, { credits: 100 })
    const post = (companyId: string, body: unknown) =>
      request(`${server.baseUrl}/api/v1/reports/${companyId}/pdf`, { method: "POST", token: account.key, body })
    const refused = await Promise.all([
      ...Array.from({ length: 3 }, () => post(account.companyId, { ...BODY, date_from: "2026-12-01" })),
      ...Array.from({ length: 3 }, () => post(other.companyId, BODY))
    ])
    expect(refused.map((r) => r.status).sort()).toEqual([400, 400, 400, 403, 403, 403])
    expect((await post(account.companyId, BODY)).status).toBe(202)
    expect((await post(account.companyId, BODY)).status).toBe(202)
    expect((await post(account.companyId, BODY)).status).toBe(429)
  })
})

describe("report creation is its own rate-limit group (spec 8.1), apart from general", { timeout: 120_000 }, () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 2, reportsPerHour: 10 } })
  })
  afterAll(() => server.close())

  const create = (account: Account) =>
    request(`${server.baseUrl}/api/v1/reports/${account.companyId}/pdf`, {
      method: "POST",
      token: account.key,
      body: BODY
    })
  const webhooks = (account: Account) => request(`${server.baseUrl}/api/v1/webhooks`, { token: account.key })

  it("a used-up general window does not refuse a creation, and creations do not use it up", async () => {
    const spent = await createAccount(server, { credits: 100 })
    expect((await webhooks(spent)).status).toBe(200)
    expect((await webhooks(spent)).status).toBe(200)
    expect((await webhooks(spent)).status).toBe(429)
    expect((await create(spent)).status).toBe(202)

    const creator = await createAccount(server, { credits: 100 })
    expect((await create(creator)).status).toBe(202)
    expect((await create(creator)).status).toBe(202)
    expect((await create(creator)).status).toBe(202)
    expect((await webhooks(creator)).status).toBe(200)
    // The job status is in the general group.
    const created = await create(creator)
    const status = () =>
      request(`${server.baseUrl}/api/v1/reports/jobs/${created.body.job_id}/status`, { token: creator.key })
    expect((await status()).status).toBe(200)
    expect((await status()).status).toBe(429)
  })
})

describe("a report the worker cannot render", { timeout: 180_000 }, () => {
  let server: TestServer
  let worker: ChildProcess

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 100_000, reportsPerHour: 1_000 } })
  })
  afterAll(async () => {
    if (worker) await killHard(worker)
    await server.close()
  })

  it("ends failed after its attempts, costs nothing and releases its hold; its download URL stays 409", async () => {
    const account = await createAccount(server, { credits: 100 })
    await addScoredTenders(server, account, [{ score: 80, publishDate: "2026-11-10T09:00:00Z" }])
    // A browser that cannot start: every attempt fails in the real worker's renderer.
    worker = startWorker(server.databaseUrl, { CHROMIUM_PATH: "/nonexistent/chromium" })
    const created = await request(`${server.baseUrl}/api/v1/reports/${account.companyId}/pdf`, {
      method: "POST",
      token: account.key,
      body: BODY
    })
    expect(created.status).toBe(202)
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)
    const jobId: string = created.body.job_id
    const statuses = new Set<string>()
    await eventually(async () => {
      const answer = await request(`${server.baseUrl}/api/v1/reports/jobs/${jobId}/status`, { token: account.key })
      statuses.add(answer.body.status)
      return answer.body.status === "failed" ? true : undefined
    }, 150_000)
    expect(statuses.has("completed")).toBe(false)
    const [job] = await query<{ attempts: number; credits_held: number }>(
      server,
      `SELECT j.attempts, r.credits_held FROM report_jobs r
       JOIN jobs j ON j.kind = 'report.render' AND j.payload ->> 'reportId' = r.id::text WHERE r.id = $1`,
      [jobId]
    )
    expect(job).toEqual({ attempts: 3, credits_held: 0 })
    const kinds = await query<{ kind: string; delta: number }>(
      server,
      "SELECT kind, delta FROM credit_ledger WHERE tenant_id = $1 AND reason LIKE $2 ORDER BY id",
      [account.tenantId, `report ${jobId}%`]
    )
    expect(kinds).toEqual([
      { kind: "hold", delta: -10 },
      { kind: "release", delta: 10 }
    ])
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(100)
    const link = await request(`${server.baseUrl}/api/v1/reports/jobs/${jobId}/download`, { token: account.key })
    expect(link.status).toBe(409)
    expect(link.body).toMatchObject({ code: "REPORT_NOT_READY", status: "failed" })
  })
})
