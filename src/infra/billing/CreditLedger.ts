import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { type CreditPeriod, creditPeriodAt } from "../../domain/CreditPeriod.js"
import { InsufficientCredits, TenantNotFound } from "../../domain/Errors.js"
import { Plan, planRules } from "../../domain/Plan.js"
import { makeRunPrepared, runOnSqlClient } from "../db/PreparedStatements.js"
import { Metrics } from "../metrics/Metrics.js"
import { CreditStatements } from "./CreditStatements.js"

export interface CreditBalance {
  readonly remaining: number
  /** ISO 8601 with the Europe/Bucharest offset. */
  readonly periodEndsAt: string
}

export interface Charge extends CreditBalance {
  /** Credits actually taken; for `upTo` it may be less than asked. */
  readonly charged: number
}

/**
 * `exact`: take `cost` or fail. `upTo`: take as much of `cost` as the balance allows (list
 * endpoints then serve that many items), failing only when it allows nothing.
 */
export type ChargeMode = "exact" | "upTo"

export interface ChargeRequest {
  readonly tenantId: string
  readonly cost: number
  readonly mode: ChargeMode
  /** Written to the ledger row. */
  readonly reason: string
}

/** Credits held for work that is charged when it completes (a report). */
export interface CreditHold extends CreditBalance {
  /** The period the hold was taken from, where it is settled. */
  readonly periodStart: string
}

/** A counter row's balance. */
const RemainingRow = Schema.Struct({ remaining: Schema.Number })

/** A tenant and one of its periods (`YYYY-MM-01`). */
const PeriodKey = Schema.Struct({ tenantId: Schema.String, periodStart: Schema.String })

export class CreditLedger extends Context.Tag("CreditLedger")<
  CreditLedger,
  {
    readonly balance: (tenantId: string) => Effect.Effect<CreditBalance, TenantNotFound>
    readonly charge: (input: ChargeRequest) => Effect.Effect<Charge, InsufficientCredits | TenantNotFound>
    /**
     * Holds `amount` credits in the caller's transaction (a conditional update, so concurrent holds
     * never take more than the balance); fails with the balance when it is short. The hold is
     * settled later in the period it was taken from.
     */
    readonly hold: (input: {
      readonly tenantId: string
      readonly amount: number
      readonly reason: string
    }) => Effect.Effect<CreditHold, InsufficientCredits | TenantNotFound>
    /**
     * Settles a hold in the caller's transaction: `charge` turns it into a charge (a release and a
     * charge, the balance unchanged), otherwise the credits return to the balance. Returns the
     * credits charged (0 for a release), for the caller to count (`countCharged`) once its
     * transaction has committed.
     */
    readonly settleHold: (input: {
      readonly tenantId: string
      readonly periodStart: string
      readonly amount: number
      readonly outcome:
        | { readonly _tag: "charge"; readonly releaseReason: string; readonly chargeReason: string }
        | { readonly _tag: "release"; readonly releaseReason: string }
    }) => Effect.Effect<number>
    /**
     * Adds credits charged in a caller's transaction (`settleHold`) to `credits_charged_total`: call it
     * after that transaction committed, so a charge rolled back is never counted.
     */
    readonly countCharged: (credits: number) => Effect.Effect<void>
    /** An ops adjustment: sets the current period's balance, recording the difference. */
    readonly set: (input: {
      readonly tenantId: string
      readonly remaining: number
      readonly reason: string
    }) => Effect.Effect<CreditBalance, TenantNotFound>
  }
>() {}

/**
 * One counter row per (tenant, month) and an append-only ledger, always written together in one
 * transaction. The counter only moves through conditional updates, so it never goes negative and
 * concurrent charges can never take the same credit twice.
 */
