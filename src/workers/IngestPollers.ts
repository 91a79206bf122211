import { FetchHttpClient } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { Cause, Duration, Effect, Layer, Schedule } from "effect"
import { type PollOutcome, pollSchedule, SourceFailure, type SourceName } from "../domain/ingest/SourceFailure.js"
import type { AppConfig } from "../infra/config/AppConfig.js"
import { IngestConfig, IngestConfigLive } from "../infra/ingest/IngestConfig.js"
import { IngestState, POLLER_HEARTBEAT } from "../infra/ingest/IngestState.js"
import { type NoticeIntake, NoticeIntakeLive } from "../infra/ingest/NoticeIntake.js"
import { readSeapNoticeJob, SeapPoller, SeapPollerLive } from "../infra/ingest/SeapPoller.js"
import { readTedNoticeJob, TedPoller, TedPollerLive } from "../infra/ingest/TedPoller.js"
import { Metrics } from "../infra/metrics/Metrics.js"
import type { JobQueue } from "../infra/queue/JobQueue.js"
import { JobRunnerLive } from "../infra/queue/JobRunner.js"
import type { TenderStore } from "../infra/tenders/TenderStore.js"

/** The `Retry-After` a failed poll met, when the source asked for one (the next poll waits for it). */
const retryAfterOf = (cause: Cause.Cause<{ readonly message: string }>) => {
  const failure = Cause.failureOption(cause)
  return failure._tag === "Some" && failure.value instanceof SourceFailure ? failure.value.retryAfter : undefined
}

/** The message of a failed poll, on one line. */
const describe = (cause: Cause.Cause<{ readonly message: string }>) => {
  const failure = Cause.failureOption(cause)
  return failure._tag === "Some" ? failure.value.message : Cause.pretty(cause).split("\n")[0]!
}

/**
 * One source's poller: polls now, then as `pollSchedule` spaces the polls (INGEST_POLL_SECONDS,
 * backing off while the source fails, waiting out a long `Retry-After`). A failed poll is one log line and the source's `lastError`;
 * it never stops the loop nor touches the other source's. Each poller's poll holds its source's poll
 * lease (PollLease): one that finds another worker's poll of the source running is skipped.
 */
export const runPoller = <R>(source: SourceName, poll: Effect.Effect<void, { readonly message: string }, R>) =>
  Effect.gen(function* () {
    const config = yield* IngestConfig
    const state = yield* IngestState
    const metrics = yield* Metrics
    let failures = 0
    const once = poll.pipe(
      Effect.matchCauseEffect({
        onSuccess: () => {
          failures = 0
          return Effect.succeed<PollOutcome>({ consecutiveFailures: 0 })
        },
        onFailure: (cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          failures++
          metrics.ingestErrors.inc({ source })
          const message = describe(cause)
          return state
            .recordError(source, message)
            .pipe(
              Effect.zipRight(Effect.logWarning(`${source} poll failed (${failures} in a row): ${message}`)),
              Effect.as<PollOutcome>({ consecutiveFailures: failures, retryAfter: retryAfterOf(cause) })
            )
        }
      })
    )
    yield* Effect.repeat(once, pollSchedule(config.pollEvery))
  })

/**
 * Beside a source's poller, every POLLER_HEARTBEAT from its start: this worker polls the source (its
 * `enabled`), through back-offs, long Retry-After waits and long polls alike.
 */
const heartbeat = (source: SourceName) =>
  Effect.flatMap(IngestState, (state) =>
    state.heartbeat(source).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning(`${source} poller: its heartbeat failed`, cause)),
      Effect.repeat(Schedule.spaced(POLLER_HEARTBEAT))
    )
  )

/**
 * The pollers this worker runs (INGEST_SOURCES). The sources it does not poll are left alone: another
 * worker may poll them, and their `enabled` is that worker's heartbeat.
 */
const Pollers = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* IngestConfig
    for (const source of config.sources) yield* Effect.forkScoped(heartbeat(source))
    if (config.sources.includes("ted")) yield* Effect.forkScoped(runPoller("ted", (yield* TedPoller).poll))
    if (config.sources.includes("seap")) yield* Effect.forkScoped(runPoller("seap", (yield* SeapPoller).poll))
    if (config.sources.length > 0) {
      yield* Effect.logInfo(
        `Ingestion on: ${config.sources.join(", ")}, every ${Duration.format(config.pollEvery)} (TED ${config.tedApiUrl}, SEAP ${config.seapApiUrl})`
      )
    }
  })
)

/** Notices whose download failed during a poll, read again on their own schedule. */
const NoticeRetries = JobRunnerLive<NoticeIntake | TedPoller | SeapPoller | JobQueue>(
  [readTedNoticeJob, readSeapNoticeJob],
  {
    name: "ingest",
    concurrency: 2,
    lease: Duration.minutes(2),
    pollEvery: Duration.seconds(10)
  }
)

/** Live ingestion as configured by `config` (tests point it at their fake sources). */
export const IngestionWith = <E, R>(config: Layer.Layer<IngestConfig, E, R>) =>
  Layer.mergeAll(Pollers, NoticeRetries).pipe(
    Layer.provide(Layer.merge(TedPollerLive, SeapPollerLive)),
    Layer.provide(NoticeIntakeLive),
    Layer.provideMerge(config),
    Layer.provide(FetchHttpClient.layer)
  )

/**
 * Live ingestion in a worker process: the pollers of the sources in INGEST_SOURCES (none by
 * default, so nothing reaches a public host unless asked) and the retries of failed notices.
 */
export const IngestionLive: Layer.Layer<
  IngestConfig,
  unknown,
  IngestState | TenderStore | JobQueue | SqlClient.SqlClient | AppConfig
> = IngestionWith(IngestConfigLive)
