import { randomBytes } from "node:crypto"
import * as RateLimiter from "@effect/experimental/RateLimiter"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, TestClock } from "effect"
import type { RateLimitPolicy } from "../../src/domain/RateLimitPolicy.js"
import { RateLimiterStoreLive } from "../../src/infra/limits/RateLimitStore.js"
import { RateLimits, RateLimitsLive } from "../../src/infra/limits/RateLimits.js"
import { TestRedisLive, testRedisUrl } from "../support/testRedis.js"

const perMinute: RateLimitPolicy = { name: "general", limit: 3, window: Duration.minutes(1) }

/**
 * The store `npm start` would use on this machine, under a prefix of its own (a fresh set of windows):
 * Redis where the run has one, else the in-process store (so these tests run, not skip, everywhere).
 */
const storeName = testRedisUrl() ? "Redis store" : "in-process store (no Redis reachable)"
const runStore = () =>
  RateLimiterStoreLive({ prefix: `tss:test:${randomBytes(4).toString("hex")}:` }).pipe(Layer.provide(TestRedisLive))
const onRunStore = () => RateLimitsLive.pipe(Layer.provide(runStore()))

const consumeN = (n: number, subject: string) =>
  Effect.flatMap(RateLimits, (limits) =>
    Effect.forEach(Array.from({ length: n }), () => Effect.either(limits.consume(perMinute, subject)))
  )

describe("rate limits", () => {
  const InMemory = RateLimitsLive.pipe(Layer.provide(RateLimiter.layerStoreMemory))

  it.effect("in-process store: the window is driven by the Effect clock", () =>
    Effect.gen(function* () {
      const results = yield* consumeN(4, "tenant-a")
      expect(results.slice(0, 3).every(Either.isRight)).toBe(true)
      const refused = results[3]!
      expect(Either.isLeft(refused) && refused.left.retryAfterSeconds).toBe(60)

      yield* TestClock.adjust(Duration.seconds(45))
      const later = yield* consumeN(1, "tenant-a")
      expect(Either.isLeft(later[0]!) && later[0].left.retryAfterSeconds).toBe(15)

      yield* TestClock.adjust(Duration.seconds(15))
      expect((yield* consumeN(3, "tenant-a")).every(Either.isRight)).toBe(true)
    }).pipe(Effect.provide(InMemory))
  )

  it.effect("subjects are counted apart", () =>
    Effect.gen(function* () {
      yield* consumeN(3, "tenant-a")
      expect((yield* consumeN(1, "tenant-a")).every(Either.isLeft)).toBe(true)
      expect((yield* consumeN(1, "tenant-b")).every(Either.isRight)).toBe(true)
    }).pipe(Effect.provide(InMemory))
  )

  it.scopedLive(`${storeName}: shared windows with a real wait`, () =>
    Effect.gen(function* () {
      // Two limiters on one store stand for two API processes.
      const store = yield* Layer.build(runStore())
      const limiter = () => RateLimitsLive.pipe(Layer.provide(Layer.succeedContext(store)))
      const first = yield* consumeN(2, "tenant-r").pipe(Effect.provide(limiter()))
      const second = yield* consumeN(2, "tenant-r").pipe(Effect.provide(limiter()))
      expect(first.every(Either.isRight)).toBe(true)
      expect(Either.isRight(second[0]!)).toBe(true)
      const refused = second[1]!
      expect(Either.isLeft(refused)).toBe(true)
      if (Either.isLeft(refused)) {
        expect(refused.left.retryAfterSeconds).toBeGreaterThan(55)
        expect(refused.left.retryAfterSeconds).toBeLessThanOrEqual(60)
      }
    })
  )

  it.live(`${storeName}: a limit that does not divide the window still limits`, () => {
    // 60,000 ms / 7 is not a whole number of milliseconds, which Redis refuses as an expiry.
    const sevenPerMinute: RateLimitPolicy = { name: "general", limit: 7, window: Duration.minutes(1) }
    return Effect.gen(function* () {
      const limits = yield* RateLimits
      const results = yield* Effect.forEach(Array.from({ length: 8 }), () =>
        Effect.either(limits.consume(sevenPerMinute, "tenant-7"))
      )
      expect(results.slice(0, 7).every(Either.isRight)).toBe(true)
      const refused = results[7]!
      expect(Either.isLeft(refused) && refused.left.retryAfterSeconds).toBeGreaterThan(55)
    }).pipe(Effect.provide(onRunStore()))
  })
})
