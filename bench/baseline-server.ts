/**
 * The benchmark's baseline: GET /api/v1/tenders on bare node:http + pg, with no framework.
 * It runs the service's own named prepared statements (src/infra/auth/ApiKeyStatements, billing/CreditStatements, scoring/ScoreListStatements: the key
 * lookup, the page with its company check, snapshot bound and total, the credit charge) and writes
 * the same JSON and headers. Rate limiting runs the service's Redis script (with REDIS_URL), else an
 * in-memory fixed window.
 *
 *   DATABASE_URL=... PORT=... CURSOR_SECRET=<64 hex> tsx bench/baseline-server.ts
 */
import { timingSafeEqual } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import { Redis } from "ioredis"
import pg from "pg"
import { hashApiKey, isWellFormedApiKey } from "../src/domain/ApiKey.js"
import { creditPeriodAt } from "../src/domain/CreditPeriod.js"
import { decodeCursor, queryFingerprint } from "../src/domain/Cursor.js"
import { type Plan, planRules } from "../src/domain/Plan.js"
import { ApiKeyStatements } from "../src/infra/auth/ApiKeyStatements.js"
import { CreditStatements } from "../src/infra/billing/CreditStatements.js"
import type { Statement } from "../src/infra/db/PreparedStatements.js"
import { defineFixedWindow } from "../src/infra/limits/RateLimitStore.js"
import { ScoreListStatements } from "../src/infra/scoring/ScoreListStatements.js"
import { creditHeaders, listPageBody } from "./BaselinePage.js"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 })
const secret = Buffer.from(process.env.CURSOR_SECRET ?? "", "hex")
const rateLimitPerMinute = Number(process.env.RATE_LIMIT_GENERAL_PER_MINUTE ?? 60)

/** The ledger's period opening (rare: the first charge of a month), mirrored statement for statement. */
const OPEN_PERIOD_SQL = {
  plan: "SELECT plan FROM tenants WHERE id = $1",
  openPeriod: `INSERT INTO credit_periods (tenant_id, period_start, period_ends_at, granted, remaining)
               VALUES ($1, $2, $3, $4, $4) ON CONFLICT (tenant_id, period_start) DO NOTHING RETURNING tenant_id`,
  grant: `INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after)
          VALUES ($1, $2, $3, 'grant', 'monthly grant', $3)`,
  balance: "SELECT remaining FROM credit_periods WHERE tenant_id = $1 AND period_start = $2"
}

type Queryable = Pick<pg.PoolClient, "query">
const q = <R extends pg.QueryResultRow>(db: Queryable, name: string, text: string, values: Array<unknown>) =>
  db.query<R>({ name, text, values })
/** One of the service's statements, by the same name and text. */
const run = async <Params extends ReadonlyArray<unknown>, Row>(
  db: Queryable,
  statement: Statement<Params, Row>,
  params: Params
) =>
  (await db.query({ name: statement.name, text: statement.text, values: params as unknown as Array<unknown> }))
    .rows as Array<Row>

/** CreditLedger.charge in `upTo` mode, statement for statement: one statement when the period is open. */
const chargeUpTo = async (tenantId: string, cost: number) => {
  const period = creditPeriodAt(Date.now())
  if (cost > 0) {
    const rows = await run(pool, CreditStatements.creditCharge, [
      tenantId,
      period.start,
      cost,
      1,
      "GET /api/v1/tenders",
      new Date()
    ])
    if (rows[0]) return { ...rows[0], periodEndsAt: period.endsAtText }
  }
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    const { rows: tenant } = await q<{ plan: Plan }>(client, "plan", OPEN_PERIOD_SQL.plan, [tenantId])
    const granted = planRules[tenant[0]!.plan].monthlyCredits
    const opened = await q(client, "open_period", OPEN_PERIOD_SQL.openPeriod, [
      tenantId,
      period.start,
      period.endsAt,
      granted
    ])
    if (opened.rows.length > 0) await q(client, "grant", OPEN_PERIOD_SQL.grant, [tenantId, period.start, granted])
    let result: { charged: number; remaining: number } | undefined
    if (cost <= 0) {
      const { rows } = await q<{ remaining: number }>(client, "balance", OPEN_PERIOD_SQL.balance, [
        tenantId,
        period.start
      ])
      result = { charged: 0, remaining: rows[0]?.remaining ?? 0 }
    } else {
      const rows = await run(client, CreditStatements.creditCharge, [
        tenantId,
        period.start,
        cost,
        1,
        "GET /api/v1/tenders",
        new Date()
      ])
      result = rows[0]
    }
    await client.query("COMMIT")
    return result === undefined ? undefined : { ...result, periodEndsAt: period.endsAtText }
  } catch (error) {
    await client.query("ROLLBACK")
    throw error
  } finally {
    client.release()
  }
}

