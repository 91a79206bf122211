import { Clock, Duration, Effect } from "effect"
import type { SourceFailure } from "../../domain/ingest/SourceFailure.js"
import type { JobKind } from "../queue/JobKind.js"
import { type Job, JobQueue } from "../queue/JobQueue.js"

/**
 * A notice job's attempt. One that met the source's `Retry-After` (its own 429 or 503, or a wait
 * another worker's request met, `ingest_sources.blocked_until`) is due again no earlier than that
 * wait's end: the kind's next retry (1, 2, 4 … minutes) would only meet it again. Any other failure
 * fails the attempt with its message, for the kind's schedule.
 */
export const retriedAfterSourceWait =
  <A, I>(kind: JobKind<A, I>, job: Job<A>) =>
  <B, R>(attempt: Effect.Effect<B, SourceFailure, R>): Effect.Effect<B | "settled", string, R | JobQueue> =>
    Effect.catchAll(attempt, (failure) =>
      Effect.gen(function* () {
        if (failure.retryAfter === undefined) return yield* Effect.fail(failure.message)
        const queue = yield* JobQueue
        const next = yield* queue.failureOf(kind, job, failure.message)
        // Attempts used up: the runner dead-letters it as any failure.
        if (next._tag !== "retry") return yield* Effect.fail(failure.message)
        const waited = (yield* Clock.currentTimeMillis) + Duration.toMillis(failure.retryAfter)
        const at = new Date(Math.max(next.at.getTime(), waited))
        yield* queue.settle(job, { ...next, at })
        yield* Effect.logWarning(`${kind.name} #${job.id}: ${failure.message}; due again at ${at.toISOString()}`)
        return "settled" as const
      })
    )
