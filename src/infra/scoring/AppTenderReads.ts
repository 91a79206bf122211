import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { foldForMatching } from "../../domain/tenders/RomanianText.js"
import { isoMicrosText } from "../db/TimestampText.js"
import type { ListPosition, ListStatus } from "./ScoredTendersRepo.js"
import type { StoredFactors } from "./StoredFactors.js"

/**
 * Reads of scored tenders for the browser app (access tokens, no credits): the list of a company
 * with the filters a consultant uses daily (open/closed, words, county, CPV, deadline window) in
 * one of three orders, and one tender with its breakdown and CPV labels. The score order and the
 * snapshot are the key API's (ScoredTendersRepo), so both cursors mean the same thing; these reads
 * are not on the key API's measured hot path, so they run through SqlClient. The filters scan the
 * company's score rows (a few thousand at most), as the total already does: no index of their own.
 */

export type TenderStatus = ListStatus

/** The orders of the list; each has its own cursor position. */
export type AppListSort = "score" | "deadline" | "value"

/**
 * Where a page resumes, by order: the score order's (score, publish key, id); the deadline's
 * (deadline as microsecond text, `infinity` when there is none, id); the value's (value in RON,
 * -1 when unknown, id).
 */
export type AppListPosition =
  | ({ readonly sort: "score" } & ListPosition)
  | { readonly sort: "deadline"; readonly deadlineKey: string; readonly tenderId: string }
  | { readonly sort: "value"; readonly value: number; readonly tenderId: string }

/** The filters besides score and status; none narrows when absent. */
export interface AppListFilters {
  /** Words that must all occur in the title or the authority's name, diacritics and case ignored. */
  readonly words: ReadonlyArray<string>
  readonly county: Option.Option<string>
  /** The CPV code whose subtree the main or an additional code must lie in. */
  readonly cpv: Option.Option<string>
  /** Days (Europe/Bucharest), both inclusive; a tender without a deadline is outside any window. */
  readonly deadlineFrom: Option.Option<string>
  readonly deadlineTo: Option.Option<string>
}

/** The words of a search, folded as the SQL side folds the title (diacritics, case). */
export const searchWords = (text: string): ReadonlyArray<string> =>
  foldForMatching(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")

/** The significant leading digits of a CPV code: `45233000-9` covers every code starting `45233`. */
export const cpvPrefix = (code: string): string => code.slice(0, 8).replace(/0+$/, "").padEnd(2, "0")

// Diacritics folded in SQL as migrations 0010's scoring_text_keys does (both cases, then lower()).
const FOLD_FROM = "ăâîșțşţĂÂÎȘȚŞŢáàäéèëêíìïóòöôúùüûçñÁÀÄÉÈËÊÍÌÏÓÒÖÔÚÙÜÛÇÑ"
const FOLD_TO = "aaiststAAISTSTaaaeeeeiiioooouuuucnAAAEEEEIIIOOOOUUUUCN"

/** LIKE metacharacters of a word, escaped. */
const likeEscape = (word: string) => word.replace(/[\\%_]/g, (c) => `\\${c}`)

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
  publish_key: Schema.String,
  /** The deadline order's position: the deadline in microseconds, `infinity` when there is none. */
  deadline_key: Schema.String
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
  status: Schema.Literal("all", "open", "closed"),
  now: Schema.DateFromSelf,
  filters: Schema.Struct({
    words: Schema.Array(Schema.String),
    county: Schema.OptionFromSelf(Schema.String),
    cpv: Schema.OptionFromSelf(Schema.String),
    deadlineFrom: Schema.OptionFromSelf(Schema.String),
    deadlineTo: Schema.OptionFromSelf(Schema.String)
  }),
  sort: Schema.Literal("score", "deadline", "value"),
  after: Schema.OptionFromSelf(
    Schema.Union(
      Schema.Struct({ sort: Schema.Literal("score"), ...ListPositionSchema.fields }),
      Schema.Struct({ sort: Schema.Literal("deadline"), deadlineKey: Schema.String, tenderId: Schema.String }),
      Schema.Struct({ sort: Schema.Literal("value"), value: Schema.Number, tenderId: Schema.String })
    )
  ),
  take: Schema.Number
})