export const CreditLedgerLive = Layer.effect(
  CreditLedger,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const runPrepared = yield* makeRunPrepared

    const planOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ plan: Plan }),
      execute: (tenantId) => sql`SELECT plan FROM tenants WHERE id = ${tenantId}`
    })

    const remainingOf = SqlSchema.findOne({
      Request: PeriodKey,
      Result: RemainingRow,
      execute: (key) => sql`
        SELECT remaining FROM credit_periods WHERE tenant_id = ${key.tenantId} AND period_start = ${key.periodStart}`
    })

    /** The period's balance, locked for an adjustment (the period is open: the row exists). */
    const lockRemaining = SqlSchema.single({
      Request: PeriodKey,
      Result: RemainingRow,
      execute: (key) => sql`
        SELECT remaining FROM credit_periods
        WHERE tenant_id = ${key.tenantId} AND period_start = ${key.periodStart} FOR UPDATE`
    })

    /** Takes `amount` when the balance allows it; none otherwise. */
    const takeHold = SqlSchema.findOne({
      Request: Schema.Struct({ ...PeriodKey.fields, amount: Schema.Number }),
      Result: RemainingRow,
      execute: (input) => sql`
        UPDATE credit_periods SET remaining = remaining - ${input.amount}
        WHERE tenant_id = ${input.tenantId} AND period_start = ${input.periodStart} AND remaining >= ${input.amount}
        RETURNING remaining`
    })

    /** Gives `amount` back (0 for a hold turned into a charge); none when the period has no row. */
    const giveBack = SqlSchema.findOne({
      Request: Schema.Struct({ ...PeriodKey.fields, amount: Schema.Number }),
      Result: RemainingRow,
      execute: (input) => sql`
        UPDATE credit_periods SET remaining = remaining + ${input.amount}
        WHERE tenant_id = ${input.tenantId} AND period_start = ${input.periodStart}
        RETURNING remaining`
    })

    /** The current period's row, opened with the plan's monthly grant on first use (the monthly reset). */
    const openPeriod = (tenantId: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const period = creditPeriodAt(now)
        const at = new Date(now)
        const tenant = yield* planOf(tenantId)
        if (Option.isNone(tenant)) return yield* new TenantNotFound({ tenantId })
        const granted = planRules[tenant.value.plan].monthlyCredits
        const inserted = yield* sql`
          INSERT INTO credit_periods (tenant_id, period_start, period_ends_at, granted, remaining)
          VALUES (${tenantId}, ${period.start}, ${period.endsAt}, ${granted}, ${granted})
          ON CONFLICT (tenant_id, period_start) DO NOTHING
          RETURNING tenant_id`
        if (inserted.length > 0) {
          yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
            VALUES (${tenantId}, ${period.start}, ${granted}, 'grant', 'monthly grant', ${granted}, ${at})`
        }
        return period
      })

    const balanceOf = (tenantId: string, period: CreditPeriod) =>
      remainingOf({ tenantId, periodStart: period.start }).pipe(
        Effect.map((row) => ({
          remaining: Option.match(row, { onNone: () => 0, onSome: ({ remaining }) => remaining }),
          periodEndsAt: period.endsAtText
        }))
      )

    const balance = (tenantId: string) =>
      sql.withTransaction(Effect.flatMap(openPeriod(tenantId), (period) => balanceOf(tenantId, period)))

    /** The charge statement's parameters: the least balance that allows it is `cost` (exact) or 1 (up to). */
    const chargeParams = (input: ChargeRequest, period: CreditPeriod, at: number) =>
      [
        input.tenantId,
        period.start,
        input.cost,
        input.mode === "exact" ? input.cost : 1,
        input.reason,
        new Date(at)
      ] as const

    /** The common case, one statement on the pool: the period is open and the balance allows the charge. */
    const chargeOpenPeriod = (input: ChargeRequest) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const period = creditPeriodAt(now)
        // Measured hot path (`npm run bench -- api`): the prepared charge's rows are typed, not decoded.
        const [row] = yield* runPrepared(CreditStatements.creditCharge, chargeParams(input, period, now))
        return Option.map(Option.fromNullable(row), (charged) => ({ ...charged, periodEndsAt: period.endsAtText }))
      })

    /** Everything else, in one transaction: opens the period if needed, then charges or fails with the balance. */
    const chargeInTransaction = (input: ChargeRequest) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const period = yield* openPeriod(input.tenantId)
            if (input.cost <= 0) return { charged: 0, ...(yield* balanceOf(input.tenantId, period)) }
            // The same charge statement, on the transaction's connection (typed like the hot path's).
            const [row] = yield* runOnSqlClient(
              sql,
              CreditStatements.creditCharge,
              chargeParams(input, period, yield* Clock.currentTimeMillis)
            )
            if (!row) {
              const { remaining } = yield* balanceOf(input.tenantId, period)
              return yield* new InsufficientCredits({
                remaining,
                required: input.cost,
                periodEndsAt: period.endsAtText
              })
            }
            return { charged: row.charged, remaining: row.remaining, periodEndsAt: period.endsAtText }
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    const metrics = yield* Metrics
    // Counted once the charge committed: each path is one statement, or a transaction of its own
    // (called inside a caller's transaction, it would be counted before that one's commit).
    const charge = (input: ChargeRequest) =>
      (input.cost <= 0
        ? chargeInTransaction(input)
        : Effect.flatMap(
            chargeOpenPeriod(input),
            Option.match({ onSome: Effect.succeed, onNone: () => chargeInTransaction(input) })
          )
      ).pipe(Effect.tap((charged) => metrics.creditsCharged.inc(charged.charged)))

    const set = (input: { readonly tenantId: string; readonly remaining: number; readonly reason: string }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const period = yield* openPeriod(input.tenantId)
            const old = yield* lockRemaining({ tenantId: input.tenantId, periodStart: period.start })
            const at = new Date(yield* Clock.currentTimeMillis)
            yield* sql`
            UPDATE credit_periods SET remaining = ${input.remaining}
            WHERE tenant_id = ${input.tenantId} AND period_start = ${period.start}`
            yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
            VALUES (${input.tenantId}, ${period.start}, ${input.remaining - old.remaining}, 'adjustment',
                    ${input.reason}, ${input.remaining}, ${at})`
            return { remaining: input.remaining, periodEndsAt: period.endsAtText }
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die, NoSuchElementException: Effect.die }))

    const hold = (input: { readonly tenantId: string; readonly amount: number; readonly reason: string }) =>
      Effect.gen(function* () {
        const period = yield* openPeriod(input.tenantId)
        const at = new Date(yield* Clock.currentTimeMillis)
        const taken = yield* takeHold({ tenantId: input.tenantId, periodStart: period.start, amount: input.amount })
        if (Option.isNone(taken)) {
          const { remaining } = yield* balanceOf(input.tenantId, period)
          return yield* new InsufficientCredits({ remaining, required: input.amount, periodEndsAt: period.endsAtText })
        }
        const held = taken.value
        yield* sql`
          INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
          VALUES (${input.tenantId}, ${period.start}, ${-input.amount}, 'hold', ${input.reason}, ${held.remaining}, ${at})`
        return { remaining: held.remaining, periodEndsAt: period.endsAtText, periodStart: period.start }
      }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    const settleHold: CreditLedger["Type"]["settleHold"] = ({ tenantId, periodStart, amount, outcome }) =>
      Effect.gen(function* () {
        if (amount <= 0) return 0
        const charge = outcome._tag === "charge"
        const updated = yield* giveBack({ tenantId, periodStart, amount: charge ? 0 : amount })
        if (Option.isNone(updated)) return 0
        const period = updated.value
        const at = new Date(yield* Clock.currentTimeMillis)
        if (outcome._tag === "charge") {
          yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at) VALUES
              (${tenantId}, ${periodStart}, ${amount}, 'release', ${outcome.releaseReason}, ${period.remaining + amount}, ${at}),
              (${tenantId}, ${periodStart}, ${-amount}, 'charge', ${outcome.chargeReason}, ${period.remaining}, ${at})`
          return amount
        }
        yield* sql`
          INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
          VALUES (${tenantId}, ${periodStart}, ${amount}, 'release', ${outcome.releaseReason}, ${period.remaining}, ${at})`
        return 0
      }).pipe(Effect.orDie)

    return {
      balance: (tenantId) => balance(tenantId).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die })),
      charge,
      hold,
      settleHold,
      countCharged: (credits) => Effect.sync(() => metrics.creditsCharged.inc(credits)),
      set
    }
  })
)
