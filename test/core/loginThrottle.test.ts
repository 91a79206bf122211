import { randomBytes } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, Logger, Option, TestClock } from "effect"
import { vi } from "vitest"
import { clientNetwork } from "../../src/domain/ClientNetwork.js"
import type { RateLimitPolicy } from "../../src/domain/RateLimitPolicy.js"
import { clientAddress, normaliseAddress, parseTrustProxy, type TrustProxy } from "../../src/domain/TrustProxy.js"
import { LockStoreError, LoginLocks, LoginLocksLive } from "../../src/infra/limits/LoginLocks.js"
import { checkNotLocked, recordFailure } from "../../src/infra/limits/LoginThrottle.js"
import { RateLimiterStoreLive } from "../../src/infra/limits/RateLimitStore.js"
import { RateLimitsLive } from "../../src/infra/limits/RateLimits.js"
import { jsonLogger } from "../../src/infra/observability/JsonLogger.js"
import { RedisConnection } from "../../src/infra/redis/RedisConnection.js"
import { TestRedisLive, testRedisUrl } from "../support/testRedis.js"

const policy: RateLimitPolicy = { name: "login-email", limit: 3, window: Duration.minutes(15) }

const noRedis = Layer.succeed(RedisConnection, Option.none())

/** The throttle's services on one connection (or none: in process), under a fresh prefix. */
const throttle = (connection: Layer.Layer<RedisConnection>) => {
  const prefix = `tss:test:${randomBytes(4).toString("hex")}:`
  return Layer.mergeAll(
    RateLimitsLive.pipe(Layer.provide(RateLimiterStoreLive({ prefix }))),
    LoginLocksLive({ prefix })
  ).pipe(Layer.provide(connection))
}

const failures = (n: number, subject: string) =>
  Effect.forEach(Array.from({ length: n }), () => Effect.either(recordFailure(policy, subject)))

// The second pass is on the run's Redis; where none is reachable it runs in process again rather than skip.
for (const [name, connection] of [
  ["in process", noRedis],
  [testRedisUrl() ? "Redis" : "in process, no Redis reachable", TestRedisLive]
] as const) {
  describe(`login locks (${name})`, () => {
    it.effect("the failure over budget locks the subject; the lock ends when the TestClock passes its end", () =>
      Effect.gen(function* () {
        const results = yield* failures(4, "alice")
        expect(results.slice(0, 3).every(Either.isRight)).toBe(true)
        const over = results[3] as Either.Either<void, { retryAfterSeconds: number }>
        expect(Either.isLeft(over)).toBe(true)
        const seconds = Either.isLeft(over) ? over.left.retryAfterSeconds : 0
        expect(seconds).toBeGreaterThan(0)
        expect(seconds).toBeLessThanOrEqual(15 * 60)

        const locked = yield* Effect.either(checkNotLocked(policy, "alice"))
        expect(Either.isLeft(locked) && locked.left.retryAfterSeconds).toBe(seconds)
        // Other subjects are not locked.
        expect(Either.isRight(yield* Effect.either(checkNotLocked(policy, "bob")))).toBe(true)

        // One millisecond before the end: still locked, with one second to wait.
        yield* TestClock.adjust(Duration.millis(seconds * 1000 - 1))
        const almost = yield* Effect.either(checkNotLocked(policy, "alice"))
        expect(Either.isLeft(almost) && almost.left.retryAfterSeconds).toBe(1)
        // At the end: free.
        yield* TestClock.adjust(Duration.millis(1))
        expect(Either.isRight(yield* Effect.either(checkNotLocked(policy, "alice")))).toBe(true)
      }).pipe(Effect.provide(throttle(connection)))
    )

    it.effect("checks consume nothing: any number in the same instant pass, and a lock is seen by all of them", () =>
      Effect.gen(function* () {
        const checks = yield* Effect.forEach(
          Array.from({ length: 50 }),
          () => Effect.either(checkNotLocked(policy, "carol")),
          { concurrency: "unbounded" }
        )
        expect(checks.every(Either.isRight)).toBe(true)
        yield* failures(4, "carol")
        const after = yield* Effect.forEach(
          Array.from({ length: 50 }),
          () => Effect.either(checkNotLocked(policy, "carol")),
          { concurrency: "unbounded" }
        )
        expect(after.every(Either.isLeft)).toBe(true)
      }).pipe(Effect.provide(throttle(connection)))
    )
  })
}

const trust = (value: string): TrustProxy => {
  const parsed = parseTrustProxy(value)
  if (!parsed.ok) throw new Error(parsed.reason)
  return parsed.trust
}

