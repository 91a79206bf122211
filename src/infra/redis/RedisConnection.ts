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

/**
 * The longest a command waits for Redis's answer. Redis answers in well under a millisecond; one that
 * accepts commands and never answers (hung, stopped, overloaded) would otherwise hold every request
 * that counts a rate-limit window or reads a login lock for ever. A command past it fails as a store
 * failure does (RateLimitStore, LoginLocks), and the callers' fail-open paths apply. The same second
 * as /ready's ping.
 */
export const REDIS_COMMAND_TIMEOUT = Duration.seconds(1)

/**
 * The longest a start waits for Redis to connect and answer its ready check: ioredis bounds only the
 * TCP connection (connectTimeout), so a server that accepts and never replies held the start for ever.
 */
export const REDIS_CONNECT_TIMEOUT = Duration.seconds(10)

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
          const client = new Redis(url, {
            lazyConnect: true,
            maxRetriesPerRequest: 2,
            // While the connection is down a command fails at once (its caller fails open) instead of
            // waiting in a queue: queued past its timeout, it would still be sent on reconnection and
            // count a request already served in the new window.
            enableOfflineQueue: false,
            commandTimeout: Duration.toMillis(REDIS_COMMAND_TIMEOUT)
          })
          // The failed attempt is this function's error; unheard, ioredis would also print it as an
          // "Unhandled error event".
          let heard: unknown
          const whileConnecting = (error: unknown) => {
            heard = error
          }
          client.on("error", whileConnecting)
          let timer: NodeJS.Timeout | undefined
          const silent = new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no answer within ${Duration.format(REDIS_CONNECT_TIMEOUT)}`)),
              Duration.toMillis(REDIS_CONNECT_TIMEOUT)
            )
          })
          try {
            await Promise.race([client.connect(), silent])
          } catch (error) {
            client.disconnect()
            // ioredis rejects with "Connection is closed."; the error event said why (ECONNREFUSED, …).
            const reason = heard ?? error
            // A server that accepts and never replies fails the ready check (INFO) by the command timeout.
            throw reason instanceof Error && reason.message === "Command timed out"
              ? new Error(
                  `it accepted the connection but did not answer within ${Duration.format(REDIS_COMMAND_TIMEOUT)}`
                )
              : reason
          } finally {
            clearTimeout(timer)
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
