import { SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Verdict } from "../../domain/scoring/Verdict.js"
import { makeRunPrepared, makeRunPreparedOnReplica, type RunPrepared } from "../db/PreparedStatements.js"
import { isoMicrosText, isoMillisText } from "../db/TimestampText.js"
import { type ListPageRow, type ListStatus, ScoreListStatements, type TenderListRow } from "./ScoreListStatements.js"

export type { ListStatus, TenderListRow }

/**
 * Reads of scored tenders for the key API: the ranked list, one score breakdown, the export.
 * Timestamps leave PostgreSQL already formatted as ISO 8601 UTC text (what the wire carries), and
 * each row also carries its exact sort position (`publish_key`, microseconds) for cursors. The
 * list path runs the named statements of ScoreListStatements; the rarer reads go through SqlClient,
 * their rows decoded by Schema.
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

export interface ListPageQuery {
  readonly tenantId: string
  readonly companyId: string
  readonly minScore: number
  readonly status: ListStatus
  /** The instant separating open from closed tenders (unused for `all`). */
  readonly now: Date
  /** The snapshot of page 1 (pg_snapshot text); none on page 1: the page statement takes it itself. */
  readonly bound: Option.Option<string>
  readonly after: Option.Option<ListPosition>
  readonly take: number
}

export interface ExportPageQuery {
  readonly companyId: string
  /** Dates in Europe/Bucharest, both inclusive. */
  readonly from: string
  readonly to: string
  readonly status: ListStatus
  /** The instant separating open from closed tenders (unused for `all`). */
  readonly now: Date
  readonly bound: string
  readonly after: Option.Option<ExportPosition>
  readonly take: number
}

/** One stored score with its factors (a StoredFactors), `scored_at` as ISO 8601 UTC text. */
export const ScoreRow = Schema.Struct({
  tender_id: Schema.String,
  overall_score: Schema.Number,
  overall_confidence: Schema.Number,
  verdict: Verdict,
  score_semantic: Schema.Number,
  score_keyword: Schema.Number,
  score_cpv: Schema.Number,
  score_value_fit: Schema.Number,
  score_historical: Schema.Number,
  cpv_type: Schema.Literal("primary", "additional", "none"),
  model_version: Schema.String,
  scored_at: Schema.String
})
export interface ScoreRow extends Schema.Schema.Type<typeof ScoreRow> {}

/** One exported score, timestamps as ISO 8601 UTC text, factors in percent. */
export const ExportRow = Schema.Struct({
  tender_id: Schema.String,
  title: Schema.String,
  cpv_codes: Schema.Array(Schema.String),
  contracting_authority: Schema.String,
  authority_county: Schema.NullOr(Schema.String),
  deadline: Schema.NullOr(Schema.String),
  estimated_value_ron: Schema.NullOr(Schema.Number),
  estimated_value_eur: Schema.NullOr(Schema.Number),
  publish_date: Schema.String,
  overall_score: Schema.Number,
  verdict: Verdict,
  score_cpv: Schema.Number,
  score_semantic: Schema.Number,
  score_keyword: Schema.Number,
  score_value_fit: Schema.Number,
  score_historical: Schema.Number,
  source_url: Schema.String,
  publish_key: Schema.String
})
export interface ExportRow extends Schema.Schema.Type<typeof ExportRow> {}

