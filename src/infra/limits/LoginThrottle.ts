import { Clock, Duration, Effect, Option } from "effect"
import { RateLimitHit } from "../../domain/Errors.js"
import { type RateLimitPolicy, retryAfterSeconds } from "../../domain/RateLimitPolicy.js"
import { LoginLocks } from "./LoginLocks.js"
import { RateLimits } from "./RateLimits.js"

/**
 * Failed-login throttling. Failures are counted per subject (an e-mail, a client address) against
 * the policy by RateLimits; the failure that goes over budget also locks the subject (LoginLocks)
 * for the time the counter still has to run. Every attempt checks the locks BEFORE the password is
 * verified, so a locked-out guesser gets 429 whether the guess is right or not, while successful
 * logins never count.
 *
 * The check only reads the lock and compares its end with the Clock: it is exact (logins in the
 * same millisecond do not see each other) and consumes nothing. A lock store that does not answer
 * lets the login through and logs, as the rate limiter does (availability over strictness).
 */

const lockKey = (policy: RateLimitPolicy, subject: string) => `${policy.name}:${subject}`

/** Fails with the lock's RateLimitHit while `subject` is locked out under `policy`. */
export const checkNotLocked = (policy: RateLimitPolicy, subject: string) =>
  Effect.gen(function* () {
    const locks = yield* LoginLocks
    const until = yield* locks
      .lockedUntil(lockKey(policy, subject))
      .pipe(
        Effect.catchTag("LockStoreError", (error) =>
          Effect.as(Effect.logWarning("Login lock store unavailable; login allowed", error), Option.none<number>())
        )
      )
    if (Option.isNone(until)) return
    const now = yield* Clock.currentTimeMillis
    if (until.value > now) {
      return yield* new RateLimitHit({
        policy: policy.name,
        retryAfterSeconds: retryAfterSeconds(Duration.millis(until.value - now))
      })
    }
  })

/** Counts a failed login; the failure over budget locks the subject and fails with RateLimitHit. */
export const recordFailure = (policy: RateLimitPolicy, subject: string) =>
  Effect.flatMap(RateLimits, (limits) =>
    limits.consume(policy, subject).pipe(
      Effect.tapError((hit: RateLimitHit) =>
        Effect.gen(function* () {
          const locks = yield* LoginLocks
          const now = yield* Clock.currentTimeMillis
          const millis = hit.retryAfterSeconds * 1000
          yield* locks
            .lock(lockKey(policy, subject), now + millis, millis)
            .pipe(
              Effect.catchTag("LockStoreError", (error) =>
                Effect.logWarning("Login lock store unavailable; lock not set", error)
              )
            )
        })
      )
    )
  )
