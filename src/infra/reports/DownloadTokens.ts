import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Context, Data, Effect, Layer, Option, Schema } from "effect"
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
 * download takes one use in a single conditional UPDATE, so concurrent downloads can never exceed 3,
 * and the use is kept only once what it downloads has been read.
 */
export class DownloadTokens extends Context.Tag("DownloadTokens")<
  DownloadTokens,
  {
    readonly issue: (jobId: string) => Effect.Effect<{ readonly token: string; readonly expiresAt: Date }>
    /**
     * Takes one download of the token and reads, with `read`, what the job it opens serves: none when
     * the token is unknown, expired or used up. The use is given back when `read` finds nothing or
     * dies (a PDF missing, storage failing): one transaction, the token's row locked meanwhile.
     */
    readonly redeem: <A, R>(
      token: string,
      read: (jobId: string) => Effect.Effect<Option.Option<A>, never, R>
    ) => Effect.Effect<Option.Option<A>, never, R>
  }
>() {}

/** Rolls the download's transaction back: nothing was read, so nothing was downloaded. */
class NothingRead extends Data.TaggedError("NothingRead") {}

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
      redeem: <A, R>(token: string, read: (jobId: string) => Effect.Effect<Option.Option<A>, never, R>) =>
        DOWNLOAD_TOKEN_PATTERN.test(token)
          ? sql
              .withTransaction(
                Effect.gen(function* () {
                  const now = yield* Clock.currentTimeMillis
                  const taken = yield* takeDownload({ tokenHash: hashDownloadToken(token), now: new Date(now) })
                  if (Option.isNone(taken)) return Option.none<A>()
                  const served = yield* read(taken.value.job_id)
                  if (Option.isNone(served)) return yield* new NothingRead()
                  return served
                })
              )
              .pipe(
                Effect.catchTags({
                  NothingRead: () => Effect.succeedNone,
                  SqlError: Effect.die,
                  ParseError: Effect.die
                })
              )
          : Effect.succeedNone
    }
  })
)
