import { Agent, request as httpRequest } from "node:http"
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openApiDocument } from "../../src/http/OpenApiDocument.js"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { addAlert, addTender, query, type SeededAccount, seedAccount, signIn } from "../account/fixtures.js"
import { addScoredTenders } from "../api/fixtures.js"
import { addDelivery } from "../api/webhookFixtures.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Credential, type FuzzRequest, requestArbitraries } from "./requests.js"
import { resolverOf, routesOf } from "./routes.js"
import { schemaArbitraries } from "./schemaArbitraries.js"

/**
 * Property-based requests for every route of `Api`, generated from its OpenAPI schemas (test/fuzz/):
 * valid, near-valid (one part wrong) and arbitrary ones, sent to the real server with a real API key
 * and a real access token. Whatever is sent: no 5xx (and no dropped connection), every 4xx in the
 * uniform error body, and a 4xx writes nothing: a digest of every table (row count and the sum of
 * the rows' `xmin`, which moves on any insert, update or delete; `usageColumns` below aside) and the
 * credit counter and ledger are the same before and after. The routes come from the document, so a
 * route added to `Api` is fuzzed without changes here. The bad-input sweep (test/http/badInput.test.ts)
 * stays beside it with its enumerated cases.
 *
 * FUZZ_RUNS (default 40) is the number of requests per route, FUZZ_SEED (default 20261123) the
 * seed: CI runs the same cases every time; raise FUZZ_RUNS (and change the seed) to search further.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 40)
const SEED = Number(process.env.FUZZ_SEED ?? 20261123)

const doc = openApiDocument("http://127.0.0.1") as unknown as {
  paths: Record<string, Record<string, any>>
  components: { schemas: Record<string, any> }
}
const routes = [...routesOf(doc)].sort(
  // Deletions last, so the fixtures they may remove serve the other routes first.
  (a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE")
)

interface Wire {
  readonly status: number
  readonly contentType: string | undefined
  readonly text: string
}

/**
 * Idle sockets dropped after 4 s, before the server's 5 s keep-alive timeout: else a request may go
 * out on a socket the server is closing, and fail with "socket hang up" for the client's own reason.
 */
const agent = new Agent({ keepAlive: true, timeout: 4_000 })

/** Sends exactly what was generated (node:http: the path is not normalised, the body not re-encoded). */
const send = (baseUrl: string, path: string, method: string, headers: Record<string, string>, body?: Uint8Array) =>
  new Promise<Wire>((resolve, reject) => {
    const url = new URL(baseUrl)
    // An explicit length: node sends a GET's or DELETE's body with neither length nor chunking, and
    // the server would read it as the start of the next request.
    const withLength = body === undefined ? headers : { ...headers, "content-length": String(body.length) }
    const timer = setTimeout(() => req.destroy(new Error("no answer within 30 s")), 30_000)
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method, headers: withLength, agent, timeout: 30_000 },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          clearTimeout(timer)
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers["content-type"],
            text: Buffer.concat(chunks).toString("utf8")
          })
        })
        res.on("error", reject)
      }
    )
    req.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    req.end(body)
  })

/**
 * Columns that record a request's authentication rather than its effect: an API key's `last_used_at`
 * is written (in the background, at most once a minute) for every request the key authenticates,
 * whatever the answer (README, API-key settings). A table with such columns is digested from its rows
 * without them, so any other write still shows.
 */
const usageColumns: Record<string, ReadonlyArray<string>> = { api_keys: ["last_used_at"] }

const digestOf = (table: string) => {
  const skipped = usageColumns[table]
  if (skipped === undefined) return `SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM "${table}"`
  const row = skipped.reduce((json, column) => `${json} - '${column}'`, "to_jsonb(t)")
  return `SELECT count(*) || ':' || coalesce(md5(string_agg((${row})::text, ',' ORDER BY (${row})::text)), '') FROM "${table}" AS t`
}

