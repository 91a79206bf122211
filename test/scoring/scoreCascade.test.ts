import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/**
 * Score rows have no foreign keys since migration 0019 (their checks were a third of a scoring
 * write): deleting a company or a tender still removes its scores, as the cascades did.
 */
describe("score rows follow their company and tender", () => {
  layer(TestDatabaseLive)((it) => {
    it.effect("deleting a company or a tender removes its scores, and only those", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`
        const companies = yield* sql<{ id: string }>`
          INSERT INTO companies (tenant_id, name, description)
          SELECT ${tenant!.id}, 'C' || n, '' FROM generate_series(1, 3) AS n RETURNING id`
        const [authority] = yield* sql<{ id: string }>`
          INSERT INTO contracting_authorities (name, normalized_name, fiscal_code, county)
          VALUES ('A', 'a', '4000000', 'Cluj') RETURNING id`
        const tenders = yield* sql<{ id: string }>`
          INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv, authority_id,
                               publish_date, source_url)
          SELECT 'test', 'n' || n, 'contract', 'T', '', '45233120-6', ${authority!.id}, now(), 'https://example.test'
          FROM generate_series(1, 2) AS n RETURNING id`
        yield* sql`
          INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, score_semantic,
                                     score_keyword, score_cpv, score_value_fit, score_historical, cpv_type,
                                     model_version, scored_at, tender_publish_date, tender_ingest_seq)
          SELECT c, t, 50, 0.5, 'RESEARCH', 0, 0, 1, 0.5, 0.5, 'primary', 'tsm-1.2.0', now(), now(), 1
          FROM unnest(${companies.map((c) => c.id)}::uuid[]) AS c, unnest(${tenders.map((t) => t.id)}::uuid[]) AS t`
        const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM tender_scores`.pipe(
          Effect.map((rows) => rows[0]!.n)
        )
        expect(yield* count).toBe(6)
        yield* sql`DELETE FROM companies WHERE id = ${companies[0]!.id}`
        expect(yield* count).toBe(4)
        yield* sql`DELETE FROM tenders WHERE id = ${tenders[0]!.id}`
        expect(yield* count).toBe(2)
        const left = yield* sql<{
          company_id: string
          tender_id: string
        }>`SELECT company_id, tender_id FROM tender_scores`
        expect(left.every((row) => row.company_id !== companies[0]!.id && row.tender_id === tenders[1]!.id)).toBe(true)
        // Through the tenant's cascade to its companies as well.
        yield* sql`DELETE FROM tenants WHERE id = ${tenant!.id}`
        expect(yield* count).toBe(0)
      })
    )
  })
})
