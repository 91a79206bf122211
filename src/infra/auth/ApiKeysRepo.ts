import { timingSafeEqual } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { generateApiKey, hashApiKey, MAX_ACTIVE_API_KEYS, maskApiKey } from "../../domain/ApiKey.js"
import { ApiKeyLimitExceeded, ApiKeyNotFound, type TenantNotFound } from "../../domain/Errors.js"
import type { Plan } from "../../domain/Plan.js"
import { makeRunPrepared } from "../db/PreparedStatements.js"
import { lockTenant } from "../db/TenantLock.js"
import { ApiKeyStatements } from "./ApiKeyStatements.js"

export interface ApiKeySummary {
  readonly id: string
  readonly name: string
  /** e.g. `svc_1a2b3c4d…` */
  readonly masked: string
  readonly createdAt: Date
  readonly revokedAt: Date | null
}

/** What a presented key resolves to; revoked keys resolve too, so callers can say "revoked". */
export interface ApiKeyOwner {
  readonly keyId: string
  readonly tenantId: string
  readonly plan: Plan
  readonly revoked: boolean
}

export class ApiKeysRepo extends Context.Tag("ApiKeysRepo")<
  ApiKeysRepo,
  {
    /** Creates a key, at most MAX_ACTIVE_API_KEYS active per tenant even under concurrency. */
    readonly create: (input: {
      readonly tenantId: string
      readonly name: string
    }) => Effect.Effect<{ readonly key: string; readonly summary: ApiKeySummary }, ApiKeyLimitExceeded | TenantNotFound>
    /** Revokes a key (of the tenant, when given). Revoking a revoked key is a no-op success. */
    readonly revoke: (input: {
      readonly keyId: string
      readonly tenantId?: string
    }) => Effect.Effect<ApiKeySummary, ApiKeyNotFound>
    readonly list: (tenantId: string) => Effect.Effect<ReadonlyArray<ApiKeySummary>>
    /** Looks the SHA-256 of the presented key up; a read per request, so revocation is immediate. */
    readonly findOwner: (presentedKey: string) => Effect.Effect<Option.Option<ApiKeyOwner>>
  }
>() {}

interface KeyRow {
  readonly id: string
  readonly name: string
  readonly display_prefix: string
  readonly created_at: Date
  readonly revoked_at: Date | null
}

const toSummary = (row: KeyRow): ApiKeySummary => ({
  id: row.id,
  name: row.name,
  masked: row.display_prefix,
  createdAt: row.created_at,
  revokedAt: row.revoked_at
})

export const ApiKeysRepoLive = Layer.effect(
  ApiKeysRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const runPrepared = yield* makeRunPrepared

    const create = (input: { readonly tenantId: string; readonly name: string }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* lockTenant(sql, input.tenantId)
            const [{ active }] = yield* sql<{ active: number }>`
            SELECT count(*)::int AS active FROM api_keys WHERE tenant_id = ${input.tenantId} AND revoked_at IS NULL`
            if (active >= MAX_ACTIVE_API_KEYS) return yield* new ApiKeyLimitExceeded({ limit: MAX_ACTIVE_API_KEYS })
            const key = generateApiKey()
            const [row] = yield* sql<KeyRow>`
            INSERT INTO api_keys (tenant_id, name, key_hash, display_prefix)
            VALUES (${input.tenantId}, ${input.name}, ${hashApiKey(key)}, ${maskApiKey(key)})
            RETURNING id, name, display_prefix, created_at, revoked_at`
            return { key, summary: toSummary(row!) }
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    const revoke = (input: { readonly keyId: string; readonly tenantId?: string }) =>
      sql<KeyRow>`
        UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
        WHERE id = ${input.keyId} ${input.tenantId === undefined ? sql`` : sql`AND tenant_id = ${input.tenantId}`}
        RETURNING id, name, display_prefix, created_at, revoked_at`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows[0] ? Effect.succeed(toSummary(rows[0])) : Effect.fail(new ApiKeyNotFound({ keyId: input.keyId }))
        )
      )

    const list = (tenantId: string) =>
      sql<KeyRow>`
        SELECT id, name, display_prefix, created_at, revoked_at FROM api_keys
        WHERE tenant_id = ${tenantId} ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toSummary)),
        Effect.orDie
      )

    const findOwner = (presentedKey: string) => {
      const presentedHash = hashApiKey(presentedKey)
      return runPrepared(ApiKeyStatements.apiKeyOwner, [presentedHash]).pipe(
        Effect.map((rows) =>
          Option.map(
            // The index finds the row; the final equality is checked in constant time.
            Option.filter(Option.fromNullable(rows[0]), (row) => timingSafeEqual(row.key_hash, presentedHash)),
            (row) => ({
              keyId: row.id,
              tenantId: row.tenant_id,
              plan: row.plan,
              revoked: row.revoked
            })
          )
        )
      )
    }

    return { create, revoke, list, findOwner }
  })
)
