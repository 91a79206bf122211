import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { normalizeAuthorityName } from "../domain/tenders/RomanianText.js"
import { CompaniesRepo } from "../infra/accounts/CompaniesRepo.js"
import { TenantsRepo } from "../infra/accounts/TenantsRepo.js"
import { UsersRepo } from "../infra/accounts/UsersRepo.js"
import { ApiKeysRepo } from "../infra/auth/ApiKeysRepo.js"
import { ScoringService } from "../infra/scoring/ScoringService.js"
import {
  type CpvRow,
  DEMO_COMPANIES,
  DEMO_EMAIL,
  DEMO_PASSWORD,
  DEMO_SOURCE,
  DEMO_TENANT_NAME,
  type DemoTender,
  generateDemoTenders
} from "./DemoData.js"

/** What a seeding run created; the API key is only ever known here (its hash is stored). */
export interface DemoSeedResult {
  readonly tenantId: string
  readonly email: string
  readonly password: string
  readonly apiKey: string
  readonly companyIds: ReadonlyArray<string>
  readonly tenderIds: ReadonlyArray<string>
}

const CHUNK = 500

/**
 * Writes demo tenders (and their authorities) with one batched statement per chunk of rows. The
 * rows are already normalised, so this is the whole of their ingestion except scoring; the caller
 * scores the returned ids. Idempotent: a notice already present (same source and notice id) is kept.
 */
export const insertDemoTenders = (tenders: ReadonlyArray<DemoTender>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const authorities = [...new Map(tenders.map((t) => [t.authority.name, t.authority])).values()]
    const normalized = authorities.map((a) => normalizeAuthorityName(a.name))
    yield* sql`
      INSERT INTO contracting_authorities (name, normalized_name, county)
      SELECT * FROM unnest(${authorities.map((a) => a.name)}::text[], ${normalized}::text[],
                           ${authorities.map((a) => a.county)}::text[])
      ON CONFLICT (normalized_name) WHERE fiscal_code IS NULL DO NOTHING`
    const rows = yield* sql<{ id: string; normalized_name: string }>`
      SELECT id, normalized_name FROM contracting_authorities
      WHERE fiscal_code IS NULL AND normalized_name = ANY(${normalized}::text[])`
    const authorityId = new Map(rows.map((r) => [r.normalized_name, r.id]))

    const ids: Array<string> = []
    for (let start = 0; start < tenders.length; start += CHUNK) {
      const chunk = tenders.slice(start, start + CHUNK)
      const column = <A>(f: (t: DemoTender) => A) => chunk.map(f)
      // Postgres arrays cannot be ragged, so additional CPVs travel as one comma-joined text each.
      const inserted = yield* sql<{ id: string }>`
        INSERT INTO tenders (source, source_notice_id, title, description, main_cpv, additional_cpvs,
                             authority_id, deadline, estimated_value_ron, estimated_value_eur, publish_date, source_url)
        SELECT ${DEMO_SOURCE}, n, ti, d, m, coalesce(string_to_array(NULLIF(a, ''), ','), '{}')::char(10)[], au, dl, r, e, p, u
        FROM unnest(
          ${column((t) => t.sourceNoticeId)}::text[], ${column((t) => t.title)}::text[],
          ${column((t) => t.description)}::text[], ${column((t) => t.mainCpv)}::text[],
          ${column((t) => t.additionalCpvs.join(","))}::text[],
          ${column((t) => authorityId.get(normalizeAuthorityName(t.authority.name))!)}::uuid[],
          ${column((t) => t.deadline.toISOString())}::timestamptz[],
          ${column((t) => t.estimatedValueRon)}::numeric[], ${column((t) => t.estimatedValueEur)}::numeric[],
          ${column((t) => t.publishDate.toISOString())}::timestamptz[], ${column((t) => t.sourceUrl)}::text[]
        ) AS x(n, ti, d, m, a, au, dl, r, e, p, u)
        ORDER BY p
        ON CONFLICT (source, source_notice_id) DO NOTHING
        RETURNING id`
      ids.push(...inserted.map((r) => r.id))
    }
    return ids
  })

/**
 * Seeds the demo: one Consultant tenant, its user (fixed e-mail and password), two companies with
 * watchlists, one API key and the generated tenders, all in one transaction. Fails with EmailTaken
 * when the demo user exists (seeding twice would give a second tenant).
 */
export const seedDemo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tenants = yield* TenantsRepo
  const users = yield* UsersRepo
  const companies = yield* CompaniesRepo
  const apiKeys = yield* ApiKeysRepo

  const catalog = yield* sql<CpvRow>`SELECT code_full, level, nature, label_ro FROM cpv_codes ORDER BY code`
  const tenders = generateDemoTenders({ catalog, now: yield* Clock.currentTimeMillis })

  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const tenant = yield* tenants.create({ name: DEMO_TENANT_NAME, plan: "consultant" })
      yield* users.create({ tenantId: tenant.id, email: DEMO_EMAIL, password: DEMO_PASSWORD })
      const companyIds: Array<string> = []
      for (const demo of DEMO_COMPANIES) {
        const company = yield* companies.create({
          tenantId: tenant.id,
          name: demo.name,
          description: demo.description,
          fiscalCode: demo.fiscalCode
        })
        companyIds.push(company.id)
        for (const w of demo.watchlists) {
          yield* sql`
            INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value, min_score)
            VALUES (${tenant.id}, ${company.id}, ${w.name}, ${w.cpvCodes}::char(10)[], ${w.keywords}::text[],
                    ${w.minValue}, ${w.maxValue}, ${w.minScore})`
        }
      }
      const { key } = yield* apiKeys.create({ tenantId: tenant.id, name: "demo" })
      const tenderIds = yield* insertDemoTenders(tenders)
      return {
        tenantId: tenant.id,
        email: DEMO_EMAIL,
        password: DEMO_PASSWORD,
        apiKey: key,
        companyIds,
        tenderIds
      } satisfies DemoSeedResult
    })
  )
})

/** True when the database has no tenant at all: the only case in which `npm start` seeds. */
export const databaseIsEmpty = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ empty: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM tenants) AS empty`.pipe(Effect.map((rows) => rows[0]!.empty))
)

/** Seeds the demo, then scores its tenders for the demo companies (raising their first alerts). */
export const seedDemoAndScore = Effect.gen(function* () {
  const seeded = yield* seedDemo
  const scoring = yield* ScoringService
  yield* scoring.scoreTenders(seeded.tenderIds, { isNew: seeded.tenderIds })
  return seeded
})
