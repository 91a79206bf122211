import { type Duration, Effect, Stream } from "effect"

/**
 * Runs `pass` on every wake-up (NOTIFY) and every `pollEvery` (the safety net); wake-ups that arrive
 * during a pass collapse into one more pass. A pass that fails (a database outage) is logged and the
 * loop goes on, so the actor outlives it.
 */
export const runOnWakeups = <R>(
  label: string,
  wakeups: Stream.Stream<void>,
  pollEvery: Duration.DurationInput,
  pass: Effect.Effect<void, never, R>
): Effect.Effect<void, never, R> =>
  Stream.merge(wakeups, Stream.tick(pollEvery)).pipe(
    Stream.buffer({ capacity: 1, strategy: "dropping" }),
    Stream.runForEach(() =>
      pass.pipe(
        Effect.catchAllCause((cause) => Effect.logError(`${label}: pass failed; retrying on the next wake-up`, cause))
      )
    )
  )
