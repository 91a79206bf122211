import { execFileSync } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { query } from "../account/fixtures.js"
import { type Account, addScoredTenders, createAccount, ledgerState } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { readPdf } from "./fixtures.js"
import { eventually, killHard, startWorker } from "./workerProcess.js"

const childrenOf = (pid: number): Array<number> => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((n) => n > 0)
  } catch {
    return []
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("a worker killed mid-report (SIGKILL)", { timeout: 300_000 }, () => {
  let server: TestServer
  let account: Account
  const workers: Array<ReturnType<typeof startWorker>> = []

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 100_000 } })
    account = await createAccount(server, { credits: 100 })
    await addScoredTenders(
      server,
      account,
      Array.from({ length: 200 }, (_, i) => ({
        score: Math.min(100, 20 + (i % 80)),
        publishDate: "2026-11-10T09:00:00Z"
      }))
    )
  })
  afterAll(async () => {
    for (const worker of workers) await killHard(worker)
    await server.close()
  })

  it("leaves the job to another worker after the lease: completed once, charged once, never stuck generating", async () => {
    const lease = { REPORT_JOB_LEASE_SECONDS: "3" }
    const first = startWorker(server.databaseUrl, lease)
    workers.push(first)
    const created = await request(`${server.baseUrl}/api/v1/reports/${account.companyId}/pdf`, {
      method: "POST",
      token: account.key,
      body: { date_from: "2026-11-01", date_to: "2026-11-30" }
    })
    expect(created.status).toBe(202)
    const jobId: string = created.body.job_id

    // Killed mid-render: it holds the job and its renderer process has started Chromium (the first
    // report starts both; a cold Chromium takes a second or more before it can print anything).
    const { claimed, descendants } = await eventually(async () => {
      const [row] = await query<{ status: string; locked_by: string | null }>(
        server,
        `SELECT r.status, j.locked_by FROM report_jobs r
         JOIN jobs j ON j.kind = 'report.render' AND j.payload ->> 'reportId' = r.id::text WHERE r.id = $1`,
        [jobId]
      )
      const renderers = childrenOf(first.pid!)
      const browsers = renderers.flatMap(childrenOf)
      return row?.locked_by && browsers.length > 0
        ? { claimed: row, descendants: [...renderers, ...browsers] }
        : undefined
    }, 120_000)
    await killHard(first)
    expect(claimed.status).toBe("generating")
    const [held] = await query<{ status: string; attempts: number }>(
      server,
      `SELECT r.status, j.attempts FROM report_jobs r
       JOIN jobs j ON j.kind = 'report.render' AND j.payload ->> 'reportId' = r.id::text WHERE r.id = $1`,
      [jobId]
    )
    expect(held).toEqual({ status: "generating", attempts: 1 })
    await eventually(async () => (descendants.every((pid) => !alive(pid)) ? true : undefined), 30_000)

    const second = startWorker(server.databaseUrl, lease)
    workers.push(second)
    const statuses = new Set<string>()
    await eventually(async () => {
      const answer = await request(`${server.baseUrl}/api/v1/reports/jobs/${jobId}/status`, { token: account.key })
      statuses.add(answer.body.status)
      return answer.body.status === "completed" ? true : undefined
    })
    expect(statuses.has("failed")).toBe(false)
    const [finished] = await query<{ attempts: number; credits_held: number }>(
      server,
      `SELECT j.attempts, r.credits_held FROM report_jobs r
       JOIN jobs j ON j.kind = 'report.render' AND j.payload ->> 'reportId' = r.id::text WHERE r.id = $1`,
      [jobId]
    )
    expect(finished).toEqual({ attempts: 2, credits_held: 0 })
    const kinds = await query<{ kind: string }>(
      server,
      "SELECT kind FROM credit_ledger WHERE tenant_id = $1 AND reason LIKE $2 ORDER BY id",
      [account.tenantId, `report ${jobId}%`]
    )
    expect(kinds.map((k) => k.kind)).toEqual(["hold", "release", "charge"])
    expect((await ledgerState(server, account.tenantId)).remaining).toBe(90)

    const link = await request(`${server.baseUrl}/api/v1/reports/jobs/${jobId}/download`, { token: account.key })
    const pdf = await fetch(`${server.baseUrl}${new URL(link.body.download_url).pathname}`)
    expect(pdf.status).toBe(200)
    const { text } = await readPdf(new Uint8Array(await pdf.arrayBuffer()))
    expect(text).toContain("Company")
  }, 300_000)
})