describe("fuzz: property-based requests for every route of Api, from its OpenAPI schemas", () => {
  let server: TestServer
  let account: SeededAccount
  let other: SeededAccount
  let key: { key: string; keyId: string }
  let token: string
  let snapshotSql: string
  const tally = { requests: 0, routes: 0, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0 }
  const anonymous = new Set<string>()
  let arbitraries: ReturnType<typeof requestArbitraries>

  beforeAll(async () => {
    // Generous key-API limits: the fuzzer should meet validation, not a 429 after 60 requests.
    server = await startTestServer({ rateLimits: { generalPerMinute: 1_000_000, exportPerHour: 1_000_000 } })
    account = await seedAccount(server, "consultant")
    other = await seedAccount(server, "consultant")
    key = await newKey(account.tenantId)
    token = (await signIn(server, account)).accessToken
    // Credits set up front: the period row exists, so a request never opens it as a side effect.
    for (const tenant of [account.tenantId, other.tenantId]) {
      await server.run(
        Effect.flatMap(CreditLedger, (ledger) => ledger.set({ tenantId: tenant, remaining: 1_000_000, reason: "fuzz" }))
      )
    }
    const tables = await query<{ name: string }>(
      server,
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`
    )
    // One object of every table's digest (json_object_agg: json_build_object takes at most 100 arguments,
    // and the monthly partitions alone are more tables than that).
    snapshotSql = `SELECT json_object_agg(name, digest) AS digest FROM (${tables
      .map(({ name }) => `SELECT '${name}' AS name, (${digestOf(name)}) AS digest`)
      .join(" UNION ALL ")}) AS digests`
    // Here, not in a test: each test stands alone (vitest --sequence.shuffle).
    const ids = await knownIds()
    const uuid = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...ids) },
      { weight: 1, arbitrary: fc.constantFrom(...ids).map((id) => id.toUpperCase()) },
      { weight: 1, arbitrary: fc.uuid() }
    )
    arbitraries = requestArbitraries(schemaArbitraries(resolverOf(doc.components.schemas), { uuid }))
  })
  afterAll(async () => {
    agent.destroy()
    console.log(
      `fuzz: ${tally.requests} requests over ${tally.routes} routes (FUZZ_RUNS=${RUNS} per route, FUZZ_SEED=${SEED}): ` +
        `2xx ${tally["2xx"]}, 3xx ${tally["3xx"]}, 4xx ${tally["4xx"]}, 5xx ${tally["5xx"]}` +
        (anonymous.size > 0 ? `; sent without credentials (unknown scheme): ${[...anonymous].join(", ")}` : "")
    )
    await server?.close()
  })

  const newKey = async (tenantId: string) => {
    const created = await server.run(
      Effect.flatMap(ApiKeysRepo, (repo) => repo.create({ tenantId, name: "fuzz" })).pipe(Effect.orDie)
    )
    return { key: created.key, keyId: created.summary.id }
  }

  /** Ids the generators draw `format: uuid` values from: the fixtures' own, another tenant's, unknown ones. */
  const knownIds = async () => {
    const watchlistId = (
      await post("/api/v1/watchlists", `Bearer ${token}`, { name: "Drumuri", minValue: 1, maxValue: 100 })
    ).data.id as string
    const alertId = await addAlert(server, {
      tenantId: account.tenantId,
      companyId: account.companyId,
      watchlistId,
      tenderId: await addTender(server)
    })
    const [tenderId] = await addScoredTenders(server, account, [{ score: 80, publishDate: "2026-01-15T08:00:00Z" }])
    const webhookId = (
      await post("/api/v1/webhooks", `Bearer ${key.key}`, {
        url: "https://hooks.example.com/a",
        secret: "0123456789abcdef0123456789abcdef",
        events: ["tender.matched"]
      })
    ).webhook_id as string
    const deliveryId = await addDelivery(server, account, webhookId, { status: "failed", attempts: 4 })
    const spareKey = await newKey(account.tenantId)
    const [otherTender] = await addScoredTenders(server, other, [{ score: 50, publishDate: "2026-01-10T08:00:00Z" }])
    return [
      account.companyId,
      watchlistId,
      alertId,
      tenderId!,
      webhookId,
      deliveryId,
      spareKey.keyId,
      other.companyId,
      otherTender!,
      account.tenantId
    ]
  }

  const post = async (path: string, authorization: string, body: unknown) => {
    const response = await send(
      server.baseUrl,
      path,
      "POST",
      { authorization, "content-type": "application/json" },
      Buffer.from(JSON.stringify(body))
    )
    if (response.status !== 201) throw new Error(`fixture ${path}: ${response.status} ${response.text}`)
    return JSON.parse(response.text)
  }

  const snapshot = async () => {
    const [row] = await query<{ digest: Record<string, string> }>(server, snapshotSql)
    return row!.digest
  }
  /** The digest after the last request, the next one's "before" (nothing else writes in between). */
  let lastDigest: Record<string, string> | undefined

  const credentials = () => ({
    route: (security: ReadonlyArray<string>): Record<string, string> => {
      if (security.includes("apiKey")) return { authorization: `Bearer ${key.key}` }
      if (security.includes("accessToken")) return { authorization: `Bearer ${token}` }
      return {}
    },
    swapped: (security: ReadonlyArray<string>): Record<string, string> =>
      security.includes("apiKey") ? { authorization: `Bearer ${token}` } : { authorization: `Bearer ${key.key}` }
  })

  const headersFor = (credential: Credential, security: ReadonlyArray<string>): Record<string, string> =>
    credential === "route"
      ? credentials().route(security)
      : credential === "swapped"
        ? credentials().swapped(security)
        : credential === "none"
          ? {}
          : { authorization: credential.authorization }

  /** A successful write may have logged the session out or revoked the key: mint new ones. */
  const restoreCredentials = async () => {
    const [state] = await query<{ key_ok: boolean; sessions: number }>(
      server,
      `SELECT (SELECT revoked_at IS NULL FROM api_keys WHERE id = $1) AS key_ok,
              (SELECT count(*)::int FROM auth_sessions WHERE user_id = $2 AND revoked_at IS NULL) AS sessions`,
      [key.keyId, account.userId]
    )
    if (!state!.key_ok) key = await newKey(account.tenantId)
    if (state!.sessions === 0) token = (await signIn(server, account)).accessToken
    lastDigest = undefined
  }

  /** Sends one generated request and checks the properties; throws with the request and answer on a failure. */
  const check = (security: ReadonlyArray<string>) => async (r: FuzzRequest) => {
    const before = lastDigest ?? (await snapshot())
    lastDigest = undefined
    const headers = headersFor(r.credential, security)
    if (r.contentType !== undefined) headers["content-type"] = r.contentType
    const body = r.body === undefined ? undefined : typeof r.body === "string" ? Buffer.from(r.body, "utf8") : r.body
    const response = await send(server.baseUrl, r.path, r.method, headers, body)
    tally.requests++
    const statusClass = `${Math.floor(response.status / 100)}xx` as "2xx" | "3xx" | "4xx" | "5xx"
    if (statusClass in tally) tally[statusClass]++
    const summary = `${r.method} ${r.path.slice(0, 200)} (${r.kind}${r.wrong ? `: ${r.wrong}` : ""}) → ${response.status} ${response.text.slice(0, 300)}`
    expect(response.status, summary).toBeLessThan(500)
    const after = await snapshot()
    lastDigest = after
    if (response.status >= 400) {
      expect(response.contentType, summary).toMatch(/^application\/json/)
      const parsed = JSON.parse(response.text)
      expect(parsed, summary).toMatchObject({
        statusCode: response.status,
        code: expect.any(String),
        message: expect.any(String)
      })
      if (parsed.details !== undefined) expect(Array.isArray(parsed.details), summary).toBe(true)
      const changed = Object.keys(after).filter((table) => after[table] !== before[table])
      expect(changed, `${summary}: tables written by a refused request`).toEqual([])
    } else if (r.method !== "GET" && response.status < 300) {
      await restoreCredentials()
    }
  }

  it("finds every route of the document, each with a known credential or none", () => {
    expect(routes.length).toBeGreaterThanOrEqual(26)
    for (const route of routes) {
      const known = route.security.length === 0 || route.security.some((s) => s === "apiKey" || s === "accessToken")
      if (!known) anonymous.add(`${route.method} ${route.template}`)
    }
  })

  it.each(routes.map((route) => [`${route.method} ${route.template}`, route] as const))(
    "%s: no 5xx, 4xx uniform and writing nothing",
    async (_name, route) => {
      const credentialed = route.security.some((s) => s === "apiKey" || s === "accessToken")
      tally.routes++
      await fc.assert(fc.asyncProperty(arbitraries(route, credentialed), check(route.security)), {
        seed: SEED,
        numRuns: RUNS,
        endOnFailure: process.env.FUZZ_SHRINK === undefined
      })
    }
  )

  it("unknown paths and methods: a 4xx in the uniform body", async () => {
    const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND")
    const path = fc.oneof(
      fc.webPath().map((p) => `/${p.replace(/^\/+/, "")}`),
      fc.webPath().map((p) => `/api/v1/${p.replace(/^\/+/, "")}`),
      fc
        .constantFrom(...routes.map((r) => r.template))
        .chain((t) => fc.webSegment().map((s) => `${t.replace(/\{[^}]+\}/g, s)}/${s}`))
    )
    await fc.assert(
      fc.asyncProperty(method, path, async (m, p) => {
        // A real route with a fitting method is not "unknown"; skip those (the per-route properties cover them).
        const isRoute = routes.some(
          (r) => r.method === m && new RegExp(`^${r.template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(p.split("?")[0]!)
        )
        fc.pre(!isRoute)
        await check([])({
          kind: "arbitrary",
          wrong: "route",
          method: m,
          path: p,
          credential: "none",
          contentType: undefined,
          body: undefined
        })
      }),
      { seed: SEED, numRuns: RUNS * 2, endOnFailure: process.env.FUZZ_SHRINK === undefined }
    )
  })
})
