import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { isoMicrosText } from "../db/TimestampText.js"
import type { ListPosition } from "./ScoredTendersRepo.js"
import type { StoredFactors } from "./StoredFactors.js"

/**
 * Reads of scored tenders for the browser app (access tokens, no credits): the ranked list of a
 * company with an open/closed filter, and one tender with its breakdown and CPV labels. The order
 * and snapshot are the key API's (ScoredTendersRepo), so both cursors mean the same thing; these
 * reads are not on the key API's measured hot path, so they run through SqlClient.
 */

export type TenderStatus = "open" | "closed"

/** Values are read as `float8` (numbers); fractions and confidence rounded in SQL. */
export const AppTenderRow = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  score: Schema.Number,
  verdict: Verdict,
  cpv_codes: Schema.Array(Schema.String),
  authority: Schema.String,
  authority_county: Schema.NullOr(Schema.String),
  deadline: Schema.NullOr(Schema.DateFromSelf),
  estimated_value_ron: Schema.NullOr(Schema.Number),
  estimated_value_eur: Schema.NullOr(Schema.Number),
  publish_date: Schema.DateFromSelf,
  source_url: Schema.String,
  /** The exact sort position (microseconds) for cursors. */
  publish_key: Schema.String
})
export interface AppTenderRow extends Schema.Schema.Type<typeof AppTenderRow> {}

/** The columns of StoredFactors. */
const StoredFactorColumns = Schema.Struct({
  score_semantic: Schema.Number,
  score_keyword: Schema.Number,
  score_cpv: Schema.Number,
  score_value_fit: Schema.Number,
  score_historical: Schema.Number,
  cpv_type: Schema.Literal("primary", "additional", "none"),
  model_version: Schema.String
}) satisfies Schema.Schema<StoredFactors>

export const AppTenderDetailRow = Schema.Struct({
  ...AppTenderRow.fields,
  ...StoredFactorColumns.fields,
  description: Schema.String,
  /** A `json` array, parsed by the driver. */
  cpv_labels: Schema.Array(Schema.Struct({ code: Schema.String, label_ro: Schema.String, label_en: Schema.String })),
  overall_confidence: Schema.Number,
  scored_at: Schema.DateFromSelf
})
export interface AppTenderDetailRow extends Schema.Schema.Type<typeof AppTenderDetailRow> {}

const ListPositionSchema = Schema.Struct({
  score: Schema.Number,
  publishKey: Schema.String,
  tenderId: Schema.String
}) satisfies Schema.Schema<ListPosition>

/** One page's scored tenders of a company: the snapshot `bound`, then the filters and the position. */
const PageRequest = Schema.Struct({
  companyId: Schema.String,
  minScore: Schema.Number,
  bound: Schema.String,
  status: Schema.OptionFromSelf(Schema.Literal("open", "closed")),
  now: Schema.DateFromSelf,
  after: Schema.OptionFromSelf(ListPositionSchema),
  take: Schema.Number
})

export interface AppListQuery {
  readonly tenantId: string
  readonly companyId: string
  readonly minScore: number
  readonly status: Option.Option<TenderStatus>
  /** The instant that separates open from closed tenders (the service's clock). */
  readonly now: Date
  /** None on page 1: the snapshot is taken now and returned. */
  readonly bound: Option.Option<string>
  readonly after: Option.Option<ListPosition>
  readonly take: number
}

export class AppTenderReads extends Context.Tag("AppTenderReads")<
  AppTenderReads,
  {
    /** `owned` false (nothing read) when the company is not of the tenant or does not exist. */
    readonly listPage: (input: AppListQuery) => Effect.Effect<{
      readonly owned: boolean
      readonly bound: string
      readonly total: number
      readonly rows: ReadonlyArray<AppTenderRow>
    }>
    /** The tender as scored for the company, if the company is the tenant's and the pair is scored. */
    readonly detail: (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly tenderId: string
    }) => Effect.Effect<Option.Option<AppTenderDetailRow>>
  }
>() {}

