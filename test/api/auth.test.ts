import { SqlClient } from "@effect/sql"
import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateApiKey } from "../../src/domain/ApiKey.js"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, api, createAccount } from "./fixtures.js"

describe("API-key authentication", () => {
  let server: TestServer
  let account: Account
  const endpoints = (companyId: string) => [
    api(server, "/api/v1/tenders", { companyId }),
    api(server, "/api/v1/tenders/11111111-1111-4111-8111-111111111111/score", { companyId }),
    api(server, "/api/v1/export/tenders", { companyId, from: "2026-01-01", to: "2026-01-31" })
  ]

  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { generalPerMinute: 10_000, exportPerHour: 10_000 }
    })
    account = await createAccount(server)
  })
  afterAll(() => server.close())

  const expectError = async (
    url: string,
    headers: Record<string, string>,
    status: number,
    code: string
  ): Promise<Headers> => {
    const res = await request(url, { headers })
    expect(res.status, `${url} ${JSON.stringify(headers)}`).toBe(status)
    expect(res.body).toEqual({ statusCode: status, code, message: expect.any(String) })
    return res.headers
  }

  it("401 API_KEY_MISSING without a header, with an empty Bearer or with another scheme", async () => {
    for (const url of endpoints(account.companyId)) {
      for (const headers of [
        {},
        { authorization: "" },
        { authorization: "Bearer " },
        { authorization: "Bearer    " },
        { authorization: `Token ${account.key}` },
        { authorization: `Basic ${account.key}` }
      ]) {
        const res = await expectError(url, headers, 401, "API_KEY_MISSING")
        expect(res.get("x-api-credits-cost")).toBeNull()
      }
    }
  })

  it("401 API_KEY_INVALID for a malformed or unknown key", async () => {
    for (const url of endpoints(account.companyId)) {
      for (const key of ["svc_123", "sk_live_abc", `${account.key}0`, account.key.toUpperCase(), generateApiKey()]) {
        await expectError(url, { authorization: `Bearer ${key}` }, 401, "API_KEY_INVALID")
      }
    }
  })

  it("the scheme is case-insensitive", async () => {
    const res = await request(api(server, "/api/v1/tenders", { companyId: account.companyId }), {
      headers: { authorization: `bearer ${account.key}` }
    })
    expect(res.status).toBe(200)
  })

  it("authentication comes before request validation", async () => {
    await expectError(
      api(server, "/api/v1/tenders", { companyId: "nope", limit: 0 }),
      { authorization: `Bearer ${generateApiKey()}` },
      401,
      "API_KEY_INVALID"
    )
  })

  it("401 API_KEY_REVOKED after revocation, also when the plan would be refused", async () => {
    const other = await createAccount(server)
    await server.run(Effect.flatMap(ApiKeysRepo, (keys) => keys.revoke({ keyId: other.keyId })))
    for (const url of endpoints(other.companyId)) {
      await expectError(url, { authorization: `Bearer ${other.key}` }, 401, "API_KEY_REVOKED")
    }
    await server.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE tenants SET plan = 'free' WHERE id = ${other.tenantId}`)
    )
    await expectError(endpoints(other.companyId)[0]!, { authorization: `Bearer ${other.key}` }, 401, "API_KEY_REVOKED")
  })

  it("403 PLAN_UPGRADE_REQUIRED below Consultant", async () => {
    for (const plan of ["free", "starter", "activ"] as const) {
      const lower = await createAccount(server, { plan })
      for (const url of endpoints(lower.companyId)) {
        await expectError(url, { authorization: `Bearer ${lower.key}` }, 403, "PLAN_UPGRADE_REQUIRED")
      }
    }
  })

  it("documents the bearer scheme and the credit headers in OpenAPI", async () => {
    const { body: spec } = await request(`${server.baseUrl}/api/v1/openapi.json`)
    const list = spec.paths["/api/v1/tenders"].get
    expect(list.security).toEqual([{ apiKey: [] }])
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "402", "403", "429"]))
    expect(list.description).toContain("X-API-Credits-Cost")
    expect(spec.paths["/api/v1/export/tenders"].get.responses["429"]).toBeDefined()
  })
})

describe("API key creation", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it("4 parallel creations leave exactly 3 active keys; the fourth fails", async () => {
    for (let round = 0; round < 5; round++) {
      const account = await createAccount(server)
      await server.run(Effect.flatMap(ApiKeysRepo, (keys) => keys.revoke({ keyId: account.keyId })))
      const exits = await server.run(
        Effect.flatMap(ApiKeysRepo, (keys) =>
          Effect.all(
            Array.from({ length: 4 }, () => Effect.exit(keys.create({ tenantId: account.tenantId, name: "parallel" }))),
            { concurrency: "unbounded" }
          )
        )
      )
      expect(exits.filter(Exit.isSuccess)).toHaveLength(3)
      const failures = exits.filter(Exit.isFailure)
      expect(failures).toHaveLength(1)
      expect(String(failures[0]!.cause)).toContain("ApiKeyLimitExceeded")
      const active = await server.run(
        Effect.flatMap(ApiKeysRepo, (keys) => keys.list(account.tenantId)).pipe(
          Effect.map((list) => list.filter((k) => k.revokedAt === null))
        )
      )
      expect(active).toHaveLength(3)
    }
  })
})
