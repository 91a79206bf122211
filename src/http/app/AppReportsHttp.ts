import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { planRules } from "../../domain/Plan.js"
import { AppConfig } from "../../infra/config/AppConfig.js"
import { AppReportReads, AppReportReadsLive, type AppReportRow } from "../../infra/reports/AppReportReads.js"
import { DownloadTokens, DownloadTokensLive } from "../../infra/reports/DownloadTokens.js"
import { ReportIdempotencyKeysLive } from "../../infra/reports/ReportIdempotencyKeys.js"
import { ReportJobsRepoLive } from "../../infra/reports/ReportJobsRepo.js"
import { DatabaseReportStorageLive } from "../../infra/reports/ReportStorage.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"
import { queueReport } from "../reports/QueueReport.js"

/** The tenant of the access token, if its plan has reports (Consultant). */
const consultantTenant = Effect.flatMap(CurrentAccount, (account) =>
  planRules[account.plan].apiAccess
    ? Effect.succeed(account.tenantId)
    : Effect.fail(new ApiError.PlanUpgradeRequired({ message: "PDF reports are part of the Consultant plan" }))
)

const toWire = (row: AppReportRow) => ({
  id: row.id,
  companyId: row.company_id,
  companyName: row.company_name,
  status: row.status,
  dateFrom: row.params.date_from,
  dateTo: row.params.date_to,
  minScore: row.params.min_score,
  watchlistId: row.params.watchlist_id,
  createdAt: row.created_at,
  completedAt: row.completed_at
})

const noJob = () => new ApiError.NotFound({ message: "No such report job" })

export const AppReportsHttpLive = HttpApiBuilder.group(Api, "appReports", (handlers) =>
  Effect.gen(function* () {
    const reads = yield* AppReportReads
    const tokens = yield* DownloadTokens
    const config = yield* AppConfig

    const findJob = (tenantId: string, jobId: string) =>
      Effect.flatMap(
        reads.find(tenantId, jobId.toLowerCase()),
        Option.match({ onNone: () => Effect.fail(noJob()), onSome: Effect.succeed })
      )

    return handlers
      .handle("list", () =>
        consultantTenant.pipe(
          Effect.flatMap((tenantId) => reads.latest(tenantId, 50)),
          Effect.map((rows) => ({ data: rows.map(toWire) }))
        )
      )
      .handle("create", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          const tenantId = yield* consultantTenant
          const created = yield* queueReport({
            unknownCompany: () => new ApiError.NotFound({ message: "No such company" }),
            tenantId,
            companyId: path.companyId.toLowerCase(),
            payload,
            idempotencyKey: headers["idempotency-key"]
          })
          // A new job or, for a repeated key, the job as it is now.
          return { data: toWire(yield* findJob(tenantId, created.id)) }
        })
      )
      .handle("get", ({ path }) =>
        consultantTenant.pipe(
          Effect.flatMap((tenantId) => findJob(tenantId, path.jobId)),
          Effect.map((row) => ({ data: toWire(row) }))
        )
      )
      .handle("downloadUrl", ({ path }) =>
        Effect.gen(function* () {
          const tenantId = yield* consultantTenant
          const job = yield* findJob(tenantId, path.jobId)
          if (job.status !== "completed") {
            return yield* new ApiError.ReportNotReady({
              message: `The report is ${job.status}; a download URL exists once it is completed`,
              status: job.status
            })
          }
          const issued = yield* tokens.issue(job.id)
          return {
            data: {
              downloadUrl: `${config.publicBaseUrl}/api/v1/reports/download/${issued.token}`,
              expiresAt: issued.expiresAt
            }
          }
        })
      )
  })
).pipe(
  Layer.provide([
    AccessTokenAuthLive,
    AppReportReadsLive,
    ReportIdempotencyKeysLive,
    ReportJobsRepoLive,
    DownloadTokensLive
  ]),
  Layer.provide(DatabaseReportStorageLive)
)
