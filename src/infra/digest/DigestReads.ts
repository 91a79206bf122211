import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Context, Duration, Effect, Layer, Schema } from "effect"
import type { CompanyDigest, DigestSection, DigestTender } from "../../domain/digest/DigestEmail.js"
import { DIGEST_CLOSING_WITHIN, DIGEST_TENDERS_PER_SECTION } from "../../domain/digest/DigestSchedule.js"
import { Verdict } from "../../domain/scoring/Verdict.js"

/** What a digest reports for one account: new over `since` (exclusive) to `until`, the rest as of `now`. */
export interface DigestFacts {
  readonly companies: ReadonlyArray<CompanyDigest>
  readonly unreadAlerts: number
}

/**
 * The reads behind a digest, for one account. Only biddable tenders count: contract notices that
 * are not cancelled and whose deadline is still ahead (or not given); only active companies.
 * "New" is a tender first scored (`tender_first_scores`; its arrival, `created_at`, when scored before
 * migration 0034) inside the window: scoring follows arrival, so a tender that arrived just before a
 * pass and was scored after it is the next digest's.
 */
export class DigestReads extends Context.Tag("DigestReads")<
  DigestReads,
  {
    readonly forTenant: (input: {
      readonly tenantId: string
      readonly since: Date
      /** The end of the "new" window (DIGEST_SETTLE before `now`). */
      readonly until: Date
      readonly now: Date
    }) => Effect.Effect<DigestFacts>
  }
>() {}

const CompanyRow = Schema.Struct({ id: Schema.String, name: Schema.String })

const TenderRow = Schema.Struct({
  company_id: Schema.String,
  title: Schema.String,
  authority: Schema.String,
  verdict: Verdict,
  score: Schema.Number,
  deadline: Schema.NullOr(Schema.DateFromSelf),
  estimated_value_ron: Schema.NullOr(Schema.NumberFromString),
  /** How many rows the company has in the section (the same on each of its rows). */
  total: Schema.Number
})

const Window = Schema.Struct({
  tenantId: Schema.String,
  since: Schema.DateFromSelf,
  until: Schema.DateFromSelf,
  now: Schema.DateFromSelf
})

const toTender = (row: typeof TenderRow.Type): DigestTender => ({
  title: row.title,
  authority: row.authority,
  verdict: row.verdict,
  score: row.score,
  deadline: row.deadline,
  estimatedValueRon: row.estimated_value_ron
})

const sectionOf = (rows: ReadonlyArray<typeof TenderRow.Type>, companyId: string): DigestSection => {
  const own = rows.filter((row) => row.company_id === companyId)
  return { tenders: own.map(toTender), total: own[0]?.total ?? 0 }
}

export const DigestReadsLive = Layer.effect(
  DigestReads,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const biddable = (now: Date) =>
      sql`t.notice_type = 'contract' AND t.cancelled_at IS NULL AND (t.deadline IS NULL OR t.deadline > ${now})`

    const companies = SqlSchema.findAll({
      Request: Schema.String,
      Result: CompanyRow,
      execute: (tenantId) =>
        sql`SELECT id::text, name FROM companies WHERE tenant_id = ${tenantId} AND active ORDER BY created_at, id`
    })

    // The first DIGEST_TENDERS_PER_SECTION of each company, with the company's count.
    const ranked = (where: Statement.Fragment, order: Statement.Fragment, tenantId: string) => sql`
      SELECT company_id, title, authority, verdict, score, deadline, estimated_value_ron, total FROM (
        SELECT c.id::text AS company_id, t.title, a.name AS authority, s.verdict, s.overall_score AS score,
               t.deadline, t.estimated_value_ron::text AS estimated_value_ron,
               row_number() OVER (PARTITION BY c.id ORDER BY ${order}) AS rank,
               count(*) OVER (PARTITION BY c.id)::int AS total
        FROM companies c
        JOIN tender_scores s ON s.company_id = c.id
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE c.tenant_id = ${tenantId} AND c.active AND ${where}) r
      WHERE rank <= ${DIGEST_TENDERS_PER_SECTION}
      ORDER BY company_id, rank`

    const firstScored = sql`coalesce((SELECT f.scored_at FROM tender_first_scores f WHERE f.tender_id = t.id), t.created_at)`

    const newGo = SqlSchema.findAll({
      Request: Window,
      Result: TenderRow,
      execute: ({ tenantId, since, until, now }) =>
        ranked(
          // First scored in the window (arrived in it, for tenders scored before migration 0034); one range
          // test, so the lookup runs once per row.
          sql`s.verdict = 'GO' AND tstzrange(${since}, ${until}, '(]') @> ${firstScored} AND ${biddable(now)}`,
          sql`s.overall_score DESC, t.deadline NULLS LAST, t.id`,
          tenantId
        )
    })

    const closingSoon = SqlSchema.findAll({
      Request: Window,
      Result: TenderRow,
      execute: ({ tenantId, now }) =>
        ranked(
          sql`s.verdict IN ('GO', 'RESEARCH') AND ${biddable(now)}
              AND t.deadline <= ${new Date(now.getTime() + Duration.toMillis(DIGEST_CLOSING_WITHIN))}`,
          sql`t.deadline, s.overall_score DESC, t.id`,
          tenantId
        )
    })

    const unread = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ n: Schema.Number }),
      // Of the companies the digest reports on: a deactivated company's alerts are left out with it.
      execute: (tenantId) => sql`
        SELECT count(*)::int AS n FROM alerts a JOIN companies c ON c.id = a.company_id AND c.active
        WHERE a.tenant_id = ${tenantId} AND NOT a.read`
    })

    return {
      forTenant: (window) =>
        Effect.gen(function* () {
          const [own, fresh, closing, alerts] = yield* Effect.all([
            companies(window.tenantId),
            newGo(window),
            closingSoon(window),
            unread(window.tenantId)
          ])
          return {
            companies: own.map((company) => ({
              companyName: company.name,
              newGo: sectionOf(fresh, company.id),
              closingSoon: sectionOf(closing, company.id)
            })),
            unreadAlerts: alerts.n
          }
        }).pipe(Effect.orDie)
    }
  })
)
