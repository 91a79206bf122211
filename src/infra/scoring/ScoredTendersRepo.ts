import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { Verdict } from "../../domain/scoring/Verdict.js"
import { makePrepared } from "../db/PreparedStatement.js"

/**
 * Reads of scored tenders for the key API: the ranked list, one score breakdown, the export.
 * Timestamps leave PostgreSQL already formatted as ISO 8601 UTC text (what the wire carries), and
 * each row also carries its exact sort position (`publish_key`, microseconds) for cursors.
 */

/** Sort position of a list row: (overall_score desc, tender_publish_date desc, tender_id). */
export interface ListPosition {
  readonly score: number
  readonly publishKey: string
  readonly tenderId: string
}

/** Sort position of an export row: (tender_publish_date, tender_id), ascending. */
export interface ExportPosition {
  readonly publishKey: string
  readonly tenderId: string
}

export interface TenderListRow {
  readonly tender_id: string
  readonly title: string
  readonly score: number
  readonly verdict: Verdict
  readonly cpv_codes: ReadonlyArray<string>
  readonly contracting_authority: string
  readonly deadline: string | null
  readonly estimated_value_ron: number | null
  readonly estimated_value_eur: number | null
  readonly publish_date: string
  readonly source_url: string
  readonly publish_key: string
}

export interface ScoreRow {
  readonly tender_id: string
  readonly overall_score: number
  readonly overall_confidence: number
  readonly verdict: Verdict
  /** The factor scores (0-1, four decimals); weights and contributions follow from the model version. */
  readonly score_semantic: number
  readonly score_keyword: number
  readonly score_cpv: number
  readonly score_value_fit: number
  readonly score_historical: number
  readonly cpv_type: "primary" | "additional" | "none"
  readonly model_version: string
  readonly scored_at: string
}

export interface ExportRow {
  readonly tender_id: string
  readonly title: string
  readonly cpv_codes: ReadonlyArray<string>
  readonly contracting_authority: string
  readonly authority_county: string | null
  readonly deadline: string | null
  readonly estimated_value_ron: number | null
  readonly estimated_value_eur: number | null
  readonly publish_date: string
  readonly overall_score: number
  readonly verdict: Verdict
  readonly score_cpv: number | null
  readonly score_semantic: number | null
  readonly score_keyword: number | null
  readonly score_value_fit: number | null
  readonly score_historical: number | null
  readonly source_url: string
  readonly publish_key: string
}

const isoMillisText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
const isoMicrosText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/**
 * The list path's statements, run as named prepared statements (parsed and planned once per
 * connection: re-planning the page query on every request cost more than running it). A page
 * statement checks that the company is the caller's ($5: tenant; `owned`, and nothing is read
 * otherwise), reads the snapshot bound itself when none is given ($3 null: page 1), and carries
 * both and the snapshot's total on every row: one round trip per page (an empty page is one row
 * without a tender). The benchmark's baseline imports the same texts.
 */
export const LIST_SQL = {
  companyTenant: "SELECT tenant_id FROM companies WHERE id = $1",
  snapshotBound: "SELECT coalesce(max(ingest_seq), 0)::text AS bound FROM tenders",
  page: (after: boolean) => `
    WITH b AS (
      SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1 AND tenant_id = $5::uuid) AS owned,
             coalesce($3::bigint, (SELECT coalesce(max(ingest_seq), 0) FROM tenders)) AS bound
    )
    SELECT b.owned, b.bound::text AS bound, c.total, p.*
    FROM b
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total FROM tender_scores
      WHERE b.owned AND company_id = $1 AND overall_score >= $2 AND tender_ingest_seq <= b.bound
    ) c
    LEFT JOIN LATERAL (
      SELECT s.tender_id, t.title, s.overall_score AS score, s.verdict,
             array_prepend(rtrim(t.main_cpv), t.additional_cpvs::text[]) AS cpv_codes,
             a.name AS contracting_authority, ${isoMillisText("t.deadline")} AS deadline,
             t.estimated_value_ron::float8 AS estimated_value_ron, t.estimated_value_eur::float8 AS estimated_value_eur,
             ${isoMillisText("s.tender_publish_date")} AS publish_date, t.source_url,
             ${isoMicrosText("s.tender_publish_date")} AS publish_key
      FROM tender_scores s
      JOIN tenders t ON t.id = s.tender_id
      JOIN contracting_authorities a ON a.id = t.authority_id
      WHERE b.owned AND s.company_id = $1 AND s.overall_score >= $2 AND s.tender_ingest_seq <= b.bound
      ${
        after
          ? `AND s.overall_score <= $6 AND (s.overall_score < $6 OR s.tender_publish_date < $7::timestamptz
               OR (s.tender_publish_date = $7::timestamptz AND s.tender_id > $8::uuid))`
          : ""
      }
      ORDER BY s.overall_score DESC, s.tender_publish_date DESC, s.tender_id
      LIMIT $4
    ) p ON true
    -- publish_key is fixed-width ISO text, so it sorts as the instant does.
    ORDER BY p.score DESC, p.publish_key DESC, p.tender_id`
} as const

const PAGE_FIRST = LIST_SQL.page(false)
const PAGE_AFTER = LIST_SQL.page(true)

