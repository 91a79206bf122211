import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { DateTime } from "../../domain/Timestamps.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { StrictBody } from "../Inputs.js"
import { errors } from "../WireErrors.js"

/** A user's mark on a tender scored for a company (an extension of ours, issue 21). */
export const FeedbackMark = Schema.Struct({
  companyId: Schema.UUID,
  tenderId: Schema.UUID,
  relevant: Schema.Boolean,
  markedAt: DateTime
})

export const MarkFeedback = Schema.Struct({
  relevant: Schema.Boolean.annotations({ description: "`true`: relevant for the company; `false`: not relevant" })
})

const PairPath = Schema.Struct({ companyId: Schema.UUID, tenderId: Schema.UUID })

/**
 * Feedback of the browser app (access token), under /api/v1/app: a scored tender marked relevant or
 * not relevant for a company moves that company's scores on its next rescore (queued at once).
 */
export class FeedbackApi extends HttpApiGroup.make("feedback")
  .add(
    HttpApiEndpoint.put("mark", "/companies/:companyId/tenders/:tenderId/feedback")
      .annotate(OpenApi.Summary, "Mark a scored tender relevant or not relevant for the company")
      .setPath(PairPath)
      .setPayload(StrictBody(MarkFeedback))
      .addSuccess(Schema.Struct({ data: FeedbackMark }))
      .annotate(
        OpenApi.Description,
        "Sets (or replaces) the mark and queues a rescore of the company: tenders of the marked tender's CPV class move up (relevant) or down (not relevant), by at most 9 points, and the `cpv` factor's reason says so. 404 when the company is not the account's or has no score for the tender."
      )
  )
  .add(
    HttpApiEndpoint.del("unmark", "/companies/:companyId/tenders/:tenderId/feedback")
      .annotate(OpenApi.Summary, "Remove the mark (undo)")
      .setPath(PairPath)
      .addSuccess(Schema.Void, { status: 204 })
      .annotate(
        OpenApi.Description,
        "Deletes the mark and queues a rescore, which gives back the scores without it. Idempotent: 204 also when there is no mark on a scored pair; 404 when the company is not the account's or has no score for the tender."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/companies/:companyId/feedback")
      .annotate(OpenApi.Summary, "The company's marks, latest first")
      .setPath(Schema.Struct({ companyId: Schema.UUID }))
      .addSuccess(Schema.Struct({ data: Schema.Array(FeedbackMark) }))
  )
  .addError(errors(ApiError.NotFound))
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/app")
  .annotate(OpenApi.Description, "The app's feedback on scored tenders (access token, every plan; an extension).")
  .annotate(OpenApi.Title, "Account: feedback") {}
