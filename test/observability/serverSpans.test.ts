import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Account, addScoredTenders, createAccount } from "../api/fixtures.js"
import { completeNextReportJob } from "../reports/fixtures.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import {
  eventually,
  freePort,
  type ReceivedSpan,
  type ServiceProcess,
  spawnService,
  startOtlpReceiver,
  untilServing
} from "./support.js"

/**
 * A real API process tracing to a real OTLP/HTTP receiver. Its server spans name the route template
 * (`http.route`, `url.path`, and `url.full` as scheme, host and template), never the raw URL: a
 * report download's path is its token (spec 4.3: "the token is the credential", stored only as its
 * SHA-256), and a list's query or an export's `X-Next-Cursor` holds a cursor. Once the platform's own span sent
 * the raw path of every download to the collector.
 */

/** The spans, with the attributes that hold `text`: none is the answer wanted. */
const carrying = (spans: ReadonlyArray<ReceivedSpan>, text: string) =>
  spans
    .filter((s) => JSON.stringify(s).includes(text))
    .map((s) => `${s.name}: ${Object.keys(s.attributes).filter((k) => String(s.attributes[k]).includes(text))}`)

describe("the API's server spans name the route template, never the raw URL", () => {
  let server: TestServer
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>
  let api: ServiceProcess
  let baseUrl: string
  let dataDir: string
  let account: Account

  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server, { credits: 100 })
    await addScoredTenders(server, account, [
      { score: 80, publishDate: "2026-11-01" },
      { score: 60, publishDate: "2026-11-02" }
    ])
    otlp = await startOtlpReceiver()
    dataDir = mkdtempSync(path.join(tmpdir(), "tss-spans-"))
    for (let attempt = 1; ; attempt++) {
      const port = await freePort()
      api = spawnService("api", {
        DATABASE_URL: server.databaseUrl,
        DATA_DIR: dataDir,
        MASTER_KEY: randomBytes(32).toString("hex"),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        PORT: String(port)
      })
      baseUrl = `http://127.0.0.1:${port}`
      try {
        await untilServing(api, "the API's /health", async () =>
          (await fetch(`${baseUrl}/health`)).ok ? true : undefined
        )
        break
      } catch (error) {
        await api.stop()
        if (attempt === 3 || !api.output().includes("EADDRINUSE")) throw error
      }
    }
  }, 300_000)

  afterAll(async () => {
    await api?.stop()
    await otlp?.close()
    await server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  it("a report download's token appears in no exported span; its span has the route template", async () => {
    const key = { authorization: `Bearer ${account.key}`, "content-type": "application/json" }
    const created = await fetch(`${baseUrl}/api/v1/reports/${account.companyId}/pdf`, {
      method: "POST",
      headers: key,
      body: JSON.stringify({ date_from: "2026-10-01", date_to: "2026-10-31" })
    })
    expect(created.status).toBe(202)
    const jobId = ((await created.json()) as { job_id: string }).job_id
    expect(await completeNextReportJob(server)).toBe("completed")
    const link = await fetch(`${baseUrl}/api/v1/reports/jobs/${jobId}/download`, { headers: key })
    expect(link.status).toBe(200)
    const token = ((await link.json()) as { download_url: string }).download_url.split("/").pop()!
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    const pdf = await fetch(`${baseUrl}/api/v1/reports/download/${token}?from=mail`)
    expect(pdf.status).toBe(200)
    await pdf.arrayBuffer()

    const template = "/api/v1/reports/download/:token"
    const span = await eventually("the download's server span", async () =>
      otlp.spans.find((s) => s.service === "tender-scoring-api" && s.attributes["http.route"] === template)
    )
    expect(span.name).toBe(`GET ${template}`)
    expect(span.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.response.status_code": 200,
      "url.path": template,
      "url.full": `http://${new URL(baseUrl).host}${template}`,
      "url.scheme": "http"
    })
    expect(span.attributes["url.query"]).toBeUndefined()
    expect(carrying(otlp.spans, token)).toEqual([])
  }, 120_000)

  it("a list's or an export's query and cursors appear in no span, nor does any header", async () => {
    const headers = { authorization: `Bearer ${account.key}` }
    const list = `${baseUrl}/api/v1/tenders?companyId=${account.companyId}&limit=1`
    const first = await fetch(list, { headers })
    expect(first.status).toBe(200)
    const listCursor = ((await first.json()) as { meta: { next_cursor: string } }).meta.next_cursor
    expect(listCursor.length).toBeGreaterThan(10)
    const second = await fetch(`${list}&cursor=${encodeURIComponent(listCursor)}`, { headers })
    expect(second.status).toBe(200)
    await second.arrayBuffer()
    // A CSV export answers its next cursor in a header (X-Next-Cursor).
    const csv = await fetch(
      `${baseUrl}/api/v1/export/tenders?companyId=${account.companyId}&from=2026-11-01&to=2026-11-30&format=csv&limit=1`,
      { headers }
    )
    expect(csv.status).toBe(200)
    const exportCursor = csv.headers.get("x-next-cursor") ?? ""
    expect(exportCursor.length).toBeGreaterThan(10)
    await csv.arrayBuffer()

    const host = new URL(baseUrl).host
    const spans = await eventually("the three requests' server spans", async () => {
      const found = otlp.spans.filter(
        (s) =>
          s.service === "tender-scoring-api" &&
          ["/api/v1/tenders", "/api/v1/export/tenders"].includes(String(s.attributes["http.route"]))
      )
      return found.length >= 3 ? found : undefined
    })
    for (const span of spans) {
      expect(span.attributes["url.full"]).toBe(`http://${host}${span.attributes["http.route"]}`)
      expect(span.attributes["url.query"]).toBeUndefined()
      expect(Object.keys(span.attributes).filter((k) => k.startsWith("http.request.header."))).toEqual([])
      expect(Object.keys(span.attributes).filter((k) => k.startsWith("http.response.header."))).toEqual([])
    }
    for (const text of [listCursor, exportCursor, account.companyId, account.key]) {
      expect(carrying(otlp.spans, text)).toEqual([])
    }
  }, 120_000)
})
