import { Clock, Effect } from "effect"

/** Effect's `Clock` as a Date, the form a timestamptz parameter takes (so tests move it with TestClock). */
export const clockNow = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