export class ScoredTendersRepo extends Context.Tag("ScoredTendersRepo")<
  ScoredTendersRepo,
  {
    /** The tenant owning a company, if the company exists. */
    readonly companyTenant: (companyId: string) => Effect.Effect<Option.Option<string>>
    /** The database's current snapshot (pg_snapshot text): the bound of a new export pagination. */
    readonly snapshotBound: Effect.Effect<string>
    /**
     * Up to `take` rows after `after` (exclusive) and the total, within the snapshot `bound` (score
     * versions as page 1 saw them, however rescored or removed since), or (page 1, no bound yet)
     * within the statement's own snapshot, which is returned. `owned` is false, and
     * nothing is read, when the company is not of `tenantId` (or does not exist).
     */
    readonly listPage: (input: ListPageQuery) => Effect.Effect<{
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
    readonly exportPage: (input: ExportPageQuery) => Effect.Effect<ReadonlyArray<ExportRow>>
    /**
     * Drops score versions replaced or removed more than `keepHours` ago (migration 0012): cursors
     * older than that may then skip items rescored since. Returns how many were dropped.
     */
    readonly pruneReplacedVersions: (keepHours: number) => Effect.Effect<number, SqlError.SqlError>
  }
>() {}

export const ScoredTendersRepoLive = Layer.effect(
  ScoredTendersRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const isoMillis = (column: string) => sql.literal(isoMillisText(column))
    const isoMicros = (column: string) => sql.literal(isoMicrosText(column))
    const runPrepared = yield* makeRunPrepared
    const runOnReplica = yield* makeRunPreparedOnReplica
    // Factor scores are stored as real: round back to the four decimals the scorer produced.
    const fraction = (column: string) => sql.literal(`round(${column}::numeric, 4)::float8 AS ${column}`)
    const factorPercent = (column: string) => sql.literal(`round(s.${column}::numeric * 100)::int`)

    // Measured hot path (`npm run bench -- api`): the ScoreListStatements rows are typed, not decoded.
    const companyTenant = (companyId: string) =>
      runPrepared(ScoreListStatements.companyTenant, [companyId]).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.tenant_id))
      )

    const snapshotBound = runPrepared(ScoreListStatements.snapshotBound, []).pipe(Effect.map((rows) => rows[0]!.bound))

    /** A page read with `run` (the primary's runner or the replica's). */
    const readListPage = (run: RunPrepared, input: ListPageQuery) => {
      const head = [input.companyId, input.minScore, Option.getOrNull(input.bound), input.take, input.tenantId] as const
      const status = input.status
      const rows =
        status === "all"
          ? Option.match(input.after, {
              onNone: () => run(ScoreListStatements.listPage, head),
              onSome: (p) => run(ScoreListStatements.listPageAfter, [...head, p.score, p.publishKey, p.tenderId])
            })
          : Option.match(input.after, {
              onNone: () => run(ScoreListStatements.listPageOf[status], [...head, input.now]),
              onSome: (p) =>
                run(ScoreListStatements.listPageAfterOf[status], [
                  ...head,
                  p.score,
                  p.publishKey,
                  p.tenderId,
                  input.now
                ])
            })
      return rows.pipe(
        Effect.map((rows) => ({
          // The statement always returns at least one row.
          owned: rows[0]!.owned,
          bound: rows[0]!.bound,
          total: rows[0]!.total,
          rows: rows.filter((row): row is ListPageRow & TenderListRow => row.tender_id !== null)
        }))
      )
    }

    // With a replica, pages are read there: page 1's snapshot is the replica's, and its later pages
    // read the same replica, which only moves forward. A company the replica does not have yet
    // (created a moment ago, within the replication delay) is looked up on the primary before it
    // is called unknown.
    const listPage = (input: ListPageQuery) =>
      Option.match(runOnReplica, {
        onNone: () => readListPage(runPrepared, input),
        onSome: (onReplica) =>
          Effect.flatMap(readListPage(onReplica, input), (page) =>
            page.owned ? Effect.succeed(page) : readListPage(runPrepared, input)
          )
      })

    const findScoreRow = SqlSchema.findOne({
      Request: Schema.Struct({ companyId: Schema.String, tenderId: Schema.String }),
      Result: ScoreRow,
      execute: (input) => sql`
        SELECT tender_id, overall_score, round(overall_confidence::numeric, 2)::float8 AS overall_confidence, verdict,
               ${fraction("score_semantic")}, ${fraction("score_keyword")}, ${fraction("score_cpv")},
               ${fraction("score_value_fit")}, ${fraction("score_historical")}, cpv_type,
               model_version, ${isoMillis("scored_at")} AS scored_at
        FROM tender_scores WHERE company_id = ${input.companyId} AND tender_id = ${input.tenderId}`
    })

    const findScore = (input: { readonly companyId: string; readonly tenderId: string }) =>
      findScoreRow(input).pipe(Effect.orDie)

    const decodeExportRows = Schema.decodeUnknown(Schema.Array(ExportRow))

    // As ScoreListStatements' status filter: open is not cancelled by `now` and a deadline after it or none.
    const exportStatus = (input: ExportPageQuery) => {
      if (input.status === "all") return sql``
      const open = sql`EXISTS (SELECT 1 FROM tenders t WHERE t.id = tender_id
        AND (t.cancelled_at IS NULL OR t.cancelled_at > ${input.now})
        AND (t.deadline IS NULL OR t.deadline > ${input.now}))`
      return input.status === "open" ? sql`AND ${open}` : sql`AND NOT ${open}`
    }

    const exportPage = (input: ExportPageQuery) => {
      // The same row filter on both branches of the snapshot (current rows, then replaced versions).
      const within = sql`
          company_id = ${input.companyId}
          AND tender_publish_date >= (${input.from}::date)::timestamp AT TIME ZONE 'Europe/Bucharest'
          AND tender_publish_date < (${input.to}::date + 1)::timestamp AT TIME ZONE 'Europe/Bucharest'
          AND pg_visible_in_snapshot(written_xid, ${input.bound}::pg_snapshot)
          ${Option.match(input.after, {
            onNone: () => sql``,
            onSome: (p) =>
              sql`AND (tender_publish_date, tender_id) > (${p.publishKey}::timestamptz, ${p.tenderId}::uuid)`
          })}
          ${exportStatus(input)}`
      const columns = sql.literal(
        "tender_id, overall_score, verdict, score_cpv, score_semantic, score_keyword, score_value_fit, score_historical, tender_publish_date"
      )
      return sql<ExportRow>`
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
        FROM (
          (SELECT ${columns} FROM tender_scores WHERE ${within}
           ORDER BY tender_publish_date, tender_id LIMIT ${input.take})
          UNION ALL
          (SELECT ${columns} FROM tender_score_history
           WHERE ${within} AND NOT pg_visible_in_snapshot(superseded_xid, ${input.bound}::pg_snapshot)
           ORDER BY tender_publish_date, tender_id LIMIT ${input.take})
        ) s
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        ORDER BY s.tender_publish_date, s.tender_id
        LIMIT ${input.take}`.pipe(Effect.flatMap(decodeExportRows), Effect.orDie)
    }

    const pruneVersions = SqlSchema.single({
      Request: Schema.Number,
      Result: Schema.Struct({ n: Schema.Number }),
      execute: (keepHours) => sql`
        WITH gone AS (
          DELETE FROM tender_score_history WHERE superseded_at < now() - make_interval(hours => ${keepHours})
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`
    })

    // A row that does not decode (or none from the count) is a defect; a failed statement stays the caller's SqlError.
    const pruneReplacedVersions = (keepHours: number) =>
      pruneVersions(keepHours).pipe(
        Effect.map((row) => row.n),
        Effect.catchTags({ ParseError: Effect.die, NoSuchElementException: Effect.die })
      )

    return { companyTenant, snapshotBound, listPage, findScore, exportPage, pruneReplacedVersions }
  })
)
