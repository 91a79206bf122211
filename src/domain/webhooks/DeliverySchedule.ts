import { Duration, Effect, Option, Schedule } from "effect"
import { delayAfterFailure } from "../Retries.js"

/** The only event kind (spec 6): the `X-SVC-Event` header and the subscription a delivery needs. */
export const TENDER_MATCHED = "tender.matched"

/**
 * The delays between automatic attempts of a delivery (spec 6.3): the first attempt is immediate,
 * then +30 s, +5 min, +30 min. The queue persists each step as `next_attempt_at`, so the schedule
 * survives restarts; it is stepped here rather than run by `Effect.retry`.
 */
export const DeliveryRetrySchedule = Schedule.fromDelays(
  Duration.seconds(30),
  Duration.minutes(5),
  Duration.minutes(30)
)

/** How many attempts the schedule allows: the first one plus one per delay (4). */
export const AUTOMATIC_ATTEMPTS = 4

/**
 * The delay before attempt `attemptNo + 1`, after attempt `attemptNo` (1-based) failed; none when
 * the schedule is exhausted (the delivery is then `failed`).
 */
export const delayAfterFailedAttempt = (attemptNo: number): Option.Option<Duration.Duration> =>
  Effect.runSync(delayAfterFailure(DeliveryRetrySchedule, attemptNo))

/** What a finished attempt leads to: the next status and, when pending, when to try again. */
export type AttemptOutcome =
  | { readonly _tag: "succeeded" }
  | { readonly _tag: "retry"; readonly after: Duration.Duration }
  | { readonly _tag: "failed" }

/** A 2xx is a success; anything else (3xx included, redirects are not followed) is a failure. */
export const isSuccessStatus = (status: number): boolean => status >= 200 && status < 300

/**
 * The outcome of attempt `attemptNo` of a delivery allowed `attemptsAllowed` attempts (4, or one
 * more than were made after a manual retry): `failed` once the allowance is used up.
 */
export const outcomeOf = (succeeded: boolean, attemptNo: number, attemptsAllowed: number): AttemptOutcome => {
  if (succeeded) return { _tag: "succeeded" }
  if (attemptNo >= attemptsAllowed) return { _tag: "failed" }
  return Option.match(delayAfterFailedAttempt(attemptNo), {
    onNone: () => ({ _tag: "failed" }),
    onSome: (after) => ({ _tag: "retry", after })
  })
}
