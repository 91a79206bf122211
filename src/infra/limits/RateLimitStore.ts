import * as RateLimiter from "@effect/experimental/RateLimiter"
import { Duration, Effect, Layer, Option } from "effect"
import type { Redis as IORedis } from "ioredis"
import { RedisConnection } from "../redis/RedisConnection.js"

/**
 * The fixed-window script of @effect/experimental's Redis RateLimiterStore (0.61), unchanged:
 * KEYS[1] the window, ARGV tokens, refill milliseconds per token, limit. Returns the count after
 * taking the tokens (above the limit when refused, which then takes nothing) and the window's TTL.
 * The API benchmark's baseline runs the same script.
 */
export const FIXED_WINDOW_SCRIPT = `
local key = KEYS[1]
local tokens = tonumber(ARGV[1])
local refillms = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local current = tonumber(redis.call("GET", key))

if not current then
  local nextpttl = refillms * tokens
  redis.call("SET", key, tokens, "PX", nextpttl)
  return { tokens, nextpttl }
end

local currentpttl = tonumber(redis.call("PTTL", key) or "0")
local next = current + tokens
if limit and next > limit then
  return { next, currentpttl }
end

local nextpttl = currentpttl + (refillms * tokens)
redis.call("SET", key, next, "PX", nextpttl)
return { next, nextpttl }
`

/** The script as a command of the client (EVALSHA, falling back to EVAL once per connection). */
export const defineFixedWindow = (client: IORedis) => {
  client.defineCommand("fixedWindow", { numberOfKeys: 1, lua: FIXED_WINDOW_SCRIPT, readOnly: false })
  const command = client as IORedis & {
    fixedWindow: (key: string, tokens: number, refillMillis: number, limit?: number) => Promise<[number, number]>
  }
  return (key: string, tokens: number, refillMillis: number, limit?: number) =>
    command.fixedWindow(key, tokens, refillMillis, limit)
}

/**
 * RateLimiter's store on the process's Redis connection. @effect/experimental's own Redis store
 * opens a connection of its own, which /ready could not see; this one counts on the shared one.
 * Only fixed windows: RateLimits uses no token bucket. A Redis that does not answer fails the script
 * after the connection's REDIS_COMMAND_TIMEOUT, as a store failure (RateLimits lets the request through).
 */
export const redisRateLimiterStore = (client: IORedis, prefix: string) => {
  const fixedWindow = defineFixedWindow(client)
  return RateLimiter.RateLimiterStore.of({
    fixedWindow: (options) =>
      Effect.tryPromise({
        try: () =>
          fixedWindow(`${prefix}${options.key}`, options.tokens, Duration.toMillis(options.refillRate), options.limit),
        catch: (cause) =>
          new RateLimiter.RateLimitStoreError({ message: "Failed to execute fixedWindow rate limiting command", cause })
      }),
    tokenBucket: () => Effect.dieMessage("RateLimits counts fixed windows only")
  })
}

/** Windows in Redis when the process has a connection (shared by every process), else in this process. */
export const RateLimiterStoreLive = (options: { readonly prefix?: string } = {}) =>
  Layer.unwrapEffect(
    Effect.map(
      RedisConnection,
      Option.match({
        onNone: () => RateLimiter.layerStoreMemory,
        onSome: (client) =>
          Layer.succeed(RateLimiter.RateLimiterStore, redisRateLimiterStore(client, options.prefix ?? "tss:rl:"))
      })
    )
  )