export const AppTenderReadsLive = Layer.effect(
  AppTenderReads,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const fraction = (column: string) => sql.literal(`round(s.${column}::numeric, 4)::float8 AS ${column}`)

    const tenderColumns = sql.literal(`
      t.id, t.title, s.overall_score AS score, s.verdict,
      array_prepend(rtrim(t.main_cpv), t.additional_cpvs::text[]) AS cpv_codes,
      a.name AS authority, a.county AS authority_county, t.deadline,
      t.estimated_value_ron::float8 AS estimated_value_ron, t.estimated_value_eur::float8 AS estimated_value_eur,
      s.tender_publish_date AS publish_date, t.source_url,
      ${isoMicrosText("s.tender_publish_date")} AS publish_key`)

    // The bound is page 1's snapshot (as the key API's list): later pages read the score rows as
    // page 1 saw them, current rows written before it and versions replaced since.
    const pageHead = SqlSchema.single({
      Request: Schema.Struct({
        tenantId: Schema.String,
        companyId: Schema.String,
        bound: Schema.NullOr(Schema.String)
      }),
      Result: Schema.Struct({ owned: Schema.Boolean, bound: Schema.String }),
      execute: (input) => sql`
        SELECT EXISTS (SELECT 1 FROM companies WHERE id = ${input.companyId} AND tenant_id = ${input.tenantId})
                 AS owned,
               coalesce(${input.bound}, pg_current_snapshot()::text) AS bound`
    })

    /** The company's score rows as the snapshot saw them. */
    const scoresOf = (input: typeof PageRequest.Encoded) => {
      const snapshot = sql`${input.bound}::pg_snapshot`
      const within = sql`company_id = ${input.companyId} AND overall_score >= ${input.minScore}
        AND pg_visible_in_snapshot(written_xid, ${snapshot})`
      const columns = sql.literal("company_id, tender_id, overall_score, verdict, tender_publish_date")
      return sql`(
        (SELECT ${columns} FROM tender_scores WHERE ${within})
        UNION ALL
        (SELECT ${columns} FROM tender_score_history
         WHERE ${within} AND NOT pg_visible_in_snapshot(superseded_xid, ${snapshot}))
      )`
    }
    const statusOf = (input: typeof PageRequest.Encoded) =>
      Option.match(input.status, {
        onNone: () => sql``,
        onSome: (status) =>
          status === "open"
            ? sql`AND (t.deadline IS NULL OR t.deadline > ${input.now}) AND t.cancelled_at IS NULL`
            : sql`AND (t.deadline <= ${input.now} OR t.cancelled_at IS NOT NULL)`
      })

    const pageTotal = SqlSchema.single({
      Request: PageRequest,
      Result: Schema.Struct({ total: Schema.Number }),
      execute: (input) => sql`
        SELECT count(*)::int AS total FROM ${scoresOf(input)} s JOIN tenders t ON t.id = s.tender_id
        WHERE true ${statusOf(input)}`
    })
    const pageRows = SqlSchema.findAll({
      Request: PageRequest,
      Result: AppTenderRow,
      execute: (input) => sql`
        SELECT ${tenderColumns}
        FROM ${scoresOf(input)} s
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE true ${statusOf(input)}
        ${Option.match(input.after, {
          onNone: () => sql``,
          onSome: (p) => sql`
            AND s.overall_score <= ${p.score}
            AND (s.overall_score < ${p.score} OR s.tender_publish_date < ${p.publishKey}::timestamptz
                 OR (s.tender_publish_date = ${p.publishKey}::timestamptz AND s.tender_id > ${p.tenderId}::uuid))`
        })}
        ORDER BY s.overall_score DESC, s.tender_publish_date DESC, s.tender_id
        LIMIT ${input.take}`
    })
    const detailRow = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, companyId: Schema.String, tenderId: Schema.String }),
      Result: AppTenderDetailRow,
      execute: (input) => sql`
        SELECT ${tenderColumns}, t.description,
               round(s.overall_confidence::numeric, 2)::float8 AS overall_confidence,
               ${fraction("score_semantic")}, ${fraction("score_keyword")}, ${fraction("score_cpv")},
               ${fraction("score_value_fit")}, ${fraction("score_historical")}, s.cpv_type,
               s.model_version, s.scored_at,
               (SELECT coalesce(json_agg(json_build_object('code', rtrim(c.code_full), 'label_ro', c.label_ro,
                                                           'label_en', c.label_en) ORDER BY x.n), '[]')
                FROM unnest(array_prepend(t.main_cpv, t.additional_cpvs)) WITH ORDINALITY AS x(code, n)
                JOIN cpv_codes c ON c.code_full = x.code) AS cpv_labels
        FROM tender_scores s
        JOIN companies co ON co.id = s.company_id AND co.tenant_id = ${input.tenantId}
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE s.company_id = ${input.companyId} AND s.tender_id = ${input.tenderId}`
    })

    const listPage = (input: AppListQuery) =>
      Effect.gen(function* () {
        const head = yield* pageHead({
          tenantId: input.tenantId,
          companyId: input.companyId,
          bound: Option.getOrNull(input.bound)
        })
        if (!head.owned) return { owned: false, bound: head.bound, total: 0, rows: [] }
        const page = { ...input, bound: head.bound }
        const { total } = yield* pageTotal(page)
        const rows = yield* pageRows(page)
        return { owned: true, bound: head.bound, total, rows }
      }).pipe(Effect.orDie)

    const detail = (input: { readonly tenantId: string; readonly companyId: string; readonly tenderId: string }) =>
      detailRow(input).pipe(Effect.orDie)

    return { listPage, detail }
  })
)
