import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import type { ReportData, ReportTender } from "../../domain/reports/ReportData.js"
import { REPORT_BREAKDOWN_TENDERS, REPORT_MAX_TENDERS, type ReportParams } from "../../domain/reports/ReportJob.js"
import { WEIGHTS } from "../../domain/scoring/Model.js"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { ScoreReasons } from "../scoring/ScoreReasons.js"
import { storedBreakdown } from "../scoring/StoredFactors.js"

/**
 * What a report shows, read from the scores: the company's scored tenders published in the period
 * (Bucharest dates, both inclusive) with at least `min_score`; with `watchlist_id`, only the tenders
 * that watchlist alerted on. The table lists the best REPORT_MAX_TENDERS; the summary counts all.
 * The top REPORT_BREAKDOWN_TENDERS get their factors with the Romanian reasons the app shows.
 */
export class ReportContents extends Context.Tag("ReportContents")<
  ReportContents,
  {
    readonly load: (input: { readonly companyId: string; readonly params: ReportParams }) => Effect.Effect<ReportData>
  }
>() {}

const NamesRow = Schema.Struct({ tenant_name: Schema.String, company_name: Schema.String })

const WatchlistNameRow = Schema.Struct({ name: Schema.String })

/** The counts and sums over every matching score (an aggregate: always one row). */
const SummaryRow = Schema.Struct({
  total: Schema.Number,
  go: Schema.Number,
  research: Schema.Number,
  skip: Schema.Number,
  average: Schema.NullOr(Schema.Number),
  value_ron: Schema.Number
})

/** A listed tender with its stored factors (StoredFactors). */
const TenderRow = Schema.Struct({
  tender_id: Schema.String,
  title: Schema.String,
  overall_score: Schema.Number,
  verdict: Verdict,
  main_cpv: Schema.String,
  label_ro: Schema.NullOr(Schema.String),
  authority: Schema.String,
  county: Schema.NullOr(Schema.String),
  deadline: Schema.NullOr(Schema.DateFromSelf),
  cancelled: Schema.Boolean,
  publish_date: Schema.DateFromSelf,
  value_ron: Schema.NullOr(Schema.Number),
  model_version: Schema.String,
  score_semantic: Schema.Number,
  score_keyword: Schema.Number,
  score_cpv: Schema.Number,
  score_value_fit: Schema.Number,
  score_historical: Schema.Number,
  cpv_type: Schema.Literal("primary", "additional", "none")
})

const decodeRows =
  <A, I>(row: Schema.Schema<A, I>) =>
  (rows: ReadonlyArray<unknown>) =>
    Schema.decodeUnknown(Schema.Array(row))(rows)

