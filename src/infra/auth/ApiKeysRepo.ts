import { timingSafeEqual } from "node:crypto"
import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Duration, Effect, FiberSet, Layer, Option, Schema } from "effect"
import { generateApiKey, hashApiKey, MAX_ACTIVE_API_KEYS, maskApiKey } from "../../domain/ApiKey.js"
import { ApiKeyLimitExceeded, ApiKeyNotFound, type TenantNotFound } from "../../domain/Errors.js"
import type { Plan } from "../../domain/Plan.js"
import { clockNow } from "../db/ClockNow.js"
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
  /** When the key last authenticated a request, to the minute (KEY_USE_PRECISION); null: never. */
  readonly lastUsedAt: Date | null
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
    /**
     * Notes that the key authenticated a request: written at most once per KEY_USE_PRECISION per key
     * in this process, in the background, so the request neither waits for it nor fails with it.
     */
    readonly noteUse: (keyId: string) => Effect.Effect<void>
  }
>() {}

const KeyRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_prefix: Schema.String,
  created_at: Schema.DateFromSelf,
  revoked_at: Schema.NullOr(Schema.DateFromSelf),
  last_used_at: Schema.NullOr(Schema.DateFromSelf)
})

const toSummary = (row: typeof KeyRow.Type): ApiKeySummary => ({
  id: row.id,
  name: row.name,
  masked: row.display_prefix,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  lastUsedAt: row.last_used_at
})

/**
 * How fresh a key's last use is: a key used all day is written once a minute per API process, not
 * once per request (the key API's hot path stays a single read).
 */
export const KEY_USE_PRECISION = Duration.minutes(1)

export const ApiKeysRepoLive = Layer.scoped(
  ApiKeysRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const runPrepared = yield* makeRunPrepared
    // The background writes of noteUse, interrupted when the layer closes (a last use lost then is a minute's).
    const usageWrites = yield* FiberSet.make()
    const lastNoted = new Map<string, number>()
    const keyColumns = sql.literal("id, name, display_prefix, created_at, revoked_at, last_used_at")

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
        RETURNING ${keyColumns}`
    })
    const revokeKey = SqlSchema.findOne({
      Request: Schema.Struct({
        keyId: Schema.String,
        tenantId: Schema.optionalWith(Schema.String, { exact: true }),
        now: Schema.DateFromSelf
      }),
      Result: KeyRow,
      execute: (input) => sql`
        UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${input.now})
        WHERE id = ${input.keyId} ${input.tenantId === undefined ? sql`` : sql`AND tenant_id = ${input.tenantId}`}
        RETURNING ${keyColumns}`
    })
    const keysOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: KeyRow,
      execute: (tenantId) => sql`
        SELECT ${keyColumns} FROM api_keys
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
      Effect.flatMap(clockNow, (now) => revokeKey({ ...input, now })).pipe(
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

    const precision = Duration.toMillis(KEY_USE_PRECISION)
    const recordUse = (keyId: string, now: number) =>
      // greatest(): another API process may have written a later use already.
      sql`UPDATE api_keys SET last_used_at = greatest(last_used_at, ${new Date(now)}) WHERE id = ${keyId}`.pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("An API key's last use could not be recorded; the next request tries again", error).pipe(
            Effect.andThen(Effect.sync(() => lastNoted.delete(keyId)))
          )
        )
      )
    // On every key-API request: a clock read and a map lookup (~0.5 µs; the write once a minute).
    const noteUse = (keyId: string) =>
      Effect.clockWith((clock) => {
        const now = clock.unsafeCurrentTimeMillis()
        const last = lastNoted.get(keyId)
        if (last !== undefined && now - last < precision) return Effect.void
        lastNoted.set(keyId, now)
        return Effect.asVoid(FiberSet.run(usageWrites, recordUse(keyId, now)))
      })

    return { create, revoke, list, findOwner, noteUse }
  })
)
