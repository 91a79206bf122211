import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { ReportParams, ReportStatus } from "../../domain/reports/ReportJob.js"

/** A report job with its company's name, as the browser app's settings screen lists it. */
export interface AppReportRow {
  readonly id: string
  readonly company_id: string
  readonly company_name: string
  readonly status: ReportStatus
  readonly params: ReportParams
  readonly created_at: Date
  readonly completed_at: Date | null
}

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
    const latest = (tenantId: string, limit: number) =>
      sql<AppReportRow>`
        SELECT ${columns} FROM report_jobs j JOIN companies c ON c.id = j.company_id
        WHERE j.tenant_id = ${tenantId}
        ORDER BY j.created_at DESC, j.id DESC
        LIMIT ${limit}`.pipe(Effect.orDie)
    const find = (tenantId: string, jobId: string) =>
      sql<AppReportRow>`
        SELECT ${columns} FROM report_jobs j JOIN companies c ON c.id = j.company_id
        WHERE j.id = ${jobId} AND j.tenant_id = ${tenantId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )
    const checkTarget = (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly watchlistId: string | null
    }) =>
      sql<{ company: boolean; watchlist: boolean }>`
        SELECT EXISTS (SELECT 1 FROM companies WHERE id = ${input.companyId} AND tenant_id = ${input.tenantId})
                 AS company,
               ${input.watchlistId}::uuid IS NULL OR EXISTS (
                 SELECT 1 FROM watchlists
                 WHERE id = ${input.watchlistId}::uuid AND company_id = ${input.companyId} AND deleted_at IS NULL
               ) AS watchlist`.pipe(
        Effect.map((rows) => rows[0]!),
        Effect.orDie
      )
    return { latest, find, checkTarget }
  })
)
