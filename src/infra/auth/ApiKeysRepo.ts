import { timingSafeEqual } from "node:crypto"
import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
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

const KeyRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_prefix: Schema.String,
  created_at: Schema.DateFromSelf,
  revoked_at: Schema.NullOr(Schema.DateFromSelf)
})

const toSummary = (row: typeof KeyRow.Type): ApiKeySummary => ({
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

    const countActive = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ active: Schema.Number }),
      execute: (tenantId) => sql`
        SELECT count(*)::int AS active FROM api_keys WHERE tenant_id = ${tenantId} AND revoked_at IS NULL`
    })
    const insertKey = SqlSchema.single({
      Request: Schema.Struct({
        tenantId: Schema.String,
        name: Schema.String,
        keyHash: Schema.Uint8ArrayFromSelf,
        displayPrefix: Schema.String
      }),
      Result: KeyRow,
      execute: (input) => sql`
        INSERT INTO api_keys (tenant_id, name, key_hash, display_prefix)
        VALUES (${input.tenantId}, ${input.name}, ${input.keyHash}, ${input.displayPrefix})
        RETURNING id, name, display_prefix, created_at, revoked_at`
    })
    const revokeKey = SqlSchema.findOne({
      Request: Schema.Struct({ keyId: Schema.String, tenantId: Schema.optionalWith(Schema.String, { exact: true }) }),
      Result: KeyRow,
      execute: (input) => sql`
        UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
        WHERE id = ${input.keyId} ${input.tenantId === undefined ? sql`` : sql`AND tenant_id = ${input.tenantId}`}
        RETURNING id, name, display_prefix, created_at, revoked_at`
    })
    const keysOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: KeyRow,
      execute: (tenantId) => sql`
        SELECT id, name, display_prefix, created_at, revoked_at FROM api_keys
        WHERE tenant_id = ${tenantId} ORDER BY created_at, id`
    })

    const create = (input: { readonly tenantId: string; readonly name: string }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* lockTenant(sql, input.tenantId)
            const { active } = yield* countActive(input.tenantId)
            if (active >= MAX_ACTIVE_API_KEYS) return yield* new ApiKeyLimitExceeded({ limit: MAX_ACTIVE_API_KEYS })
            const key = generateApiKey()
            const row = yield* insertKey({
              tenantId: input.tenantId,
              name: input.name,
              keyHash: hashApiKey(key),
              displayPrefix: maskApiKey(key)
            })
            return { key, summary: toSummary(row) }
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die, NoSuchElementException: Effect.die }))

    const revoke = (input: { readonly keyId: string; readonly tenantId?: string }) =>
      revokeKey(input).pipe(
        Effect.orDie,
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new ApiKeyNotFound({ keyId: input.keyId })),
            onSome: (row) => Effect.succeed(toSummary(row))
          })
        )
      )

    const list = (tenantId: string) =>
      keysOf(tenantId).pipe(
        Effect.map((rows) => rows.map(toSummary)),
        Effect.orDie
      )

    const findOwner = (presentedKey: string) => {
      const presentedHash = hashApiKey(presentedKey)
      // The measured hot path (db/PreparedStatements): a prepared statement, its rows typed, not decoded by Schema.
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
