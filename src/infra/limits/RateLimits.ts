import * as RateLimiter from "@effect/experimental/RateLimiter"
import { Context, Effect, Layer } from "effect"
import { RateLimitHit } from "../../domain/Errors.js"
import {
  defaultRateLimitPolicies,
  type RateLimitPolicies,
  type RateLimitPolicy,
  retryAfterSeconds,
  storeWindow
} from "../../domain/RateLimitPolicy.js"
import { AppConfig } from "../config/AppConfig.js"
import { LoginLocksLive } from "./LoginLocks.js"
import { RateLimiterStoreLive } from "./RateLimitStore.js"

/** The policies in force (configurable, so benchmarks can raise them). */
export class RateLimitPoliciesTag extends Context.Tag("RateLimitPolicies")<RateLimitPoliciesTag, RateLimitPolicies>() {}

export class RateLimits extends Context.Tag("RateLimits")<
  RateLimits,
  {
    /** Counts one request of `subject` against `policy`; fails with RateLimitHit when over budget. */
    readonly consume: (policy: RateLimitPolicy, subject: string) => Effect.Effect<void, RateLimitHit>
  }
>() {}

/**
 * Fixed windows from @effect/experimental's RateLimiter: a rejected request is not counted, and
 * the wait it reports is the exact time until the window frees up. A store failure (Redis down)
 * lets the request through and logs: availability over strictness for a counter that holds no data.
 */
export const RateLimitsLive = Layer.effect(
  RateLimits,
  Effect.gen(function* () {
    const limiter = yield* RateLimiter.RateLimiter
    return {
      consume: (policy, subject) =>
        limiter.consume({ key: `${policy.name}:${subject}`, limit: policy.limit, window: storeWindow(policy) }).pipe(
          Effect.asVoid,
          Effect.catchTag("RateLimiterError", (error) =>
            error.reason === "Exceeded"
              ? Effect.fail(
                  new RateLimitHit({ policy: policy.name, retryAfterSeconds: retryAfterSeconds(error.retryAfter) })
                )
              : Effect.logWarning("Rate-limit store unavailable; request allowed", error)
          )
        )
    }
  })
).pipe(Layer.provide(RateLimiter.layer))

/** The spec's policies with the configured limits. */
export const RateLimitPoliciesLive = Layer.effect(
  RateLimitPoliciesTag,
  Effect.map(
    AppConfig,
    ({ rateLimits }): RateLimitPolicies => ({
      ...defaultRateLimitPolicies,
      general: { ...defaultRateLimitPolicies.general, limit: rateLimits.generalPerMinute },
      export: { ...defaultRateLimitPolicies.export, limit: rateLimits.exportPerHour },
      reportCreation: { ...defaultRateLimitPolicies.reportCreation, limit: rateLimits.reportsPerHour }
    })
  )
)

/**
 * Rate limiting for a process: the store on the process's Redis connection (or in-process), the
 * configured policies and the login locks (on the same connection).
 */
export const RateLimitingLive = (options: { readonly prefix?: string } = {}) =>
  Layer.mergeAll(
    RateLimitsLive.pipe(Layer.provide(RateLimiterStoreLive(options))),
    RateLimitPoliciesLive,
    LoginLocksLive(options)
  )
