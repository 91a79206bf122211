import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { Plan } from "../../domain/Plan.js"
import { DateString, DateTimeString } from "../../domain/Timestamps.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { errors } from "../WireErrors.js"

const LocalDate = DateString.annotations({ description: "Calendar date in Europe/Bucharest, `YYYY-MM-DD`" })

export const CreditsSummary = Schema.Struct({
  plan: Plan,
  granted: Schema.Int.annotations({ description: "Credits granted for this period" }),
  remaining: Schema.Int,
  used: Schema.Int.annotations({ description: "Credits charged in this period" }),
  periodStart: LocalDate,
  periodEndsAt: DateTimeString.annotations({ description: "ISO 8601 with the Europe/Bucharest offset" }),
  daily: Schema.Array(Schema.Struct({ date: LocalDate, used: Schema.Int })).annotations({
    description: "Credits charged per day (Europe/Bucharest) from the period's first day to today, zeros included"
  })
})

/** The credit balance for the app's settings screen (access token, Consultant plan), under /api/v1/settings. */
export class CreditsApi extends HttpApiGroup.make("credits")
  .add(
    HttpApiEndpoint.get("summary", "/credits")
      .annotate(OpenApi.Summary, "Credits this month: balance, period end, daily use")
      .addSuccess(Schema.Struct({ data: CreditsSummary }))
      .annotate(
        OpenApi.Description,
        "Read from the credit ledger; reading it costs nothing. Charges are the key API's (tenders, scores, export)."
      )
  )
  .addError(errors(ApiError.PlanUpgradeRequired))
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/settings")
  .annotate(OpenApi.Description, "Consultant plan only; others get 403 PLAN_UPGRADE_REQUIRED.")
  .annotate(OpenApi.Title, "Account: credits") {}
