import { Duration, Effect, Layer, Schedule } from "effect"
import { makeSessionRetention } from "../infra/auth/SessionRetention.js"

/**
 * Deletes the login sessions over for a week, with their refresh tokens (SessionRetention), at start
 * and hourly. Every worker runs it; the sweeps take disjoint sessions, so several at once only share work.
 */
export const SessionSweeperLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const retention = yield* makeSessionRetention
    yield* retention.sweep.pipe(
      Effect.tap((n) => (n > 0 ? Effect.logInfo(`Deleted ${n} ended login session(s)`) : Effect.void)),
      Effect.catchAllCause((cause) => Effect.logWarning("Deleting ended login sessions failed", cause)),
      Effect.repeat(Schedule.spaced(Duration.hours(1))),
      Effect.forkScoped
    )
  })
)
