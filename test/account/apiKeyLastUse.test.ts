import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Clock, Duration, Effect, TestClock, TestServices } from "effect"
import { TenantsRepo } from "../../src/infra/accounts/TenantsRepo.js"
import { ApiKeysRepo, KEY_USE_PRECISION } from "../../src/infra/auth/ApiKeysRepo.js"
import { TestInfraLive } from "../support/TestServer.js"

const newKey = Effect.gen(function* () {
  const tenant = yield* (yield* TenantsRepo).create({ name: "Last Use Tenant", plan: "consultant" })
  const { summary } = yield* (yield* ApiKeysRepo).create({ tenantId: tenant.id, name: "integration" })
  return { keyId: summary.id, tenantId: tenant.id }
}).pipe(Effect.orDie)

const lastUsedAt = (keyId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ at: Date | null }>`SELECT last_used_at AS at FROM api_keys WHERE id = ${keyId}`
  ).pipe(
    Effect.map((rows) => rows[0]?.at?.getTime() ?? null),
    Effect.orDie
  )

/** Real time for the background write to land: noteUse returns before it. */
const settle = TestServices.provideLive(Effect.sleep("300 millis"))

layer(TestInfraLive(), { timeout: 60_000 })("an API key's last use (TestClock)", (it) => {
  it.effect("is written at the first use, then at most once per KEY_USE_PRECISION, in the background", () =>
    Effect.gen(function* () {
      const keys = yield* ApiKeysRepo
      const { keyId, tenantId } = yield* newKey
      expect(yield* lastUsedAt(keyId)).toBeNull()
      expect((yield* keys.list(tenantId))[0]!.lastUsedAt).toBeNull()

      yield* TestClock.adjust("10 days")
      const first = Duration.toMillis("10 days")
      yield* keys.noteUse(keyId)
      yield* settle
      expect(yield* lastUsedAt(keyId)).toBe(first)
      expect((yield* keys.list(tenantId))[0]!.lastUsedAt?.getTime()).toBe(first)

      // Within the minute: no write (the stored time stays the first use's).
      yield* TestClock.adjust(Duration.subtract(KEY_USE_PRECISION, "1 millis"))
      yield* keys.noteUse(keyId)
      yield* settle
      expect(yield* lastUsedAt(keyId)).toBe(first)

      // A minute after the write: written again.
      yield* TestClock.adjust("1 millis")
      yield* keys.noteUse(keyId)
      yield* settle
      expect(yield* lastUsedAt(keyId)).toBe(first + Duration.toMillis(KEY_USE_PRECISION))
    })
  )

  it.effect("never moves back: a later use written by another API process stays", () =>
    Effect.gen(function* () {
      const keys = yield* ApiKeysRepo
      const sql = yield* SqlClient.SqlClient
      const { keyId } = yield* newKey
      const later = new Date("2100-01-01T00:00:00Z")
      yield* sql`UPDATE api_keys SET last_used_at = ${later} WHERE id = ${keyId}`.pipe(Effect.orDie)
      yield* TestClock.adjust("20 days")
      yield* keys.noteUse(keyId)
      yield* settle
      expect(yield* lastUsedAt(keyId)).toBe(later.getTime())
    })
  )

  it.effect("a revocation is stamped with the service's clock", () =>
    Effect.gen(function* () {
      const keys = yield* ApiKeysRepo
      const { keyId, tenantId } = yield* newKey
      yield* TestClock.adjust("30 days")
      const revoked = yield* keys.revoke({ keyId, tenantId })
      expect(revoked.revokedAt?.getTime()).toBe(yield* Clock.currentTimeMillis)
    })
  )
})