export interface AppListQuery {
  readonly tenantId: string
  readonly companyId: string
  readonly minScore: number
  readonly status: TenderStatus
  /** The instant that separates open from closed tenders (the service's clock, page 1's). */
  readonly now: Date
  readonly filters: AppListFilters
  readonly sort: AppListSort
  /** None on page 1: the snapshot is taken now and returned. */
  readonly bound: Option.Option<string>
  readonly after: Option.Option<AppListPosition>
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
      ${isoMicrosText("s.tender_publish_date")} AS publish_key,
      CASE WHEN t.deadline IS NULL THEN 'infinity' ELSE ${isoMicrosText("t.deadline")} END AS deadline_key`)

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
    const folded = (column: string) => sql.literal(`lower(translate(${column}, '${FOLD_FROM}', '${FOLD_TO}'))`)
    const bucharestDayStart = (day: string, plusDays: number) =>
      sql`(${day}::date + ${plusDays}::int)::timestamp AT TIME ZONE 'Europe/Bucharest'`

    /** Status and the filters, on the score row's tender `t` and its authority `a`. */
    const filtersOf = (input: typeof PageRequest.Encoded) => {
      const { filters } = input
      const parts = [
        input.status === "open"
          ? sql`AND (t.deadline IS NULL OR t.deadline > ${input.now})
                AND (t.cancelled_at IS NULL OR t.cancelled_at > ${input.now})`
          : input.status === "closed"
            ? sql`AND (t.deadline <= ${input.now} OR t.cancelled_at <= ${input.now})`
            : sql``,
        ...filters.words.map(
          (word) =>
            sql`AND (${folded("t.title")} LIKE ${`%${likeEscape(word)}%`} OR ${folded("a.name")} LIKE ${`%${likeEscape(word)}%`})`
        ),
        Option.match(filters.county, {
          onNone: () => sql``,
          onSome: (county) => sql`AND ${folded("a.county")} = ${foldForMatching(county)}`
        }),
        Option.match(filters.cpv, {
          onNone: () => sql``,
          onSome: (code) =>
            sql`AND EXISTS (SELECT 1 FROM unnest(array_prepend(t.main_cpv, t.additional_cpvs)) AS c(code)
                            WHERE c.code LIKE ${`${cpvPrefix(code)}%`})`
        }),
        Option.match(filters.deadlineFrom, {
          onNone: () => sql``,
          onSome: (day) => sql`AND t.deadline >= ${bucharestDayStart(day, 0)}`
        }),
        Option.match(filters.deadlineTo, {
          onNone: () => sql``,
          onSome: (day) => sql`AND t.deadline < ${bucharestDayStart(day, 1)}`
        })
      ]
      return sql.join(" ", false)(parts)
    }

    const deadlineOrder = sql.literal("coalesce(t.deadline, 'infinity'::timestamptz)")
    const valueOrder = sql.literal("coalesce(t.estimated_value_ron::float8, -1)")
    const orderOf = (input: typeof PageRequest.Encoded) =>
      input.sort === "deadline"
        ? sql`ORDER BY ${deadlineOrder}, s.tender_id`
        : input.sort === "value"
          ? sql`ORDER BY ${valueOrder} DESC, s.tender_id`
          : sql`ORDER BY s.overall_score DESC, s.tender_publish_date DESC, s.tender_id`
    const afterOf = (input: typeof PageRequest.Encoded) =>
      Option.match(input.after, {
        onNone: () => sql``,
        onSome: (p) =>
          p.sort === "deadline"
            ? sql`AND (${deadlineOrder}, s.tender_id) > (${p.deadlineKey}::timestamptz, ${p.tenderId}::uuid)`
            : p.sort === "value"
              ? sql`AND (${valueOrder} < ${p.value}::float8
                         OR (${valueOrder} = ${p.value}::float8 AND s.tender_id > ${p.tenderId}::uuid))`
              : sql`
            AND s.overall_score <= ${p.score}
            AND (s.overall_score < ${p.score} OR s.tender_publish_date < ${p.publishKey}::timestamptz
                 OR (s.tender_publish_date = ${p.publishKey}::timestamptz AND s.tender_id > ${p.tenderId}::uuid))`
      })

    const pageTotal = SqlSchema.single({
      Request: PageRequest,
      Result: Schema.Struct({ total: Schema.Number }),
      execute: (input) => sql`
        SELECT count(*)::int AS total FROM ${scoresOf(input)} s
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE true ${filtersOf(input)}`
    })
    const pageRows = SqlSchema.findAll({
      Request: PageRequest,
      Result: AppTenderRow,
      execute: (input) => sql`
        SELECT ${tenderColumns}
        FROM ${scoresOf(input)} s
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE true ${filtersOf(input)} ${afterOf(input)}
        ${orderOf(input)}
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
