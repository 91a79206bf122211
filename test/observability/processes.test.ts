import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { UsersRepo } from "../../src/infra/accounts/UsersRepo.js"
import { addScoredTenders, createAccount } from "../api/fixtures.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import {
  eventually,
  freePort,
  jsonLines,
  metricNamesIn,
  type Sample,
  type ServiceProcess,
  scrape,
  spawnService,
  startOtlpReceiver,
  untilServing
} from "./support.js"

/**
 * Issue 22 on real processes: an API (METRICS_PORT) and a worker (WORKER_METRICS_PORT) of src/bin,
 * both tracing to a real OTLP/HTTP receiver, driven through login, an API key's requests, a webhook
 * registration and a company change that queues a job. Their /metrics are parsed as Prometheus
 * text, their stdout as JSON lines, and the receiver's spans are followed from the API request to
 * the job's span in the worker.
 */

const sampleOf = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

describe("metrics, logs and traces of real API and worker processes", () => {
  let server: TestServer
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>
  let api: ServiceProcess
  let worker: ServiceProcess
  let baseUrl: string
  let apiMetricsPort: number
  let workerMetricsPort: number
  let dataDir: string
  const email = `ops-${randomBytes(4).toString("hex")}@example.com`
  const password = `pw-${randomBytes(12).toString("hex")}`
  const webhookSecret = `whsec-${randomBytes(24).toString("hex")}`
  let account: Awaited<ReturnType<typeof createAccount>>
  const secrets: Array<string> = [password, webhookSecret]

  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server, { credits: 1000 })
    secrets.push(account.key)
    await addScoredTenders(server, account, [
      { score: 80, publishDate: "2026-11-01" },
      { score: 60, publishDate: "2026-11-02" }
    ])
    await server.run(
      Effect.flatMap(UsersRepo, (users) => users.create({ tenantId: account.tenantId, email, password })).pipe(
        Effect.orDie
      )
    )
    otlp = await startOtlpReceiver()
    dataDir = mkdtempSync(path.join(tmpdir(), "tss-obs-"))
    const shared = {
      DATABASE_URL: server.databaseUrl,
      DATA_DIR: dataDir,
      MASTER_KEY: randomBytes(32).toString("hex"),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true"
    }
    // A free port is free when asked, not when the process binds it: another test file's process may
    // take it in between. Such a start (EADDRINUSE) is tried again on new ports; any other failure says why.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort()
      apiMetricsPort = await freePort()
      workerMetricsPort = await freePort()
      api = spawnService("api", { ...shared, PORT: String(port), METRICS_PORT: String(apiMetricsPort) })
      worker = spawnService("worker", { ...shared, WORKER_METRICS_PORT: String(workerMetricsPort) })
      baseUrl = `http://127.0.0.1:${port}`
      try {
        await untilServing(api, "the API's /health", async () =>
          (await fetch(`${baseUrl}/health`)).ok ? true : undefined
        )
        await untilServing(
          worker,
          "the worker's /metrics",
          async () => (await scrape(workerMetricsPort)).samples.length > 0 || undefined
        )
        break
      } catch (error) {
        await Promise.all([api.stop(), worker.stop()])
        if (attempt === 3 || !`${api.output()}${worker.output()}`.includes("EADDRINUSE")) throw error
      }
    }
  }, 400_000)

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()])
    await otlp?.close()
    await server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  it("serves Prometheus text with request durations by route template, queue, pool and process figures", async () => {
    const key = { authorization: `Bearer ${account.key}` }
    const list = await fetch(`${baseUrl}/api/v1/tenders?companyId=${account.companyId}&limit=2`, { headers: key })
    expect(list.status).toBe(200)
    const score = await fetch(`${baseUrl}/api/v1/tenders/${randomBytes(4).toString("hex")}/score?companyId=x`)
    expect(score.status).toBe(401)
    // A queued job of a kind no runner here handles: the queue's figures come from the database.
    await server.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`
          INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at, updated_at)
          VALUES ('test.waiting', '{}'::jsonb, now() - interval '90 seconds', 1, now(), now())`
      ).pipe(Effect.orDie)
    )

    const { contentType, samples } = await scrape(apiMetricsPort)
    expect(contentType).toContain("text/plain")
    const listed = sampleOf(samples, "http_server_request_duration_seconds_count", {
      http_route: "/api/v1/tenders",
      http_request_method: "GET",
      http_response_status_code: "200"
    })
    expect(listed?.value).toBe(1)
    expect(
      sampleOf(samples, "http_server_request_duration_seconds_bucket", {
        http_route: "/api/v1/tenders",
        le: "+Inf"
      })?.value
    ).toBe(1)
    expect(
      sampleOf(samples, "http_server_request_duration_seconds_count", {
        http_route: "/api/v1/tenders/:id/score",
        http_response_status_code: "401"
      })?.value
    ).toBe(1)
    // Templates only: no raw path, id or query in a label.
    const routes = new Set(samples.flatMap((s) => (s.labels.http_route === undefined ? [] : [s.labels.http_route])))
    for (const route of routes) expect(route).not.toMatch(/\?|companyId|[0-9a-f]{8}/)

    expect(sampleOf(samples, "jobs", { kind: "test.waiting", status: "queued" })?.value).toBe(1)
    expect(sampleOf(samples, "job_queue_oldest_age_seconds", { kind: "test.waiting" })?.value).toBeGreaterThan(80)
    expect(sampleOf(samples, "credits_charged_total")?.value).toBe(2)
    expect(sampleOf(samples, "pg_pool_connections", { state: "total" })?.value).toBeGreaterThan(0)
    expect(sampleOf(samples, "process_resident_memory_bytes")?.value).toBeGreaterThan(0)
    expect(sampleOf(samples, "nodejs_eventloop_lag_p99_seconds")).toBeDefined()
    expect(sampleOf(samples, "redis_errors_total")).toBeDefined()

    const workerSamples = (await scrape(workerMetricsPort)).samples
    expect(sampleOf(workerSamples, "jobs", { kind: "test.waiting", status: "queued" })?.value).toBe(1)
    // The worker's own figures, present (at 0) before anything happened.
    expect(sampleOf(workerSamples, "webhook_deliveries_total", { outcome: "delivered" })?.value).toBe(0)
    expect(sampleOf(workerSamples, "webhook_deliveries_total", { outcome: "failed" })).toBeDefined()
    expect(sampleOf(workerSamples, "report_renders_total", { outcome: "completed" })).toBeDefined()
    expect(sampleOf(workerSamples, "report_render_duration_seconds_count")).toBeDefined()
    expect(sampleOf(workerSamples, "scoring_pairs_total")).toBeDefined()
    expect(sampleOf(workerSamples, "ingest_errors_total", { source: "ted" })).toBeDefined()
  })

  it("has every metric of the Grafana dashboard (docs/grafana-dashboard.json) in the processes' /metrics", async () => {
    const dashboard = JSON.parse(readFileSync("docs/grafana-dashboard.json", "utf8"))
    const exposition = (await scrape(apiMetricsPort)).text + (await scrape(workerMetricsPort)).text
    // Declared (# TYPE) is enough: a labelled gauge has no sample until it has a value (ingestion lag
    // with no source polled); a histogram's _bucket/_count/_sum belong to its declared name.
    const declared = new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!))
    expect(dashboard.panels.length).toBeGreaterThan(10)
    for (const panel of dashboard.panels) {
      const names = panel.targets.flatMap((target: { expr: string }) => metricNamesIn(target.expr))
      expect(names.length, panel.title).toBeGreaterThan(0)
      for (const name of names) {
        expect(
          declared.has(name) || declared.has(name.replace(/_(bucket|count|sum)$/, "")),
          `${panel.title}: ${name}`
        ).toBe(true)
      }
    }
  })

  it("answers X-Request-Id (kept when sane, else generated) and logs one JSON line per request", async () => {
    const kept = await fetch(`${baseUrl}/health`, { headers: { "x-request-id": "probe-42.a" } })
    expect(kept.headers.get("x-request-id")).toBe("probe-42.a")
    const replaced = await fetch(`${baseUrl}/health`, { headers: { "x-request-id": `bad id ${"x".repeat(100)}` } })
    const generated = replaced.headers.get("x-request-id")
    expect(generated).toMatch(/^[0-9a-f-]{36}$/)
    const keyed = await fetch(`${baseUrl}/api/v1/tenders?companyId=${account.companyId}&limit=1`, {
      headers: { authorization: `Bearer ${account.key}`, "x-request-id": "keyed-request-1" }
    })
    expect(keyed.status).toBe(200)

    const line = await eventually("the keyed request's log line", async () =>
      jsonLines(api.output()).find((l) => l.message === "request" && l.request_id === "keyed-request-1")
    )
    expect(line).toMatchObject({
      level: "info",
      tenant_id: account.tenantId,
      method: "GET",
      route: "/api/v1/tenders",
      status: 200
    })
    expect(typeof line.duration_ms).toBe("number")
    expect(Date.parse(line.time)).toBeGreaterThan(0)
    expect(jsonLines(api.output()).some((l) => l.request_id === generated && l.route === "/health")).toBe(true)
  })

  it("a refusal of the request limits (413) carries X-Request-Id and is logged and counted as a request, like every response", async () => {
    // A body declared over MAX_BODY_BYTES (1 MiB): refused on the head, before a byte of it is sent.
    const res = await new Promise<{ status: number; requestId: string | undefined }>((resolve, reject) => {
      const req = httpRequest(`${baseUrl}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": "2000000", "x-request-id": "limit-413" }
      })
      req.on("response", (response) => {
        response.resume()
        resolve({ status: response.statusCode ?? 0, requestId: response.headers["x-request-id"] as string | undefined })
        req.destroy()
      })
      req.on("error", reject)
      req.flushHeaders()
    })
    expect(res.status).toBe(413)
    // README, "Configuration": "Every response carries X-Request-Id (the caller's, when it is a short token …)".
    expect(res.requestId).toBe("limit-413")
    // docs/operations.md, "Logs": one `request` line per request.
    const line = await eventually("the refusal's log line", async () =>
      jsonLines(api.output()).find((l) => l.message === "request" && l.request_id === "limit-413")
    )
    expect(line).toMatchObject({ level: "info", method: "POST", route: "refused", status: 413 })
    const { samples } = await scrape(apiMetricsPort)
    expect(
      sampleOf(samples, "http_server_request_duration_seconds_count", {
        http_route: "refused",
        http_request_method: "POST",
        http_response_status_code: "413"
      })?.value
    ).toBe(1)
  })

  it("carries the request id and the trace through the queue: the worker's job span is a child of the API's", async () => {
    const login = await fetch(`${baseUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password })
    })
    expect(login.status).toBe(200)
    const tokens = ((await login.json()) as any).data
    secrets.push(tokens.accessToken, tokens.refreshToken)

    const created = await fetch(`${baseUrl}/api/v1/settings/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "second" })
    })
    expect(created.status).toBe(201)
    secrets.push(((await created.json()) as any).data.key)

    const webhook = await fetch(`${baseUrl}/api/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://127.0.0.1:9/hook", secret: webhookSecret, events: ["tender.matched"] })
    })
    expect(webhook.status).toBe(201)

    const update = await fetch(`${baseUrl}/api/v1/companies/${account.companyId}`, {
      method: "PATCH",
      headers: {
        authorization: `Bearer ${tokens.accessToken}`,
        "content-type": "application/json",
        "x-request-id": "rescore-request-1"
      },
      body: JSON.stringify({ description: "Proiectare și consultanță în construcții, expertize tehnice" })
    })
    expect(update.status).toBe(200)

    const jobLine = await eventually("the worker's job line", async () =>
      jsonLines(worker.output()).find(
        (l) => l.message === "job" && l.kind === "company.rescore" && l.request_id === "rescore-request-1"
      )
    )
    expect(jobLine).toMatchObject({ outcome: "done", attempt: 1 })
    expect(typeof jobLine.job_id).toBe("string")

    const jobSpan = await eventually("the job's span", async () =>
      otlp.spans.find((s) => s.service === "tender-scoring-worker" && s.name === "job company.rescore")
    )
    const apiSpans = await eventually("the API's spans of that trace", async () => {
      const found = otlp.spans.filter((s) => s.service === "tender-scoring-api" && s.traceId === jobSpan.traceId)
      return found.length > 0 ? found : undefined
    })
    // The job's parent is the span that enqueued it, in the API process, under the request's server span.
    const parent = apiSpans.find((s) => s.spanId === jobSpan.parentSpanId)
    expect(parent).toBeDefined()
    const serverSpan = apiSpans.find((s) => s.parentSpanId === "" || s.parentSpanId === undefined)
    expect(serverSpan?.attributes["http.route"]).toBe("/api/v1/companies/:id")
    expect(serverSpan?.attributes["http.request.method"]).toBe("PATCH")
  })

  it("writes no API key, token, password or webhook secret to the logs", async () => {
    const logs = api.output() + worker.output()
    expect(logs.length).toBeGreaterThan(0)
    for (const secret of secrets) expect(logs).not.toContain(secret)
    expect(logs).not.toMatch(/svc_[0-9a-f]{64}/)
    expect(logs).not.toMatch(/at1\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/)
    expect(logs).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/)
    expect(logs).not.toMatch(/"(authorization|password|secret|refreshToken|accessToken)"\s*:/i)
  })
})
