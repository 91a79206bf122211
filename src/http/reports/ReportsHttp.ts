import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { REPORT_ESTIMATED_SECONDS, reportFileName } from "../../domain/reports/ReportJob.js"
import { AppConfig } from "../../infra/config/AppConfig.js"
import { AppReportReadsLive } from "../../infra/reports/AppReportReads.js"
import { DownloadTokens, DownloadTokensLive } from "../../infra/reports/DownloadTokens.js"
import { ReportIdempotencyKeysLive } from "../../infra/reports/ReportIdempotencyKeys.js"
import { ReportJobsRepo, ReportJobsRepoLive } from "../../infra/reports/ReportJobsRepo.js"
import { DatabaseReportStorageLive, ReportStorage } from "../../infra/reports/ReportStorage.js"
import { Api } from "../Api.js"
import { ApiCaller } from "../ApiKeyAuth.js"
import { ApiKeyAuthLive, ApiKeyAuthReportCreationLive, companyAccessDenied } from "../ApiKeyAuthLive.js"
import { refuseHead } from "../HeadRequests.js"
import { queueReport } from "./QueueReport.js"

const notFound = () => new ApiError.NotFound({ message: "No such report job" })
const gone = () =>
  new ApiError.DownloadTokenExpired({
    message: "This download link has expired or was used 3 times; request a new one from the job's download endpoint"
  })

export const ReportsHttpLive = HttpApiBuilder.group(Api, "reports", (handlers) =>
  Effect.gen(function* () {
    const jobs = yield* ReportJobsRepo
    const tokens = yield* DownloadTokens
    const storage = yield* ReportStorage
    const config = yield* AppConfig
    return handlers
      .handle("create", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          const caller = yield* ApiCaller
          const created = yield* queueReport({
            unknownCompany: companyAccessDenied,
            tenantId: caller.tenantId,
            companyId: path.companyId.toLowerCase(),
            payload,
            idempotencyKey: headers["idempotency-key"]
          }).pipe(
            // A refusal for credits reports the balance in the credit headers, as every 402 does.
            Effect.tapErrorTag("API_CREDITS_EXHAUSTED", (error) =>
              Effect.sync(() =>
                caller.credits.record(0, { remaining: error.credits_remaining, periodEndsAt: error.period_ends_at })
              )
            )
          )
          // Charged at completion: cost 0 now, the balance without the held credits. A repeat of a
          // key holds nothing: its headers say cost 0 and the balance as it is now.
          if (!created.replayed) caller.credits.record(0, created)
          // A repeat answers as the creation did (spec 4.3's 202): the status endpoint has the job's state.
          return { job_id: created.id, status: "generating" as const, estimated_seconds: REPORT_ESTIMATED_SECONDS }
        })
      )
      .handle("status", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* ApiCaller
          const job = yield* jobs.find(caller.tenantId, path.jobId.toLowerCase())
          if (Option.isNone(job)) return yield* notFound()
          return { job_id: job.value.id, status: job.value.status }
        })
      )
      .handle("downloadUrl", ({ path }) =>
        Effect.gen(function* () {
          // Each GET stores a new token: a HEAD would store one no one can read.
          yield* refuseHead
          const caller = yield* ApiCaller
          const job = yield* jobs.find(caller.tenantId, path.jobId.toLowerCase())
          if (Option.isNone(job)) return yield* notFound()
          const { status } = job.value
          if (status !== "completed") {
            return yield* new ApiError.ReportNotReady({
              message: `The report is ${status}; a download URL exists once it is completed`,
              status
            })
          }
          const issued = yield* tokens.issue(job.value.id)
          return {
            download_url: `${config.publicBaseUrl}/api/v1/reports/download/${issued.token}`,
            expires_at: issued.expiresAt.toISOString()
          }
        })
      )
      .handle("download", ({ path }) =>
        Effect.gen(function* () {
          yield* refuseHead
          // A PDF that cannot be read (missing, storage failing) uses up none of the token's 3 downloads.
          const served = yield* tokens.redeem(path.token, (jobId) =>
            Effect.map(Effect.all([storage.get(jobId), jobs.findById(jobId)]), ([pdf, job]) => Option.all({ pdf, job }))
          )
          if (Option.isNone(served)) return yield* gone()
          const { pdf, job } = served.value
          return HttpServerResponse.uint8Array(pdf, {
            contentType: "application/pdf",
            headers: {
              "content-disposition": `attachment; filename="${reportFileName(job.params)}"`,
              "cache-control": "no-store"
            }
          })
        })
      )
  })
)

/** The group with its key authentication (report and general limits), the job store and the PDF storage. */
export const ReportsLive = ReportsHttpLive.pipe(
  Layer.provide([
    ApiKeyAuthLive,
    ApiKeyAuthReportCreationLive,
    AppReportReadsLive,
    DownloadTokensLive,
    ReportIdempotencyKeysLive,
    ReportJobsRepoLive
  ]),
  Layer.provide(DatabaseReportStorageLive)
)
