import { Context, Data, Duration, Effect, Layer, Option, Redacted, Runtime } from "effect"
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

/** host:port of a Redis URL, without its credentials. */
const redisAddress = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.hostname}:${parsed.port || "6379"}`
}

/**
 * Listens to a connected client's `error` events until the returned function is called: unheard,
 * ioredis prints each failed reconnection attempt as an "[ioredis] Unhandled error event" stack
 * trace (several a second while Redis is down). An outage is logged once, as a warning through
 * `runtime`'s logger (the process's JSON lines), and its end once, when the client is ready again;
 * the attempts in between are not logged.
 */
const watchOutages = (client: IORedis, address: string, runtime: Runtime.Runtime<never>) => {
  const log = Runtime.runFork(runtime)
  let down = false
  const onError = (error: unknown) => {
    if (down) return
    down = true
    const reason = error instanceof Error ? error.message : String(error)
    log(Effect.logWarning(`Redis at REDIS_URL (${address}) unavailable: ${reason}; reconnecting`))
  }
  const onReady = () => {
    if (!down) return
    down = false
    log(Effect.logInfo(`Redis at REDIS_URL (${address}) reconnected`))
  }
  client.on("error", onError)
  client.on("ready", onReady)
  return () => {
    client.off("error", onError)
    client.off("ready", onReady)
  }
}

/**
 * Connects (failing when Redis cannot be reached) and quits with the scope; in between, outages are
 * logged (watchOutages). ioredis is imported here, not at the top: without REDIS_URL (`npm start`)
 * the process never loads it (~40 ms of a start).
 */
export const connectRedis = (url: string) =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) =>
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const { Redis } = await import("ioredis")
          const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true })
          // The failed attempt is this function's error; unheard, ioredis would also print it as an
          // "Unhandled error event".
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
          // Attached in the same tick as the connection's listener is removed: no error goes unheard.
          return { client, unwatch: watchOutages(client, redisAddress(url), runtime) }
        },
        catch: (cause) =>
          new RedisError({
            cause,
            message: `Cannot connect to Redis at REDIS_URL (${redisAddress(url)}): ${cause instanceof Error ? cause.message : String(cause)}`
          })
      }),
      // Still listening while it quits: an attempt failing meanwhile is no unhandled error either.
      ({ client, unwatch }) =>
        Effect.promise(() => client.quit().catch(() => client.disconnect())).pipe(Effect.ensuring(Effect.sync(unwatch)))
    ).pipe(Effect.map(({ client }) => client))
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
