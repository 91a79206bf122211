import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { MODEL_VERSION } from "../../src/domain/scoring/Model.js"
import { ApiKeysRepo } from "../../src/infra/auth/ApiKeysRepo.js"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import type { TestServer } from "../support/TestServer.js"

/** Rows for the key-API tests, written straight to the database (the scoring engine is not involved). */

export interface Account {
  readonly tenantId: string
  readonly companyId: string
  readonly key: string
  readonly keyId: string
}

export const createAccount = (
  server: TestServer,
  options: { readonly plan?: "free" | "starter" | "activ" | "consultant"; readonly credits?: number } = {}
): Promise<Account> =>
  server.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [tenant] = yield* sql<{ id: string }>`
        INSERT INTO tenants (name, plan) VALUES ('Tenant', ${options.plan ?? "consultant"}) RETURNING id`
      const [company] = yield* sql<{ id: string }>`
        INSERT INTO companies (tenant_id, name) VALUES (${tenant!.id}, 'Company') RETURNING id`
      const { key, summary } = yield* (yield* ApiKeysRepo).create({ tenantId: tenant!.id, name: "test" })
      if (options.credits !== undefined) {
        yield* (yield* CreditLedger).set({ tenantId: tenant!.id, remaining: options.credits, reason: "test" })
      }
      return { tenantId: tenant!.id, companyId: company!.id, key, keyId: summary.id }
    }).pipe(Effect.orDie)
  )

export const addCompany = (server: TestServer, tenantId: string): Promise<string> =>
  server.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ id: string }>`
      INSERT INTO companies (tenant_id, name) VALUES (${tenantId}, 'Other company') RETURNING id`
    ).pipe(
      Effect.map((rows) => rows[0]!.id),
      Effect.orDie
    )
  )

export interface TenderInput {
  readonly title?: string
  readonly score: number
  readonly publishDate: string
  readonly county?: string | null
  readonly additionalCpvs?: ReadonlyArray<string>
  readonly deadline?: string | null
  readonly valueRon?: number | null
}

/** Factor scores (0-1) of a fixture score row; the model's weights give its breakdown. */
export const factorScoresFor = (score: number) => ({
  semantic: score / 100,
  keyword: 0.5,
  cpv: 0.8,
  value_fit: 0.25,
  historical: 0.125,
  cpvType: "primary" as const
})

/** Inserts tenders (with an authority) and their scores for `companyId`; returns the tender ids in input order. */
export const addScoredTenders = (
  server: TestServer,
  account: { readonly tenantId: string; readonly companyId: string },
  tenders: ReadonlyArray<TenderInput>
): Promise<Array<string>> =>
  server.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const ids: Array<string> = []
      for (const t of tenders) {
        const suffix = randomUUID()
        const [authority] = yield* sql<{ id: string }>`
          INSERT INTO contracting_authorities (name, normalized_name, county)
          VALUES (${`Primăria ${suffix.slice(0, 6)}`}, ${suffix}, ${t.county === undefined ? "Cluj" : t.county})
          RETURNING id`
        const [tender] = yield* sql<{ id: string; ingest_seq: string }>`
          INSERT INTO tenders (source, source_notice_id, title, main_cpv, additional_cpvs, authority_id, deadline,
                               estimated_value_ron, estimated_value_eur, publish_date, source_url)
          VALUES ('test', ${suffix}, ${t.title ?? `Tender ${suffix.slice(0, 8)}`}, '45000000-7',
                  ${sql.literal(`ARRAY[${(t.additionalCpvs ?? []).map((c) => `'${c}'`).join(",")}]::char(10)[]`)},
                  ${authority!.id}, ${t.deadline === undefined ? "2027-01-15T10:00:00Z" : t.deadline},
                  ${t.valueRon === undefined ? 100000 : t.valueRon}, ${t.valueRon === undefined ? 20100.5 : null},
                  ${t.publishDate}, ${`https://e-licitatie.ro/notice/${suffix}`})
          RETURNING id, ingest_seq::text`
        const factors = factorScoresFor(t.score)
        yield* sql`
          INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict,
                                     score_semantic, score_keyword, score_cpv, score_value_fit, score_historical,
                                     cpv_type, model_version, scored_at, tender_publish_date, tender_ingest_seq)
          VALUES (${account.companyId}, ${tender!.id}, ${t.score}, 0.75,
                  ${t.score >= 70 ? "GO" : t.score >= 40 ? "RESEARCH" : "SKIP"},
                  ${factors.semantic}, ${factors.keyword}, ${factors.cpv}, ${factors.value_fit}, ${factors.historical},
                  ${factors.cpvType}, ${MODEL_VERSION}, '2026-11-01T08:00:00Z', ${t.publishDate}, ${tender!.ingest_seq})`
        ids.push(tender!.id)
      }
      return ids
    }).pipe(Effect.orDie)
  )

export const ledgerState = (server: TestServer, tenantId: string) =>
  server.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [counter] = yield* sql<{ remaining: number; granted: number }>`
        SELECT remaining, granted FROM credit_periods WHERE tenant_id = ${tenantId}`
      const [ledger] = yield* sql<{ sum: number; charged: number }>`
        SELECT coalesce(sum(delta), 0)::int AS sum,
               coalesce(-sum(delta) FILTER (WHERE kind = 'charge'), 0)::int AS charged
        FROM credit_ledger WHERE tenant_id = ${tenantId}`
      return { remaining: counter?.remaining ?? null, ledgerSum: ledger!.sum, charged: ledger!.charged }
    }).pipe(Effect.orDie)
  )

export const api = (server: TestServer, path: string, params: Record<string, string | number> = {}) => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()
  return `${server.baseUrl}${path}${query ? `?${query}` : ""}`
}
