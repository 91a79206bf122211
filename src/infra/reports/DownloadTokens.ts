import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import {
  DOWNLOAD_TOKEN_MAX_DOWNLOADS,
  DOWNLOAD_TOKEN_PATTERN,
  downloadTokenExpiry,
  generateDownloadToken,
  hashDownloadToken
} from "../../domain/reports/DownloadToken.js"

/**
 * Download tokens of finished reports: issued fresh on every download-URL request, stored as
 * SHA-256 only. Expiry is written and compared from Effect's Clock (TestClock in tests); each
 * download takes one use in a single conditional UPDATE, so concurrent downloads can never exceed 3.
 */
export class DownloadTokens extends Context.Tag("DownloadTokens")<
  DownloadTokens,
  {
    readonly issue: (jobId: string) => Effect.Effect<{ readonly token: string; readonly expiresAt: Date }>
    /** Takes one download of the token: the job it opens, or none (unknown, expired, used up). */
    readonly redeem: (token: string) => Effect.Effect<Option.Option<string>>
  }
>() {}

export const DownloadTokensLive = Layer.effect(
  DownloadTokens,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** None when the token is unknown, expired or used up. */
    const takeDownload = SqlSchema.findOne({
      Request: Schema.Struct({ tokenHash: Schema.Uint8ArrayFromSelf, now: Schema.DateFromSelf }),
      Result: Schema.Struct({ job_id: Schema.String }),
      execute: (input) => sql`
        UPDATE download_tokens SET downloads = downloads + 1
        WHERE token_hash = ${input.tokenHash} AND expires_at > ${input.now}
          AND downloads < ${DOWNLOAD_TOKEN_MAX_DOWNLOADS}
        RETURNING job_id`
    })
    return {
      issue: (jobId) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const token = generateDownloadToken()
          const expiresAt = downloadTokenExpiry(now)
          yield* sql`
            INSERT INTO download_tokens (token_hash, job_id, expires_at, created_at)
            VALUES (${hashDownloadToken(token)}, ${jobId}, ${expiresAt}, ${new Date(now)})`
          return { token, expiresAt }
        }).pipe(Effect.orDie),
      redeem: (token) =>
        DOWNLOAD_TOKEN_PATTERN.test(token)
          ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
              takeDownload({ tokenHash: hashDownloadToken(token), now: new Date(now) })
            ).pipe(Effect.map(Option.map((row) => row.job_id)), Effect.orDie)
          : Effect.succeedNone
    }
  })
)
