import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, TestClock, TestContext } from "effect"
import type { Plan } from "../../src/domain/Plan.js"
import { CompaniesRepo } from "../../src/infra/accounts/CompaniesRepo.js"
import { TenantsRepo } from "../../src/infra/accounts/TenantsRepo.js"
import { UsersRepo } from "../../src/infra/accounts/UsersRepo.js"
import { AuthSessions, AuthSessionsLive } from "../../src/infra/auth/AuthSessions.js"
import { request } from "../support/http.js"
import type { TestServer } from "../support/TestServer.js"

export const PASSWORD = "correct horse battery staple"

export interface SeededAccount {
  readonly tenantId: string
  readonly userId: string
  readonly email: string
  readonly companyId: string
  readonly plan: Plan
}

const unique = () => randomBytes(5).toString("hex")

/** A tenant on `plan` with one user (PASSWORD) and one company. */
export const seedAccount = (server: TestServer, plan: Plan = "consultant"): Promise<SeededAccount> =>
  server.run(
    Effect.gen(function* () {
      const tenant = yield* (yield* TenantsRepo).create({ name: `Tenant ${unique()}`, plan })
      const email = `user-${unique()}@example.com`
      const user = yield* (yield* UsersRepo).create({ tenantId: tenant.id, email, password: PASSWORD })
      const company = yield* (yield* CompaniesRepo).create({
        tenantId: tenant.id,
        name: `Company ${unique()}`,
        description: "Construcții drumuri",
        fiscalCode: null
      })
      return { tenantId: tenant.id, userId: user.id, email, companyId: company.id, plan }
    }).pipe(Effect.orDie)
  )

/**
 * A session without going through HTTP login (whose per-address rate limit the auth tests exercise).
 * With `issuedAt` (Unix ms), the login runs under a TestClock set to that instant, so its tokens are
 * the ones the service would have minted then (e.g. an access token already expired).
 */
export const signIn = (server: TestServer, account: SeededAccount, issuedAt?: number) => {
  const login = Effect.flatMap(AuthSessions, (sessions) =>
    sessions.login({ id: account.userId, tenantId: account.tenantId })
  ).pipe(Effect.provide(AuthSessionsLive))
  return server.run(
    issuedAt === undefined
      ? login
      : TestClock.setTime(issuedAt).pipe(Effect.zipRight(login), Effect.provide(TestContext.TestContext))
  )
}

export const addCompany = (server: TestServer, tenantId: string, name = `Company ${unique()}`) =>
  server.run(
    Effect.flatMap(CompaniesRepo, (repo) => repo.create({ tenantId, name, description: "", fiscalCode: null })).pipe(
      Effect.orDie
    )
  )

export const addAuthority = (server: TestServer) =>
  server.run(
    Effect.flatMap(SqlClient.SqlClient, (sql) => {
      const name = `Primaria ${unique()}`
      return sql<{ id: string }>`
        INSERT INTO contracting_authorities (name, normalized_name) VALUES (${name}, ${name.toLowerCase()})
        RETURNING id`
    }).pipe(
      Effect.map((rows) => rows[0]!.id),
      Effect.orDie
    )
  )

export const addTender = (server: TestServer, title = `Tender ${unique()}`) =>
  server.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const name = `Autoritate ${unique()}`
      const [authority] = yield* sql<{ id: string }>`
        INSERT INTO contracting_authorities (name, normalized_name) VALUES (${name}, ${name.toLowerCase()})
        RETURNING id`
      const [tender] = yield* sql<{ id: string }>`
        INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, publish_date)
        VALUES ('test', ${unique()}, ${title}, '45233140-2', ${authority!.id}, now())
        RETURNING id`
      return tender!.id
    }).pipe(Effect.orDie)
  )

/** An alert row as the scoring pipeline would write it. */
export const addAlert = (
  server: TestServer,
  input: {
    readonly tenantId: string
    readonly companyId: string
    readonly watchlistId: string
    readonly tenderId: string
    readonly score?: number
    readonly verdict?: "GO" | "RESEARCH" | "SKIP"
    readonly read?: boolean
    readonly createdAt?: Date
  }
) =>
  server.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ id: string }>`
        INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, read, created_at,
                            tender_publish_date)
        VALUES (${input.tenantId}, ${input.companyId}, ${input.watchlistId}, ${input.tenderId}, ${input.score ?? 80},
                ${input.verdict ?? "GO"}, ${input.read ?? false}, ${input.createdAt ?? new Date()},
                (SELECT publish_date FROM tenders WHERE id = ${input.tenderId}))
        RETURNING id`
    ).pipe(
      Effect.map((rows) => rows[0]!.id),
      Effect.orDie
    )
  )

/** Runs one SQL query against the server's database (for checking what changed). */
export const query = <A extends object>(server: TestServer, text: string, params: ReadonlyArray<unknown> = []) =>
  server.run(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(text, params as Array<unknown>)).pipe(Effect.orDie)
  )

/**
 * Resolves once a statement of the server waits for a lock on `table` (a test holding a lock has
 * stopped a request at that table), or fails after `seconds`.
 */
export const waitingOn = async (server: TestServer, table: string, seconds = 30) => {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const [row] = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = $1::regclass",
      [table]
    )
    if (row!.n > 0) return
    if (Date.now() > until) throw new Error(`no statement waited on ${table} within ${seconds} s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A small client bound to one server and one access token. */
export const client = (server: TestServer, token?: string) => {
  const call = (method: string) => (path: string, body?: unknown, headers?: Record<string, string>) =>
    request(`${server.baseUrl}${path}`, {
      method,
      ...(token === undefined ? {} : { token }),
      ...(body === undefined ? {} : { body }),
      ...(headers === undefined ? {} : { headers })
    })
  return { get: call("GET"), post: call("POST"), patch: call("PATCH"), delete: call("DELETE") }
}

export const rescoreJobs = (server: TestServer, companyId: string) =>
  query<{ count: number }>(
    server,
    `SELECT count(*)::int AS count FROM jobs WHERE kind = 'company.rescore' AND payload->>'companyId' = $1`,
    [companyId]
  ).then((rows) => rows[0]!.count)

/**
 * Marks the company's queued rescores done, as a worker that ran them would. A change made while one
 * is still queued joins it instead of queuing its own, so a test that counts the rescores a change
 * queues runs the queued ones first.
 */
export const runRescores = (server: TestServer, companyId: string) =>
  query(
    server,
    `UPDATE jobs SET status = 'done' WHERE kind = 'company.rescore' AND status = 'queued' AND payload->>'companyId' = $1`,
    [companyId]
  ).then(() => undefined)