/**
 * The service's rate-limit round trip: with REDIS_URL, the service's fixed-window script
 * (infra/limits/RateLimitStore), same key shape and arguments; without, an in-memory window.
 */
const fixedWindow = process.env.REDIS_URL ? defineFixedWindow(new Redis(process.env.REDIS_URL)) : undefined
const windows = new Map<string, { start: number; count: number }>()
const allowed = async (tenantId: string) => {
  if (fixedWindow !== undefined) {
    const [count] = await fixedWindow(
      `tss:baseline:general:${tenantId}`,
      1,
      60_000 / rateLimitPerMinute,
      rateLimitPerMinute
    )
    return count <= rateLimitPerMinute
  }
  const now = Date.now()
  const w = windows.get(tenantId)
  if (!w || now - w.start >= 60_000) {
    windows.set(tenantId, { start: now, count: 1 })
    return true
  }
  return ++w.count <= rateLimitPerMinute
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}
const error = (res: ServerResponse, status: number, code: string, message: string) =>
  send(res, status, { statusCode: status, code, message })

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const intParam = (value: string | null, min: number, max: number, fallback: number) => {
  if (value === null) return fallback
  const n = Number(value)
  return value.trim() !== "" && Number.isInteger(n) && n >= min && n <= max ? n : undefined
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://localhost")
    if (url.pathname === "/health") return send(res, 200, { status: "ok" })
    if (req.method !== "GET" || url.pathname !== "/api/v1/tenders") return error(res, 404, "NOT_FOUND", "No route")
    const header = req.headers.authorization ?? ""
    if (!/^Bearer /i.test(header) || header.slice(7).trim() === "") {
      return error(res, 401, "API_KEY_MISSING", "Missing key")
    }
    const presented = header.slice(7).trim()
    if (!isWellFormedApiKey(presented)) return error(res, 401, "API_KEY_INVALID", "Invalid key")
    const hash = hashApiKey(presented)
    const [owner] = await run(pool, ApiKeyStatements.apiKeyOwner, [hash])
    if (!owner || !timingSafeEqual(owner.key_hash, hash)) return error(res, 401, "API_KEY_INVALID", "Invalid key")
    if (owner.revoked) return error(res, 401, "API_KEY_REVOKED", "Revoked")
    if (!planRules[owner.plan].apiAccess) return error(res, 403, "PLAN_UPGRADE_REQUIRED", "Upgrade")
    if (!(await allowed(owner.tenant_id))) return error(res, 429, "RATE_LIMIT_EXCEEDED", "Slow down")

    const companyId = (url.searchParams.get("companyId") ?? "").toLowerCase()
    const minScore = intParam(url.searchParams.get("minScore"), 0, 100, 0)
    const limit = intParam(url.searchParams.get("limit"), 1, 100, 20)
    if (!UUID.test(companyId) || minScore === undefined || limit === undefined) {
      return error(res, 400, "VALIDATION_ERROR", "Invalid request")
    }
    const query = queryFingerprint(["tenders", companyId, minScore])
    const cursor = url.searchParams.get("cursor")
    let cursorBound: string | null = null
    let after: [number, string, string] | undefined
    if (cursor !== null) {
      const decoded = decodeCursor(secret, query, cursor)
      if (decoded._tag === "Left") return error(res, 400, "INVALID_CURSOR", "Invalid cursor")
      after = decoded.right.key as [number, string, string]
      cursorBound = decoded.right.bound
    }
    const head = [companyId, minScore, cursorBound, limit + 1, owner.tenant_id] as const
    const pageRows =
      after === undefined
        ? await run(pool, ScoreListStatements.listPage, head)
        : await run(pool, ScoreListStatements.listPageAfter, [...head, ...after])
    const { owned, bound, total } = pageRows[0]!
    if (!owned) return error(res, 403, "COMPANY_ACCESS_DENIED", "Not yours")
    const rows = pageRows.filter((row): row is Extract<typeof row, { tender_id: string }> => row.tender_id !== null)
    const page = rows.length > limit ? rows.slice(0, limit) : rows
    const charge = await chargeUpTo(owner.tenant_id, page.length)
    if (!charge) return error(res, 402, "API_CREDITS_EXHAUSTED", "No credits")
    const served = charge.charged < page.length ? page.slice(0, charge.charged) : page
    send(res, 200, listPageBody({ secret, query, rows, served, total, bound, limit, charge }), creditHeaders(charge))
  } catch (cause) {
    console.error(cause)
    if (!res.headersSent) error(res, 500, "INTERNAL_ERROR", "Internal server error")
  }
})

server.keepAliveTimeout = 65_000
server.listen(Number(process.env.PORT ?? 3100), "127.0.0.1")
// Exit normally on SIGTERM, so a CPU profile (BENCH_CPU_PROF) is written.
process.on("SIGTERM", () => process.exit(0))
