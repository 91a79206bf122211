import { Effect, Layer, Option } from "effect"
import { inject } from "vitest"
import { connectRedis, RedisConnection } from "../../src/infra/redis/RedisConnection.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The Redis the tests use: REDIS_URL, else one answering on 127.0.0.1:6379, else "" (none). */
    redisUrl: string
  }
}

/** In a test file: the run's Redis URL, if there is one. */
export const testRedisUrl = (): string | undefined => inject("redisUrl") || undefined

/** A connection to the run's Redis, or none: the process-local stores, as `npm start` without REDIS_URL. */
export const TestRedisLive = Layer.scoped(
  RedisConnection,
  Effect.suspend(() => {
    const url = testRedisUrl()
    return url === undefined ? Effect.succeedNone : Effect.map(connectRedis(url), Option.some).pipe(Effect.orDie)
  })
)
