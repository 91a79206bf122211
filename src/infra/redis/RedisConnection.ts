import { Context, Data, Duration, Effect, Layer, Option, Redacted } from "effect"
import type { Redis as IORedis } from "ioredis"
import { AppConfig } from "../config/AppConfig.js"

export class RedisError extends Data.TaggedError("RedisError")<{
  readonly cause: unknown
  /** For an operator, when the process cannot start (printed as its one line). */
  readonly message?: string
}> {}

/**
 * The process's one Redis connection, when REDIS_URL is set: the rate-limit store counts on it and
 * /ready pings it, so readiness reports the connection the limiter really uses. `None` selects the
 * in-process rate-limit store, which is valid for a single process.
 */
export class RedisConnection extends Context.Tag("RedisConnection")<RedisConnection, Option.Option<IORedis>>() {}

/**
 * Connects (failing when Redis cannot be reached) and quits with the scope. ioredis is imported here,
 * not at the top: without REDIS_URL (`npm start`) the process never loads it (~40 ms of a start).
 */
/** host:port of a Redis URL, without its credentials. */
const redisAddress = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.hostname}:${parsed.port || "6379"}`
}

export const connectRedis = (url: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const { Redis } = await import("ioredis")
        const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true })
        // The failed attempt is this function's error; unheard, ioredis would also print it as an
        // "Unhandled error event". Once connected, the process's listeners take over (metrics).
        let heard: unknown
        const whileConnecting = (error: unknown) => {
          heard = error
        }
        client.on("error", whileConnecting)
        try {
          await client.connect()
        } catch (error) {
          client.disconnect()
          // ioredis rejects with "Connection is closed."; the error event said why (ECONNREFUSED, …).
          throw heard ?? error
        } finally {
          client.off("error", whileConnecting)
        }
        return client
      },
      catch: (cause) =>
        new RedisError({
          cause,
          message: `Cannot connect to Redis at REDIS_URL (${redisAddress(url)}): ${cause instanceof Error ? cause.message : String(cause)}`
        })
    }),
    (client) => Effect.promise(() => client.quit().catch(() => client.disconnect()))
  )

export const RedisConnectionLive = Layer.scoped(
  RedisConnection,
  Effect.gen(function* () {
    const config = yield* AppConfig
    return yield* Option.match(config.redisUrl, {
      onNone: () => Effect.succeedNone,
      onSome: (url) => connectRedis(Redacted.value(url)).pipe(Effect.map(Option.some))
    })
  })
)

/** Succeeds when Redis answers PING within a second, or when no Redis is configured. */
export const pingRedis = Effect.gen(function* () {
  const connection = yield* RedisConnection
  if (Option.isNone(connection)) return
  yield* Effect.tryPromise({ try: () => connection.value.ping(), catch: (cause) => new RedisError({ cause }) }).pipe(
    Effect.timeoutFail({ duration: Duration.seconds(1), onTimeout: () => new RedisError({ cause: "timeout" }) })
  )
})