export class ScoredTendersRepo extends Context.Tag("ScoredTendersRepo")<
  ScoredTendersRepo,
  {
    /** The tenant owning a company, if the company exists. */
    readonly companyTenant: (companyId: string) => Effect.Effect<Option.Option<string>>
    /** The highest tender ingestion sequence so far: the snapshot bound of a new pagination. */
    readonly snapshotBound: Effect.Effect<string>
    /**
     * Up to `take` rows after `after` (exclusive) and the total, within the snapshot `bound`, or
     * (page 1, no bound yet) within a snapshot taken now, which is returned. `owned` is false, and
     * nothing is read, when the company is not of `tenantId` (or does not exist).
     */
    readonly listPage: (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly minScore: number
      readonly bound: Option.Option<string>
      readonly after: Option.Option<ListPosition>
      readonly take: number
    }) => Effect.Effect<{
      readonly owned: boolean
      readonly bound: string
      readonly total: number
      readonly rows: ReadonlyArray<TenderListRow>
    }>
    readonly findScore: (input: {
      readonly companyId: string
      readonly tenderId: string
    }) => Effect.Effect<Option.Option<ScoreRow>>
    /** Rows published in [from, to] (dates in Europe/Bucharest, both inclusive), oldest first. */
    readonly exportPage: (input: {
      readonly companyId: string
      readonly from: string
      readonly to: string
      readonly bound: string
      readonly after: Option.Option<ExportPosition>
      readonly take: number
    }) => Effect.Effect<ReadonlyArray<ExportRow>>
  }
>() {}

export const ScoredTendersRepoLive = Layer.effect(
  ScoredTendersRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const isoMillis = (column: string) => sql.literal(isoMillisText(column))
    const isoMicros = (column: string) => sql.literal(isoMicrosText(column))
    const prepared = yield* makePrepared
    // Factor scores are stored as real: round back to the four decimals the scorer produced.
    const fraction = (column: string) => sql.literal(`round(${column}::numeric, 4)::float8 AS ${column}`)
    const factorPercent = (column: string) => sql.literal(`round(s.${column}::numeric * 100)::int`)

    const companyTenant = (companyId: string) =>
      prepared<{ tenant_id: string }>("tss_company_tenant", LIST_SQL.companyTenant, [companyId]).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.tenant_id))
      )

    const snapshotBound = prepared<{ bound: string }>("tss_snapshot_bound", LIST_SQL.snapshotBound, []).pipe(
      Effect.map((rows) => rows[0]!.bound)
    )

    const listPage = (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly minScore: number
      readonly bound: Option.Option<string>
      readonly after: Option.Option<ListPosition>
      readonly take: number
    }) => {
      const head = [input.companyId, input.minScore, Option.getOrNull(input.bound), input.take, input.tenantId]
      type Row = { readonly owned: boolean; readonly bound: string; readonly total: number } & (
        | TenderListRow
        | { readonly tender_id: null }
      )
      return Option.match(input.after, {
        onNone: () => prepared<Row>("tss_list_page", PAGE_FIRST, head),
        onSome: (p) => prepared<Row>("tss_list_page_after", PAGE_AFTER, [...head, p.score, p.publishKey, p.tenderId])
      }).pipe(
        Effect.map((rows) => ({
          // The statement always returns at least one row.
          owned: rows[0]!.owned,
          bound: rows[0]!.bound,
          total: rows[0]!.total,
          rows: rows.filter((row): row is Row & TenderListRow => row.tender_id !== null)
        }))
      )
    }

    const findScore = (input: { readonly companyId: string; readonly tenderId: string }) =>
      sql<ScoreRow>`
        SELECT tender_id, overall_score, round(overall_confidence::numeric, 2)::float8 AS overall_confidence, verdict,
               ${fraction("score_semantic")}, ${fraction("score_keyword")}, ${fraction("score_cpv")},
               ${fraction("score_value_fit")}, ${fraction("score_historical")}, cpv_type,
               model_version, ${isoMillis("scored_at")} AS scored_at
        FROM tender_scores WHERE company_id = ${input.companyId} AND tender_id = ${input.tenderId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const exportPage = (input: {
      readonly companyId: string
      readonly from: string
      readonly to: string
      readonly bound: string
      readonly after: Option.Option<ExportPosition>
      readonly take: number
    }) =>
      sql<ExportRow>`
        SELECT s.tender_id, t.title,
               array_prepend(rtrim(t.main_cpv), t.additional_cpvs::text[]) AS cpv_codes,
               a.name AS contracting_authority, a.county AS authority_county,
               ${isoMillis("t.deadline")} AS deadline,
               t.estimated_value_ron::float8 AS estimated_value_ron,
               t.estimated_value_eur::float8 AS estimated_value_eur,
               ${isoMillis("s.tender_publish_date")} AS publish_date,
               s.overall_score, s.verdict,
               ${factorPercent("score_cpv")} AS score_cpv,
               ${factorPercent("score_semantic")} AS score_semantic,
               ${factorPercent("score_keyword")} AS score_keyword,
               ${factorPercent("score_value_fit")} AS score_value_fit,
               ${factorPercent("score_historical")} AS score_historical,
               t.source_url,
               ${isoMicros("s.tender_publish_date")} AS publish_key
        FROM tender_scores s
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE s.company_id = ${input.companyId}
          AND s.tender_publish_date >= (${input.from}::date)::timestamp AT TIME ZONE 'Europe/Bucharest'
          AND s.tender_publish_date < (${input.to}::date + 1)::timestamp AT TIME ZONE 'Europe/Bucharest'
          AND s.tender_ingest_seq <= ${input.bound}
          ${Option.match(input.after, {
            onNone: () => sql``,
            onSome: (p) =>
              sql`AND (s.tender_publish_date, s.tender_id) > (${p.publishKey}::timestamptz, ${p.tenderId}::uuid)`
          })}
        ORDER BY s.tender_publish_date, s.tender_id
        LIMIT ${input.take}`.pipe(Effect.orDie)

    return { companyTenant, snapshotBound, listPage, findScore, exportPage }
  })
)
