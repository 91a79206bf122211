import { Clock, Effect, Layer } from "effect"
import { untilNextHour } from "../domain/digest/DigestSchedule.js"
import { DailyDigest, DailyDigestLive } from "../infra/digest/DailyDigest.js"

/** One pass of the digest, logged; a failed pass is a warning and the next hour tries again. */
const pass = Effect.flatMap(DailyDigest, (digest) => digest.sendDue).pipe(
  Effect.tap(({ queued, empty, taken, off }) =>
    queued + empty + taken + off > 0
      ? Effect.logInfo(
          `Daily digest: ${queued} queued, ${empty} with nothing to report, ${taken} taken by another worker, ${off} turned off meanwhile`
        )
      : Effect.void
  ),
  Effect.catchAllCause((cause) => Effect.logWarning("Daily digest pass failed", cause))
)

/**
 * The digest's schedule: a pass at start (catching up a day's digests after a restart), then one at
 * the start of every hour, when users' chosen hours come. Time is Effect's Clock (tests drive it with
 * TestClock). Every worker runs it; digest_sends makes the sends exact however many do.
 */
export const runDigestSchedule = pass.pipe(
  Effect.zipRight(
    Effect.forever(
      Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => Effect.sleep(untilNextHour(now))),
        Effect.zipRight(pass)
      )
    )
  )
)

/** The digest schedule of a worker process. */
export const DigestSchedulerLive = Layer.scopedDiscard(Effect.forkScoped(runDigestSchedule)).pipe(
  Layer.provide(DailyDigestLive)
)
