import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { clockNow } from "../db/ClockNow.js"

/** A user's daily digest: on or off, and the Bucharest hour (0-23) it goes out at. */
export interface DigestSettings {
  readonly enabled: boolean
  readonly hour: number
}

/**
 * The digest columns of `users` (migrations 0016, 0047); the hour is kept while the digest is off.
 * Turning it on (from off) stamps `digest_enabled_at` (Effect's Clock): the first digest after a
 * pause looks back from there, not from the last one before it (DailyDigest).
 */
export class DigestSettingsRepo extends Context.Tag("DigestSettingsRepo")<
  DigestSettingsRepo,
  {
    readonly get: (userId: string) => Effect.Effect<DigestSettings>
    /** Turns the digest on or off; an absent hour keeps the stored one (8 until a user picks one). */
    readonly set: (
      userId: string,
      change: { readonly enabled: boolean; readonly hour?: number }
    ) => Effect.Effect<DigestSettings>
  }
>() {}

const SettingsRow = Schema.Struct({ digest_enabled: Schema.Boolean, digest_hour: Schema.Number })
const toSettings = (row: typeof SettingsRow.Type): DigestSettings => ({
  enabled: row.digest_enabled,
  hour: row.digest_hour
})

export const DigestSettingsRepoLive = Layer.effect(
  DigestSettingsRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const find = SqlSchema.single({
      Request: Schema.String,
      Result: SettingsRow,
      execute: (userId) => sql`SELECT digest_enabled, digest_hour FROM users WHERE id = ${userId}`
    })
    const update = SqlSchema.single({
      Request: Schema.Struct({
        userId: Schema.String,
        enabled: Schema.Boolean,
        hour: Schema.NullOr(Schema.Number),
        now: Schema.DateFromSelf
      }),
      Result: SettingsRow,
      execute: (input) => sql`
        UPDATE users SET digest_enabled = ${input.enabled}, digest_hour = coalesce(${input.hour}::smallint, digest_hour),
          digest_enabled_at = CASE WHEN ${input.enabled}::boolean AND NOT digest_enabled THEN ${input.now}::timestamptz ELSE digest_enabled_at END
        WHERE id = ${input.userId}
        RETURNING digest_enabled, digest_hour`
    })
    // The user of a live session exists: a missing row is a defect, not a 404.
    return {
      get: (userId) => find(userId).pipe(Effect.map(toSettings), Effect.orDie),
      set: (userId, change) =>
        clockNow.pipe(
          Effect.flatMap((now) => update({ userId, enabled: change.enabled, hour: change.hour ?? null, now })),
          Effect.map(toSettings),
          Effect.orDie
        )
    }
  })
)
