import { Duration } from "effect"
import { bucharestDate, bucharestWallClock } from "../BucharestTime.js"

/** The hour a digest is set to when a user turns it on without choosing one. */
export const DIGEST_DEFAULT_HOUR = 8

/** "Closing soon": a deadline within this many days of the digest. */
export const DIGEST_CLOSING_WITHIN = Duration.days(7)

/**
 * What a user's first digest looks back over (later ones start where the previous one ended, but
 * after a pause no earlier than this long before the digest was turned on again).
 */
export const DIGEST_FIRST_WINDOW = Duration.hours(24)

/**
 * A digest's "new" window ends this long before it is sent. A tender's first scoring is stamped
 * when its batch is scored but seen only when the batch's transaction commits, seconds later: a
 * window ending at the send would miss a batch in flight, and the next window would start after its
 * stamp. The next digest reports it instead.
 */
export const DIGEST_SETTLE = Duration.minutes(10)

/** Tenders listed per company and section; the rest are counted ("și încă 4"). */
export const DIGEST_TENDERS_PER_SECTION = 10

const HOUR_MS = 3_600_000

/** Where a digest pass stands: the Bucharest day it sends for and the hour it has reached. */
export interface DigestSlot {
  /** `YYYY-MM-DD` in Bucharest: a user gets at most one digest per such day. */
  readonly date: string
  /** 0-23, Bucharest wall clock. */
  readonly hour: number
}

/**
 * The slot of a pass at an instant. A user is due in it once `hour` has reached theirs and they have
 * no digest for `date` yet (the query of infra/digest/DailyDigest). "Reached", not "equals": on the
 * spring DST day 03:00 does not exist, so a 3 o'clock digest goes out at 04:00; and a worker that
 * was down at the hour catches up the same day.
 */
export const digestSlot = (epochMillis: number): DigestSlot => ({
  date: bucharestDate(epochMillis),
  hour: bucharestWallClock(epochMillis).getUTCHours()
})

/**
 * Time to the next whole hour. Bucharest is a whole number of hours ahead of UTC (+2 or +3), so
 * its hours start when UTC's do, DST days included.
 */
export const untilNextHour = (epochMillis: number): Duration.Duration =>
  Duration.millis(HOUR_MS - (((epochMillis % HOUR_MS) + HOUR_MS) % HOUR_MS))
