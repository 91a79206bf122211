import { Data, Duration, Schedule } from "effect"

/** The notice sources the pollers read. */
export const SOURCE_NAMES = ["ted", "seap"] as const
export type SourceName = (typeof SOURCE_NAMES)[number]

/**
 * Why a request to a notice source failed. `rate-limited`, `server`, `timeout`, `unreachable` and
 * `maintenance` (an HTML page answered with 200, as SEAP does while it is down) pass with time;
 * `refused` (another 4xx) and `invalid` (an answer of the wrong shape) do not, so they are not retried.
 */
export class SourceFailure extends Data.TaggedError("SourceFailure")<{
  readonly source: SourceName
  readonly reason: "rate-limited" | "server" | "timeout" | "unreachable" | "maintenance" | "refused" | "invalid"
  readonly status: number | null
  /** The wait a 429 or 503 asked for in `Retry-After`. */
  readonly retryAfter: Duration.Duration | undefined
  readonly message: string
}> {}

export const isTransient = (failure: SourceFailure) => failure.reason !== "refused" && failure.reason !== "invalid"

/**
 * The longest `Retry-After` believed: TED and SEAP ask for seconds to minutes, and a date mistyped
 * years ahead must not silence a source for good; a day is waited, then the source is asked again.
 */
const LONGEST_RETRY_AFTER = Duration.hours(24)

/**
 * The longest `Retry-After` a request waits for itself; a longer one ends the request (and its
 * poll), and the next poll of the source waits for it (`pollSchedule`, `PollOutcome.retryAfter`).
 */
export const LONGEST_WAIT_IN_REQUEST = Duration.minutes(10)

/** The source asked for a wait longer than a request waits: nothing is asked of it before then. */
export const waitsForNextPoll = (failure: SourceFailure) =>
  failure.retryAfter !== undefined && Duration.greaterThan(failure.retryAfter, LONGEST_WAIT_IN_REQUEST)

/** `Retry-After` as seconds or an HTTP date (RFC 9110), relative to `now`; undefined when absent or unreadable. */
export const parseRetryAfter = (value: string | undefined, now: number): Duration.Duration | undefined => {
  if (value === undefined || value.trim() === "") return undefined
  const seconds = /^\s*(\d+)\s*$/.exec(value)
  const millis = seconds !== null ? Number(seconds[1]) * 1000 : Date.parse(value) - now
  return Number.isFinite(millis) ? Duration.min(Duration.millis(Math.max(0, millis)), LONGEST_RETRY_AFTER) : undefined
}

/**
 * Retries of one request to a source: what `Retry-After` asks for, else 1 s, 2 s, 4 s … (jittered,
 * at most 2 minutes apart), `retries` times, and only for failures that pass with time. A
 * `Retry-After` beyond LONGEST_WAIT_IN_REQUEST is not retried here: asking before it risks a block.
 */
export const sourceRetrySchedule = (retries: number): Schedule.Schedule<SourceFailure, SourceFailure> =>
  Schedule.exponential("1 second", 2).pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.minutes(2))),
    Schedule.intersect(Schedule.recurs(retries)),
    Schedule.whileInput((failure: SourceFailure) => isTransient(failure) && !waitsForNextPoll(failure)),
    Schedule.passthrough,
    Schedule.modifyDelay((failure, delay) => failure.retryAfter ?? delay)
  )

/**
 * A notice whose download failed during its poll becomes a job of its own, read again 1, 2, 4 … 64
 * minutes later, then every 2 hours, 90 attempts in all (about a week), so it delays none of the
 * other notices of its page. The job is the notice's only way in: the poll's watermark has moved past
 * its day, so a source's outage longer than the job lived (TED's maintenance, SEAP down for days)
 * would lose it. A notice still unread after a week is dead-lettered (a warning in the log). An
 * attempt is a few spaced requests of 30 s at most each: 10 minutes fails only a hung one.
 */
export const NOTICE_RETRY = {
  maxAttempts: 90,
  retry: Schedule.exponential("1 minute", 2).pipe(
    Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.hours(2)))
  ),
  timeout: Duration.minutes(10)
}

/** What one poll of a source reports to the schedule that spaces the polls. */
export interface PollOutcome {
  /** Polls in a row that failed, this one included (0 after a success). */
  readonly consecutiveFailures: number
  /** The source's `Retry-After` that ended the poll: the next poll waits at least that long. */
  readonly retryAfter?: Duration.Duration | undefined
}

/** The longest wait between the polls of a source that keeps failing. */
const LONGEST_BACKOFF = Duration.minutes(30)

/**
 * The polls of one source: every `every` while it answers; after failures the wait doubles per
 * failure in a row (never above 30 minutes, or `every` when that is longer), so an outage is
 * polled a few times an hour, not hammered; and never before the `Retry-After` the source gave.
 */
export const pollSchedule = (every: Duration.DurationInput): Schedule.Schedule<PollOutcome, PollOutcome> =>
  Schedule.passthrough(Schedule.spaced(every) as Schedule.Schedule<number, PollOutcome>).pipe(
    Schedule.modifyDelay((outcome, delay) =>
      outcome.consecutiveFailures === 0
        ? delay
        : Duration.min(
            Duration.times(delay, 2 ** Math.min(outcome.consecutiveFailures, 20)),
            Duration.max(LONGEST_BACKOFF, delay)
          )
    ),
    Schedule.modifyDelay((outcome, delay) => Duration.max(delay, outcome.retryAfter ?? Duration.zero))
  )