describe("a lock store that does not answer", () => {
  it.effect("lets the login through with a warning that says why", () =>
    Effect.gen(function* () {
      const printed = vi.spyOn(globalThis.console, "log").mockImplementation(() => undefined)
      const unanswered = Effect.fail(new LockStoreError({ cause: new Error("Command timed out") }))
      yield* checkNotLocked(policy, "someone@example.ro").pipe(
        Effect.provideService(LoginLocks, { lockedUntil: () => unanswered, lock: () => unanswered }),
        Effect.provide(Logger.replace(Logger.defaultLogger, jsonLogger))
      )
      const lines = printed.mock.calls.map(([line]) => JSON.parse(String(line)) as { message: string })
      printed.mockRestore()
      expect(lines.map((line) => line.message)).toEqual([
        "Login lock store unavailable; login allowed Command timed out"
      ])
    })
  )
})

describe("client address (TRUST_PROXY)", () => {
  it("off: the peer, whatever X-Forwarded-For says", () => {
    expect(clientAddress("127.0.0.1", ["6.6.6.6"], trust(""))).toBe("127.0.0.1")
    expect(clientAddress("::ffff:10.0.0.5", [], trust("false"))).toBe("10.0.0.5")
    expect(clientAddress(undefined, ["6.6.6.6"], trust("0"))).toBe("unknown")
  })

  it("a list: walks right to left through trusted hops only", () => {
    const t = trust("10.0.0.0/8, 192.168.1.7, fd00::/8")
    expect(clientAddress("10.0.0.1", ["1.2.3.4"], t)).toBe("1.2.3.4")
    expect(clientAddress("10.0.0.1", ["6.6.6.6, 1.2.3.4, 192.168.1.7"], t)).toBe("1.2.3.4")
    expect(clientAddress("::ffff:10.0.0.1", ["1.2.3.4:5555"], t)).toBe("1.2.3.4")
    expect(clientAddress("fd00::1", ["[2001:db8::9]:443"], t)).toBe("2001:db8::9")
    // An untrusted peer's header is not read.
    expect(clientAddress("8.8.8.8", ["1.2.3.4"], t)).toBe("8.8.8.8")
    // All hops trusted: the left-most.
    expect(clientAddress("10.0.0.1", ["10.0.0.2, 10.0.0.3"], t)).toBe("10.0.0.2")
    // Garbage stops the walk at the proxy that forwarded it.
    expect(clientAddress("10.0.0.1", ["not-an-ip"], t)).toBe("10.0.0.1")
    // Repeated headers are one list.
    expect(clientAddress("10.0.0.1", ["6.6.6.6", "1.2.3.4"], t)).toBe("1.2.3.4")
  })

  it("a hop count: that many hops are trusted, whatever their address", () => {
    expect(clientAddress("127.0.0.1", ["6.6.6.6, 1.2.3.4"], trust("1"))).toBe("1.2.3.4")
    expect(clientAddress("127.0.0.1", ["6.6.6.6, 1.2.3.4, 10.0.0.2"], trust("2"))).toBe("1.2.3.4")
    expect(clientAddress("127.0.0.1", ["1.2.3.4"], trust("3"))).toBe("1.2.3.4")
    expect(clientAddress("127.0.0.1", [], trust("1"))).toBe("127.0.0.1")
  })

  it("refuses what is neither", () => {
    for (const bad of ["10.0.0.0/33", "proxy.example", "1.2.3.4/8/1", "fd00::/129", "101"]) {
      expect(parseTrustProxy(bad).ok).toBe(false)
    }
    expect(normaliseAddress(" ::FFFF:1.2.3.4 ")).toBe("1.2.3.4")
    expect(normaliseAddress("fe80::1%eth0")).toBe("fe80::1")
  })
})

describe("the network a per-address login budget counts (an IPv6 client by its /64)", () => {
  it("IPv4 and `unknown` as they are; IPv6 as its /64, however it is written", () => {
    expect(clientNetwork("10.0.0.1")).toBe("10.0.0.1")
    expect(clientNetwork("unknown")).toBe("unknown")
    for (const address of ["2001:db8:1:2::5", "2001:0db8:0001:0002:aaaa::1", "2001:db8:1:2:3:4:5:6"]) {
      expect(clientNetwork(address), address).toBe("2001:db8:1:2::/64")
    }
    expect(clientNetwork("2001:db8:1:3::5")).toBe("2001:db8:1:3::/64")
    expect(clientNetwork("::1")).toBe("0:0:0:0::/64")
    expect(clientNetwork("2001:db8::")).toBe("2001:db8:0:0::/64")
    expect(clientNetwork("64:ff9b::1.2.3.4")).toBe("64:ff9b:0:0::/64")
    expect(clientNetwork("fe80::1%eth0")).toBe("fe80:0:0:0::/64")
  })
})
