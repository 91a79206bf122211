import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Layer, TestClock } from "effect"
import { TenantsRepo } from "../../src/infra/accounts/TenantsRepo.js"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { CreditUsage } from "../../src/infra/billing/CreditUsage.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

const consultant = Effect.flatMap(TenantsRepo, (repo) => repo.create({ name: "Consult SRL", plan: "consultant" }))

/** The ledger's own account of the balance: the sum of its deltas for the tenant. */
const ledgerSum = (tenantId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{
        total: number
      }>`SELECT coalesce(sum(delta), 0)::int AS total FROM credit_ledger WHERE tenant_id = ${tenantId}`
  ).pipe(Effect.map((rows) => rows[0]!.total))

describe("credit ledger", () => {
  layer(TestLayer)((it) => {
    it.effect("opens the month with the plan's grant, recorded in the ledger", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-11-22T10:00:00Z"))
        const tenant = yield* consultant
        const ledger = yield* CreditLedger
        const balance = yield* ledger.balance(tenant.id)
        expect(balance).toEqual({ remaining: 1500, periodEndsAt: "2026-12-01T00:00:00+02:00" })
        expect(yield* ledgerSum(tenant.id)).toBe(1500)
      })
    )

    it.effect("an exact charge above the balance fails and changes nothing", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-11-22T10:00:00Z"))
        const tenant = yield* consultant
        const ledger = yield* CreditLedger
        yield* ledger.set({ tenantId: tenant.id, remaining: 1, reason: "test" })
        const result = yield* Effect.either(
          ledger.charge({ tenantId: tenant.id, cost: 2, mode: "exact", reason: "score" })
        )
        expect(Either.isLeft(result) && result.left).toMatchObject({
          _tag: "InsufficientCredits",
          remaining: 1,
          required: 2,
          periodEndsAt: "2026-12-01T00:00:00+02:00"
        })
        expect((yield* ledger.balance(tenant.id)).remaining).toBe(1)
        expect(yield* ledgerSum(tenant.id)).toBe(1)
      })
    )

    it.effect("upTo takes what the balance allows and fails only at zero", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-11-22T10:00:00Z"))
        const tenant = yield* consultant
        const ledger = yield* CreditLedger
        yield* ledger.set({ tenantId: tenant.id, remaining: 7, reason: "test" })
        const first = yield* ledger.charge({ tenantId: tenant.id, cost: 20, mode: "upTo", reason: "list" })
        expect(first).toMatchObject({ charged: 7, remaining: 0 })
        const second = yield* Effect.either(
          ledger.charge({ tenantId: tenant.id, cost: 20, mode: "upTo", reason: "list" })
        )
        expect(Either.isLeft(second)).toBe(true)
      })
    )

    it.effect("concurrent charges never overspend and the ledger always equals the counter", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-11-22T10:00:00Z"))
        const tenant = yield* consultant
        const ledger = yield* CreditLedger
        yield* ledger.set({ tenantId: tenant.id, remaining: 100, reason: "test" })
        const results = yield* Effect.forEach(
          Array.from({ length: 60 }, (_, i) => i),
          (i) =>
            Effect.either(
              ledger.charge({ tenantId: tenant.id, cost: 3, mode: i % 2 === 0 ? "exact" : "upTo", reason: "race" })
            ),
          { concurrency: 30 }
        )
        const charged = results.reduce((sum, r) => sum + (Either.isRight(r) ? r.right.charged : 0), 0)
        expect(charged).toBe(100)
        expect((yield* ledger.balance(tenant.id)).remaining).toBe(0)
        expect(yield* ledgerSum(tenant.id)).toBe(0)
      })
    )

    it.effect("a new calendar month starts from a fresh grant with no carry-over", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-11-30T21:00:00Z"))
        const tenant = yield* consultant
        const ledger = yield* CreditLedger
        yield* ledger.charge({ tenantId: tenant.id, cost: 100, mode: "exact", reason: "before" })
        expect((yield* ledger.balance(tenant.id)).remaining).toBe(1400)
        // 22:00 UTC on 30 November is midnight on 1 December in Bucharest.
        yield* TestClock.setTime(Date.parse("2026-11-30T22:00:00Z"))
        expect(yield* ledger.balance(tenant.id)).toEqual({
          remaining: 1500,
          periodEndsAt: "2027-01-01T00:00:00+02:00"
        })
      })
    )

    it.effect(
      "every ledger entry is dated by the service's clock (grant, adjustment, charge), so a moved clock's day shows the use",
      () =>
        Effect.gen(function* () {
          // Years away from the database's own clock: an entry dated by PostgreSQL's now() falls outside the period.
          const at = Date.parse("2031-03-15T10:00:00Z")
          yield* TestClock.setTime(at)
          const tenant = yield* consultant
          const ledger = yield* CreditLedger
          yield* ledger.set({ tenantId: tenant.id, remaining: 50, reason: "test" })
          // The key API's charge statement (the period is open), the adjustment and the grant that opened the period.
          yield* ledger.charge({ tenantId: tenant.id, cost: 5, mode: "exact", reason: "score" })
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ kind: string; created_at: Date }>`
          SELECT kind, created_at FROM credit_ledger WHERE tenant_id = ${tenant.id} ORDER BY id`
          expect(rows.map((row) => [row.kind, row.created_at.toISOString()])).toEqual([
            ["grant", "2031-03-15T10:00:00.000Z"],
            ["adjustment", "2031-03-15T10:00:00.000Z"],
            ["charge", "2031-03-15T10:00:00.000Z"]
          ])
          const usage = yield* (yield* CreditUsage).summary(tenant.id)
          expect(usage.used).toBe(5)
          expect(usage.daily.at(-1)).toEqual({ date: "2031-03-15", used: 5 })
        })
    )

    it.effect("the ledger is append-only", () =>
      Effect.gen(function* () {
        const tenant = yield* consultant
        yield* (yield* CreditLedger).balance(tenant.id)
        const sql = yield* SqlClient.SqlClient
        const update = yield* Effect.either(sql`UPDATE credit_ledger SET delta = 0 WHERE tenant_id = ${tenant.id}`)
        const remove = yield* Effect.either(sql`DELETE FROM credit_ledger WHERE tenant_id = ${tenant.id}`)
        expect(Either.isLeft(update)).toBe(true)
        expect(Either.isLeft(remove)).toBe(true)
      })
    )

    it.effect("plans without API access get no monthly credits", () =>
      Effect.gen(function* () {
        const tenant = yield* Effect.flatMap(TenantsRepo, (repo) => repo.create({ name: "Mic SRL", plan: "starter" }))
        expect((yield* (yield* CreditLedger).balance(tenant.id)).remaining).toBe(0)
      })
    )
  })
})
