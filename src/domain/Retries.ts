import { Duration, Effect, Option, Schedule, ScheduleDecision, ScheduleIntervals } from "effect"

/**
 * The delay a retry schedule puts after the `failures`-th failure (1-based), or none when the
 * schedule gives up there. Durable queues persist "retry at now + this delay" instead of sleeping,
 * so a retry survives a restart; the schedule is stepped exactly as `Effect.retry` would step it
 * (once per failure), so the same definition serves both.
 */
export const delayAfterFailure = <Out, R>(
  schedule: Schedule.Schedule<Out, unknown, R>,
  failures: number
): Effect.Effect<Option.Option<Duration.Duration>, never, R> =>
  Effect.gen(function* () {
    let state = schedule.initial
    let now = 0
    let delay = Option.none<Duration.Duration>()
    for (let failure = 1; failure <= failures; failure++) {
      const [next, , decision] = yield* schedule.step(now, undefined, state)
      if (ScheduleDecision.isDone(decision)) return Option.none()
      const start = ScheduleIntervals.start(decision.intervals)
      delay = Option.some(Duration.millis(start - now))
      now = start
      state = next
    }
    return delay
  })

/**
 * Jobs (scoring and every other kind): 2 s, 4 s, 8 s, … after each failure, at most 5 minutes.
 * How many attempts a job gets is its own `max_attempts`.
 */
export const JobRetrySchedule: Schedule.Schedule<Duration.Duration> = Schedule.exponential("2 seconds", 2).pipe(
  Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.minutes(5)))
)

/**
 * Outgoing e-mail: 12 attempts, at 0, +1 min, +3 min, +9 min, +27 min, then hourly (7 h 40 min in
 * all); then the message is `failed`. The first ones ride out a greylisting delay or a restart; the
 * hourly ones an SMTP outage of hours (RFC 5321 4.5.4.1 retries for days), which would otherwise
 * lose a morning's digests for good.
 */
export const MailRetrySchedule: Schedule.Schedule<[Duration.Duration, number]> = Schedule.exponential(
  "1 minute",
  3
).pipe(
  Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.hours(1))),
  Schedule.intersect(Schedule.recurs(11))
)
