import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Rows for scoring tests written with plain SQL, independent of the importer: a tenant, and
 * helpers for authorities, companies, watchlists and contract notices (publish date and deadline
 * chosen by the test, for the data-lifecycle tests).
 */
export const scoringFixtures = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Scoring considers every active company of the database: each test sees its own companies only.
  yield* sql`UPDATE companies SET active = false WHERE active`
  const one = <A extends object>(rows: ReadonlyArray<A>) => rows[0]!
  const tenant = one(yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`).id
  const authority = one(
    yield* sql<{ id: string }>`INSERT INTO contracting_authorities (name, normalized_name, fiscal_code, county)
                               VALUES ('Primăria Cluj', 'primaria cluj', ${String(4_000_000 + Math.floor(Math.random() * 999_999))}, 'Cluj')
                               RETURNING id`
  ).id
  const company = (name: string, description: string) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO companies (tenant_id, name, description)
                          VALUES (${tenant}, ${name}, ${description}) RETURNING id`,
      (rows) => one(rows).id
    )
  const watchlist = (companyId: string, w: { cpv?: Array<string>; keywords?: Array<string>; minScore?: number }) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score)
        VALUES (${tenant}, ${companyId}, 'W', ${w.cpv ?? []}::char(10)[], ${w.keywords ?? []}::text[], ${w.minScore ?? 50})
        RETURNING id`,
      (rows) => one(rows).id
    )
  let n = 0
  const tender = (t: {
    title: string
    description?: string
    cpv: string
    publishDate?: string
    deadline?: string | null
  }) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv,
                                               additional_cpvs, authority_id, estimated_value_ron, publish_date,
                                               deadline, winner_fiscal_codes, source_url)
        VALUES ('test', ${`n${++n}-${Math.random()}`}, 'contract', ${t.title}, ${t.description ?? ""}, ${t.cpv},
                '{}'::char(10)[], ${authority}, 1000000, ${t.publishDate ?? "2026-01-10T00:00:00Z"},
                ${t.deadline ?? null}, '{}'::text[], 'https://example.test/n')
        RETURNING id`,
      (rows) => one(rows).id
    )
  /** The stored score of a pair, if any. */
  const storedScore = (companyId: string, tenderId: string) =>
    Effect.map(
      sql<{ overall_score: number }>`SELECT overall_score FROM tender_scores
                                     WHERE company_id = ${companyId} AND tender_id = ${tenderId}`,
      (rows) => rows[0]?.overall_score
    )
  return { sql, tenant, authority, company, watchlist, tender, storedScore }
})
