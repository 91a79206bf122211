import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, type Option, Schema } from "effect"
import { REPORT_STATUSES, type ReportParams } from "../../domain/reports/ReportJob.js"

/** A report job with its company's name, as the browser app's settings screen lists it. */
export const AppReportRow = Schema.Struct({
  id: Schema.String,
  company_id: Schema.String,
  company_name: Schema.String,
  status: Schema.Literal(...REPORT_STATUSES),
  /** The `jsonb` column, as ReportJobsRepo writes it. */
  params: Schema.Struct({
    date_from: Schema.String,
    date_to: Schema.String,
    min_score: Schema.Number,
    watchlist_id: Schema.NullOr(Schema.String)
  }) satisfies Schema.Schema<ReportParams>,
  created_at: Schema.DateFromSelf,
  completed_at: Schema.NullOr(Schema.DateFromSelf)
})
export interface AppReportRow extends Schema.Schema.Type<typeof AppReportRow> {}

/** Reads of a tenant's report jobs for the app (the jobs themselves are ReportJobsRepo's). */
export class AppReportReads extends Context.Tag("AppReportReads")<
  AppReportReads,
  {
    /** The tenant's latest `limit` jobs, newest first. */
    readonly latest: (tenantId: string, limit: number) => Effect.Effect<ReadonlyArray<AppReportRow>>
    readonly find: (tenantId: string, jobId: string) => Effect.Effect<Option.Option<AppReportRow>>
    /** Whether the company is the tenant's and, when given, the watchlist an active one of that company. */
    readonly checkTarget: (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly watchlistId: string | null
    }) => Effect.Effect<{ readonly company: boolean; readonly watchlist: boolean }>
  }
>() {}

export const AppReportReadsLive = Layer.effect(
  AppReportReads,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      "j.id, j.company_id, c.name AS company_name, j.status, j.params, j.created_at, j.completed_at"
    )
    const latestRows = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, limit: Schema.Number }),
      Result: AppReportRow,
      execute: (input) => sql`
        SELECT ${columns} FROM report_jobs j JOIN companies c ON c.id = j.company_id
        WHERE j.tenant_id = ${input.tenantId}
        ORDER BY j.created_at DESC, j.id DESC
        LIMIT ${input.limit}`
    })
    const findRow = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, jobId: Schema.String }),
      Result: AppReportRow,
      execute: (input) => sql`
        SELECT ${columns} FROM report_jobs j JOIN companies c ON c.id = j.company_id
        WHERE j.id = ${input.jobId} AND j.tenant_id = ${input.tenantId}`
    })
    const targetRow = SqlSchema.single({
      Request: Schema.Struct({
        tenantId: Schema.String,
        companyId: Schema.String,
        watchlistId: Schema.NullOr(Schema.String)
      }),
      Result: Schema.Struct({ company: Schema.Boolean, watchlist: Schema.Boolean }),
      execute: (input) => sql`
        SELECT EXISTS (SELECT 1 FROM companies WHERE id = ${input.companyId} AND tenant_id = ${input.tenantId})
                 AS company,
               ${input.watchlistId}::uuid IS NULL OR EXISTS (
                 SELECT 1 FROM watchlists
                 WHERE id = ${input.watchlistId}::uuid AND company_id = ${input.companyId} AND deleted_at IS NULL
               ) AS watchlist`
    })
    const latest = (tenantId: string, limit: number) => latestRows({ tenantId, limit }).pipe(Effect.orDie)
    const find = (tenantId: string, jobId: string) => findRow({ tenantId, jobId }).pipe(Effect.orDie)
    const checkTarget = (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly watchlistId: string | null
    }) => targetRow(input).pipe(Effect.orDie)
    return { latest, find, checkTarget }
  })
)
