import { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import type { Charge, ChargeMode, CreditBalance } from "../../infra/billing/CreditLedger.js"
import { CreditLedger } from "../../infra/billing/CreditLedger.js"
import { decorateResponse } from "../ResponseDecorations.js"

/** The `meta.credits` block of every key-authenticated JSON response (spec 2.8). */
export interface CreditsMeta {
  readonly cost: number
  readonly remaining: number
  readonly period_ends_at: string
}

export const creditsMeta = (charge: Charge): CreditsMeta => ({
  cost: charge.charged,
  remaining: charge.remaining,
  period_ends_at: charge.periodEndsAt
})

/**
 * What one request has cost so far. The auth middleware creates it per request and registers a
 * pre-response handler that turns it into the `X-API-Credits-Cost` / `X-API-Credits-Remaining`
 * headers of whatever response leaves (success, 402, 404, 429, validation error). A request
 * that failed before charging reports cost 0 and the balance looked up at that moment.
 */
export class CreditsReport {
  private known: { readonly cost: number; readonly remaining: number } | undefined

  record(cost: number, balance: CreditBalance) {
    this.known = { cost, remaining: balance.remaining }
  }

  /** Registers the header writer for the current request. */
  static install(report: CreditsReport, tenantId: string, ledger: CreditLedger["Type"]) {
    return decorateResponse((response) => {
      const write = (cost: number, remaining: number) =>
        HttpServerResponse.setHeaders(response, {
          "x-api-credits-cost": String(cost),
          "x-api-credits-remaining": String(remaining)
        })
      if (report.known) return write(report.known.cost, report.known.remaining)
      return ledger.balance(tenantId).pipe(
        Effect.map((balance) => write(0, balance.remaining)),
        // Headers are a courtesy on an already failed request: whatever the lookup ends with, the
        // response leaves without them. Defects too: the transaction dies when its ROLLBACK fails on
        // a lost connection (PostgreSQL restarting), and a pre-response handler that dies leaves the
        // request unanswered (the platform never writes it; test/hardening/faults.test.ts).
        Effect.catchAllCause(() => Effect.succeed(response))
      )
    })
  }
}

/**
 * Charges the tenant in one ledger transaction. `upTo` takes what the balance allows (at least 1)
 * and reports how much it took; `exact` takes all or nothing. A balance that pays for nothing
 * fails with the 402 body of spec 7 (and cost 0 in the headers).
 */
export const chargeCredits = (input: {
  readonly tenantId: string
  readonly report: CreditsReport
  readonly cost: number
  readonly mode: ChargeMode
  readonly reason: string
}) =>
  Effect.flatMap(CreditLedger, (ledger) =>
    ledger.charge({ tenantId: input.tenantId, cost: input.cost, mode: input.mode, reason: input.reason })
  ).pipe(
    Effect.tap((charge) => Effect.sync(() => input.report.record(charge.charged, charge))),
    Effect.catchTags({
      InsufficientCredits: (error) => {
        input.report.record(0, { remaining: error.remaining, periodEndsAt: error.periodEndsAt })
        return Effect.fail(
          new ApiError.ApiCreditsExhausted({
            message: `This request costs ${error.required} credits; ${error.remaining} remain until ${error.periodEndsAt}`,
            credits_remaining: error.remaining,
            credits_required: error.required,
            period_ends_at: error.periodEndsAt
          })
        )
      },
      // The caller's tenant was just authenticated; its disappearance mid-request is a defect.
      TenantNotFound: Effect.die
    })
  )
