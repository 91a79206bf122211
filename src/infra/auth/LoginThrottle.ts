import { Duration, Effect } from "effect"
import type { RateLimitHit } from "../../domain/Errors.js"
import type { RateLimitPolicy } from "../../domain/RateLimitPolicy.js"
import { RateLimits } from "../billing/RateLimits.js"

/**
 * Failed-login throttling over RateLimits, which can only count. Failures are counted per subject
 * (an e-mail, a client address) against the policy; the failure that goes over budget also sets a
 * lock key for the time the counter still has to run. Every attempt checks the locks BEFORE the
 * password is verified, so a locked-out guesser gets 429 whether the guess is right or not, while
 * successful logins never count.
 *
 * A lock is a window with limit 1: setting it stores count 1 for `retryAfter`; checking it is a
 * consume with a 1 ms window, which is refused (and reports the lock's remaining time) while the
 * lock exists, and otherwise leaves a key that expires after 1 ms.
 */

const lockOf = (policy: RateLimitPolicy, window: Duration.Duration): RateLimitPolicy => ({
  name: `${policy.name}-lock`,
  limit: 1,
  window
})

const CHECK_WINDOW = Duration.millis(1)

/** Fails with the lock's RateLimitHit while `subject` is locked out under `policy`. */
export const checkNotLocked = (policy: RateLimitPolicy, subject: string) =>
  Effect.flatMap(RateLimits, (limits) => limits.consume(lockOf(policy, CHECK_WINDOW), subject))

/** Counts a failed login; the failure over budget locks the subject and fails with RateLimitHit. */
export const recordFailure = (policy: RateLimitPolicy, subject: string) =>
  Effect.flatMap(RateLimits, (limits) =>
    limits
      .consume(policy, subject)
      .pipe(
        Effect.tapError((hit: RateLimitHit) =>
          limits
            .consume(lockOf(policy, Duration.seconds(hit.retryAfterSeconds)), subject)
            .pipe(Effect.catchTag("RateLimitHit", () => Effect.void))
        )
      )
  )
