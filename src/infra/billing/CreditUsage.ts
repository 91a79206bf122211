import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { bucharestDate } from "../../domain/BucharestTime.js"
import { creditPeriodAt } from "../../domain/CreditPeriod.js"
import type { TenantNotFound } from "../../domain/Errors.js"
import { CreditLedger } from "./CreditLedger.js"

export interface CreditUsageSummary {
  readonly granted: number
  readonly remaining: number
  /** Credits charged in the period (charges only; ops adjustments are not use). */
  readonly used: number
  /** `YYYY-MM-01`. */
  readonly periodStart: string
  readonly periodEndsAt: string
  /** Each day (Europe/Bucharest) from the period's first day to today, with the credits charged on it. */
  readonly daily: ReadonlyArray<{ readonly date: string; readonly used: number }>
}

/**
 * The current credit period as the settings screen shows it, read from the ledger. Reading opens the
 * period if this is its first use (as any charge would), and charges nothing.
 */
export class CreditUsage extends Context.Tag("CreditUsage")<
  CreditUsage,
  { readonly summary: (tenantId: string) => Effect.Effect<CreditUsageSummary, TenantNotFound> }
>() {}

export const CreditUsageLive = Layer.effect(
  CreditUsage,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ledger = yield* CreditLedger

    const grantedIn = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, periodStart: Schema.String }),
      Result: Schema.Struct({ granted: Schema.Number }),
      execute: (input) => sql`
        SELECT granted FROM credit_periods WHERE tenant_id = ${input.tenantId} AND period_start = ${input.periodStart}`
    })
    /** Each day from the period's first to `today` (Europe/Bucharest) with the credits charged on it. */
    const dailyUse = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, periodStart: Schema.String, today: Schema.String }),
      Result: Schema.Struct({ date: Schema.String, used: Schema.Number }),
      execute: (input) => sql`
        SELECT to_char(d, 'YYYY-MM-DD') AS date, coalesce(u.used, 0)::int AS used
        FROM generate_series(${input.periodStart}::date, ${input.today}::date, interval '1 day') AS d
        LEFT JOIN (
          SELECT (created_at AT TIME ZONE 'Europe/Bucharest')::date AS day, sum(-delta) AS used
          FROM credit_ledger
          WHERE tenant_id = ${input.tenantId} AND period_start = ${input.periodStart} AND kind = 'charge'
          GROUP BY 1
        ) u ON u.day = d::date
        ORDER BY d`
    })

    const summary = (tenantId: string) =>
      Effect.gen(function* () {
        const balance = yield* ledger.balance(tenantId)
        const now = yield* Clock.currentTimeMillis
        const period = creditPeriodAt(now)
        const today = bucharestDate(now)
        const granted = yield* grantedIn({ tenantId, periodStart: period.start })
        const daily = yield* dailyUse({ tenantId, periodStart: period.start, today })
        return {
          granted: Option.match(granted, { onNone: () => 0, onSome: (row) => row.granted }),
          remaining: balance.remaining,
          used: daily.reduce((sum, day) => sum + day.used, 0),
          periodStart: period.start,
          periodEndsAt: balance.periodEndsAt,
          daily
        }
      }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    return { summary }
  })
)