export const ReportContentsLive = Layer.effect(
  ReportContents,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const explain = yield* ScoreReasons

    const load = (input: { readonly companyId: string; readonly params: ReportParams }) =>
      Effect.gen(function* () {
        const { params } = input
        const [names] = yield* sql`
          SELECT t.name AS tenant_name, c.name AS company_name
          FROM companies c JOIN tenants t ON t.id = c.tenant_id WHERE c.id = ${input.companyId}`.pipe(
          Effect.flatMap(decodeRows(NamesRow))
        )
        const watchlistName =
          params.watchlist_id === null
            ? null
            : ((yield* sql`SELECT name FROM watchlists WHERE id = ${params.watchlist_id}`.pipe(
                Effect.flatMap(decodeRows(WatchlistNameRow))
              ))[0]?.name ?? null)
        const matching = sql`
          FROM tender_scores s
          WHERE s.company_id = ${input.companyId}
            AND s.tender_publish_date >= (${params.date_from}::date)::timestamp AT TIME ZONE 'Europe/Bucharest'
            AND s.tender_publish_date < (${params.date_to}::date + 1)::timestamp AT TIME ZONE 'Europe/Bucharest'
            AND s.overall_score >= ${params.min_score}
            ${
              params.watchlist_id === null
                ? sql``
                : sql`AND EXISTS (SELECT 1 FROM alerts al
                                  WHERE al.watchlist_id = ${params.watchlist_id} AND al.tender_id = s.tender_id)`
            }`
        // One snapshot for both reads: a rescore committed between them would make the summary's
        // counts and average disagree with the table.
        const { summary, rows } = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`
            const [summary] = yield* sql`
              SELECT count(*)::int AS total,
                     (count(*) FILTER (WHERE s.verdict = 'GO'))::int AS go,
                     (count(*) FILTER (WHERE s.verdict = 'RESEARCH'))::int AS research,
                     (count(*) FILTER (WHERE s.verdict = 'SKIP'))::int AS skip,
                     avg(s.overall_score)::float8 AS average,
                     coalesce((SELECT sum(t.estimated_value_ron) FROM tenders t WHERE t.id IN (SELECT s.tender_id ${matching})), 0)::float8 AS value_ron
              ${matching}`.pipe(Effect.flatMap(decodeRows(SummaryRow)))
            const rows = yield* sql`
              SELECT s.tender_id, t.title, s.overall_score, s.verdict, rtrim(t.main_cpv) AS main_cpv, cc.label_ro,
                     a.name AS authority, a.county, t.deadline, t.cancelled_at IS NOT NULL AS cancelled, t.publish_date,
                     t.estimated_value_ron::float8 AS value_ron, s.model_version,
                     s.score_semantic, s.score_keyword, s.score_cpv, s.score_value_fit, s.score_historical, s.cpv_type
              FROM (SELECT s.* ${matching}
                    ORDER BY s.overall_score DESC, s.tender_publish_date DESC, s.tender_id
                    LIMIT ${REPORT_MAX_TENDERS}) s
              JOIN tenders t ON t.id = s.tender_id
              JOIN contracting_authorities a ON a.id = t.authority_id
              LEFT JOIN cpv_codes cc ON cc.code_full = t.main_cpv
              ORDER BY s.overall_score DESC, s.tender_publish_date DESC, s.tender_id`.pipe(
              Effect.flatMap(decodeRows(TenderRow))
            )
            return { summary, rows }
          })
        )
        const tenders: Array<ReportTender> = rows.map((r) => ({
          tenderId: r.tender_id,
          title: r.title,
          score: r.overall_score,
          verdict: r.verdict,
          cpvCode: r.main_cpv,
          cpvLabel: r.label_ro ?? "",
          authority: r.authority,
          county: r.county,
          deadline: r.deadline?.getTime() ?? null,
          cancelled: r.cancelled,
          publishDate: r.publish_date.getTime(),
          valueRon: r.value_ron
        }))
        const top = rows.slice(0, REPORT_BREAKDOWN_TENDERS)
        const reasons = yield* explain.reasonsFor(
          input.companyId,
          top.map((r) => r.tender_id),
          "ro"
        )
        const breakdowns = yield* Effect.forEach(top, (r) =>
          Effect.map(storedBreakdown(r), (factors) => ({
            tenderId: r.tender_id,
            title: r.title,
            score: r.overall_score,
            verdict: r.verdict,
            deadline: r.deadline?.getTime() ?? null,
            cancelled: r.cancelled,
            reasons: reasons.get(r.tender_id) ?? null,
            factors: (Object.keys(WEIGHTS) as Array<keyof typeof WEIGHTS>).map((name) => ({
              name,
              score: factors[name].score,
              weight: factors[name].weight,
              contribution: factors[name].contribution
            }))
          }))
        )
        return {
          tenantName: names?.tenant_name ?? "",
          companyName: names?.company_name ?? "",
          watchlistName,
          params,
          generatedAt: yield* Clock.currentTimeMillis,
          totalTenders: summary?.total ?? 0,
          verdictCounts: { GO: summary?.go ?? 0, RESEARCH: summary?.research ?? 0, SKIP: summary?.skip ?? 0 },
          averageScore: summary?.average ?? null,
          totalValueRon: summary?.value_ron ?? 0,
          tenders,
          breakdowns
        } satisfies ReportData
      }).pipe(Effect.orDie)

    return { load }
  })
)
