import { statement } from "../db/PreparedStatements.js"

/** What a charge took and left. */
export interface CreditChargeRow {
  readonly charged: number
  readonly remaining: number
}

/** The key API's credit charge, a named prepared statement (the measured hot path, db/PreparedStatements). */
export const CreditStatements = {
  /**
   * A charge in one statement (one implicit transaction): the conditional update of the period's
   * counter and its ledger row. It finds nothing when the period is not open yet or the balance is
   * below the least that allows the charge (`cost` for an exact charge, 1 for up-to). Its ledger row is
   * dated `at`, the service's clock (as every entry: the usage by day is counted on that clock).
   */
  creditCharge: statement<
    readonly [tenantId: string, periodStart: string, cost: number, leastBalance: number, reason: string, at: Date],
    CreditChargeRow
  >(
    "tss_credit_charge",
    `
  WITH charged AS (
    UPDATE credit_periods cp
    SET remaining = cp.remaining - least(cp.remaining, $3::int)
    FROM (SELECT remaining AS before FROM credit_periods WHERE tenant_id = $1 AND period_start = $2 FOR UPDATE) old
    WHERE cp.tenant_id = $1 AND cp.period_start = $2 AND cp.remaining >= $4::int
    RETURNING old.before - cp.remaining AS charged, cp.remaining
  ), entry AS (
    INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
    SELECT $1, $2, -charged, 'charge', $5, remaining, $6::timestamptz FROM charged
  )
  SELECT charged, remaining FROM charged`
  )
} as const
