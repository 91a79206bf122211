import { randomUUID } from "node:crypto"
import { SqlClient, type Statement } from "@effect/sql"
import {
  Cause,
  Clock,
  Data,
  Duration,
  Effect,
  Fiber,
  FiberRef,
  FiberSet,
  Layer,
  Option,
  Queue,
  Ref,
  Schedule,
  Schema,
  Stream
} from "effect"
import { Metrics } from "../metrics/Metrics.js"
import { currentRequest } from "../observability/RequestTrail.js"
import { parentFromTraceparent, tracingOn } from "../observability/Tracing.js"
import type { JobKind } from "./JobKind.js"
import { type ClaimInput, type Job, JobQueue } from "./JobQueue.js"

/**
 * The settlement of a run whose effect happened outside (an e-mail the SMTP server accepted, a webhook
 * answered): one statement recording the outcome with the job's settlement (`JobQueue.settlement`),
 * true when the job was still held. The runner makes it after the run, outside its timeout, and tries
 * it again while it fails, as a completion (`settlementRetries`): a dropped connection must not turn an
 * effect that happened into a failed attempt (an e-mail sent twice). One refused because the lease was
 * lost (false) is not retried: another claim has the job. So it must be safe to make again after a
 * failure: conditional on the lease (and on its own rows' state).
 */
export class SettleAfterRun extends Data.TaggedClass("SettleAfterRun")<{
  readonly settle: Effect.Effect<boolean, unknown>
}> {}

/** A run's result that settles its job with `settle` (see `SettleAfterRun`), run with the run's services. */
export const settleAfterRun = <R>(settle: Effect.Effect<boolean, unknown, R>) =>
  Effect.map(Effect.context<R>(), (context) => new SettleAfterRun({ settle: Effect.provide(settle, context) }))

/**
 * What a handler's run ends with: `completed` (the runner marks the job done), `settled` (the handler
 * already settled the job with `JobQueue.settlement`, in one statement with its own rows), or the
 * settlement for the runner to make (`SettleAfterRun`).
 */
export type RunResult = "completed" | "settled" | SettleAfterRun

/** How a consumer works on one kind: its run, and what its dead letter undoes (a report's hold). */
export interface JobHandler<R> {
  readonly kind: JobKind<unknown, unknown>
  /** `started`: what the claim's `start` returned for this job (none when it started nothing). */
  readonly run: (job: Job, started: Option.Option<unknown>) => Effect.Effect<RunResult, unknown, R>
  /**
   * Starts the work of this kind's claimed jobs in the claim's own statement (`ClaimInput.start`),
   * instead of one more round trip per claim. A runner has at most one handler with a start.
   */
  readonly start: Option.Option<Effect.Effect<Statement.Fragment, never, R>>
  /**
   * Runs in the transaction that dead-letters the job. When it fails, that transaction is rolled back
   * and the job is dead-lettered without it (its error added to `last_error`, logged as an error):
   * a job whose undo keeps failing must not be claimed again for ever.
   */
  readonly onDead: (job: Job, error: string) => Effect.Effect<void, unknown, R>
}

/** A handler of `kind`: its payload decoded with the kind's Schema (an undecodable job is dead at once). */
export const handle = <A, I, R = never, R2 = never>(
  kind: JobKind<A, I>,
  /**
   * Returns `"settled"` when it settled the job itself, a `SettleAfterRun` for the runner to settle it;
   * anything else completes it.
   */
  run: (payload: A, job: Job<A>) => Effect.Effect<unknown, unknown, R>,
  onDead?: (payload: A, job: Job<A>, error: string) => Effect.Effect<void, unknown, R2>
): JobHandler<R | R2> => handleStarted(kind, { run: (payload, job) => run(payload, job), onDead })

/**
 * A handler whose jobs' work starts in the claim (`start`): each run gets what the start returned for
 * its job, or none when it started nothing for it.
 */
export const handleStarted = <A, I, R = never, R2 = never, R3 = never>(
  kind: JobKind<A, I>,
  options: {
    readonly start?: Effect.Effect<Statement.Fragment, never, R3>
    readonly run: (payload: A, job: Job<A>, started: Option.Option<unknown>) => Effect.Effect<unknown, unknown, R>
    readonly onDead?: ((payload: A, job: Job<A>, error: string) => Effect.Effect<void, unknown, R2>) | undefined
  }
): JobHandler<R | R2 | R3> => {
  const decode = Schema.decodeUnknown(kind.payload)
  const { start, run, onDead } = options
  return {
    kind: kind as JobKind<unknown, unknown>,
    run: (job, started) =>
      decode(job.payload).pipe(
        Effect.mapError((error) => new UndecodablePayload({ message: String(error) })),
        Effect.flatMap((payload) => run(payload, { ...job, payload }, started)),
        Effect.map(
          (result): RunResult =>
            result === "settled" ? "settled" : result instanceof SettleAfterRun ? result : "completed"
        )
      ),
    start: Option.fromNullable(start),
    onDead: (job, error) =>
      onDead === undefined
        ? Effect.void
        : Effect.flatMap(Effect.option(decode(job.payload)), (payload) =>
            Option.isSome(payload) ? onDead(payload.value, { ...job, payload: payload.value }, error) : Effect.void
          )
  }
}

class UndecodablePayload extends Schema.TaggedError<UndecodablePayload>()("UndecodablePayload", {
  message: Schema.String
}) {}

/**
 * A failure no retry can mend (a mail server's permanent refusal): the job is dead-lettered at once,
 * whatever attempts it has left, with `reason` as its error.
 */
export class PermanentFailure extends Data.TaggedError("PermanentFailure")<{ readonly reason: string }> {}

/** A handler's `onDead` failed: the burial it ran in is rolled back and done again without it. */
class DeadLetterStepFailed extends Data.TaggedError("DeadLetterStepFailed")<{
  readonly failure: Cause.Cause<unknown>
}> {}

export interface RunnerOptions {
  /** Names the runner in its logs. */
  readonly name: string
  /** Jobs run at once by this runner. */
  readonly concurrency: number
  /** Jobs of one group (`groupKey`) run at once by this runner; unbounded when unset. */
  readonly perGroup?: number
  /**
   * How long a claim is held without a heartbeat: the heartbeat renews it every third of it while the
   * job runs, so it runs out only when the worker stopped (then the reaper hands the job on).
   */
  readonly lease: Duration.DurationInput
  /**
   * How long a stopping runner (SIGTERM) waits for its jobs in hand to finish and be recorded. The
   * runs still going then (all of them when unset) are interrupted and their jobs handed back to
   * the queue at once, due now and the attempt not counted, instead of waiting out their leases.
   */
  readonly finishOnShutdown?: Duration.DurationInput
  /** The safety net when no NOTIFY arrives; a retry that falls due is woken by its own timer. */
  readonly pollEvery: Duration.DurationInput
  readonly reapEvery?: Duration.DurationInput
}

/**
 * A failed completion (or `SettleAfterRun` settlement) is tried again after 0.1, 0.2, 0.4 s …, then every
 * 5 s (on the Effect clock), for as long as a run of its kind may last: a database away for a while
 * (restarting, failing over) must not turn a run that succeeded into one more claim, which on its
 * last attempt was a dead letter.
 */
const settlementRetries = (kind: JobKind<unknown, unknown>) =>
  Schedule.exponential(Duration.millis(100)).pipe(
    Schedule.union(Schedule.spaced(Duration.seconds(5))),
    Schedule.upTo(kind.timeout)
  )

/**
 * `run` for at most `timeout`, then a failed attempt (`timed out after …`). Past the timeout the run is
 * told to stop but not waited for: one that cannot be interrupted (an uninterruptible region, a
 * blocking call) goes on in the background, its result ignored, instead of keeping its slot and its
 * attempt unsettled until it ends by itself. An interruption from outside (shutdown) still waits for
 * the run to stop, so a job is handed back only once its run has ended.
 */
const withinTimeout = <A, E, R>(run: Effect.Effect<A, E, R>, timeout: Duration.Duration) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDaemon(restore(run)), (fiber) =>
      restore(Fiber.join(fiber)).pipe(
        Effect.timeoutFail({ duration: timeout, onTimeout: () => `timed out after ${Duration.format(timeout)}` }),
        // Timed out (or interrupted): the run is told to stop; a run that already ended ignores it.
        Effect.tapErrorCause(() => Fiber.interruptFork(fiber)),
        Effect.onInterrupt(() => Fiber.interrupt(fiber))
      )
    )
  )

/** Scheduler turns before a claim, so the jobs that finish together free their slots for one claim. */
const BATCH_YIELDS = 8

/**
 * How a run ended: done, due again (retry), dead-lettered, its lease lost to another worker, or
 * settled by its handler with its own rows (a webhook delivery records its outcome itself).
 */
type JobOutcome = "done" | "retry" | "dead" | "lost" | "settled"

/**
 * A job's run as the operator sees it: the job's span (a child of the span that enqueued it, when
 * tracing is on), its logs annotated with the job and the request that caused it (the request id
 * also goes on to the jobs it enqueues), and one line and one count per outcome.
 */
const observeJob =
  (job: Job) =>
  <E, R>(run: Effect.Effect<JobOutcome, E, R>): Effect.Effect<JobOutcome, E, R> => {
    const started = performance.now()
    const recorded = run.pipe(
      Effect.tap((outcome) =>
        Effect.flatMap(Metrics, (metrics) => {
          metrics.jobOutcomes.inc({ kind: job.kind, outcome })
          const line = { outcome, attempt: job.attempts, duration_ms: Math.round(performance.now() - started) }
          const log = outcome === "dead" || outcome === "lost" ? Effect.logWarning("job") : Effect.logInfo("job")
          return Effect.annotateLogs(log, line)
        })
      ),
      Effect.annotateLogs({
        job_id: job.id,
        kind: job.kind,
        ...(job.requestId === null ? {} : { request_id: job.requestId })
      })
    )
    const inRequest =
      job.requestId === null
        ? recorded
        : Effect.locally(recorded, currentRequest, { requestId: job.requestId, tenantId: undefined })
    return Effect.flatMap(FiberRef.get(tracingOn), (on) =>
      on
        ? Effect.withSpan(inRequest, `job ${job.kind}`, {
            kind: "consumer",
            attributes: { "job.id": job.id, "job.kind": job.kind, "job.attempt": job.attempts },
            ...(job.traceparent === null
              ? {}
              : Option.match(parentFromTraceparent(job.traceparent), {
                  onNone: () => ({}),
                  onSome: (parent) => ({ parent })
                }))
          })
        : inRequest
    )
  }

/** What went wrong, short enough to store as `last_error`: a failure's text, or the cause's first line. */
const describe = (cause: Cause.Cause<unknown>) => {
  const failure = Option.getOrUndefined(Cause.failureOption(cause))
  const text =
    typeof failure === "string"
      ? failure
      : failure instanceof PermanentFailure
        ? failure.reason
        : Cause.pretty(cause).split("\n")[0]!
  return text.slice(0, 500)
}

/**
 * The consumer loop of the queue, one per capability in a worker process: claims due jobs of its
 * kinds while it has room (bounded in all and per group), runs each in its own fiber for at most
 * its kind's `timeout`, and settles it: done, retried after the kind's Schedule, or dead-lettered
 * with the handler's `onDead` in the same transaction. It is woken by NOTIFY for its kinds, by a
 * finishing job and by the timer of the next due retry, with polling as the safety net; a reaper
 * returns the jobs of dead workers, and a stopping runner hands back its own (`finishOnShutdown`).
 * A job claimed more often than its kind allows (its workers kept dying) is dead-lettered unrun.
 */
export const makeJobRunner = <R>(handlers: ReadonlyArray<JobHandler<R>>, options: RunnerOptions) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope
    const workerId = `${options.name}-${randomUUID()}`
    const byKind = new Map(handlers.map((handler) => [handler.kind.name, handler]))
    const kinds = [...byKind.keys()]
    const priorities = new Map(handlers.map((handler) => [handler.kind.name, handler.kind.priority]))
    const lease = Duration.decode(options.lease)
    const pollEvery = Duration.decode(options.pollEvery)

    /** Jobs in flight per group ("" for jobs without one). */
    const inFlight = yield* Ref.make(new Map<string, number>())
    const total = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)
    /**
     * The jobs in hand by id, whose leases the heartbeat renews. A plain map, changed only where a job is
     * claimed and where its fiber ends: a job whose settlement failed is left out with its fiber, so
     * its lease runs out and the reaper hands it on.
     */
    const held = new Map<string, Job>()
    /**
     * Jobs whose run timed out but could not be stopped (an uninterruptible region, a blocking call):
     * their attempt is settled and their slot freed, and the run goes on in the background until it
     * ends, its result ignored. Never claimed again by this runner beside it (see `claim`).
     */
    const strays = new Set<string>()
    const wake = yield* Queue.sliding<void>(1)
    /** Signalled whenever a job ends, for shutdown's wait for the jobs in hand. */
    const ended = yield* Queue.sliding<void>(1)
    /** When the pump last looked for due jobs: anything due by then was claimable or bounded. */
    const lastClaimAt = yield* Ref.make(0)
    /** The fibers of the jobs in hand, for shutdown (see `stop`). */
    const running = yield* FiberSet.make<unknown>()

    /** Completes once no job is in flight. */
    const idle: Effect.Effect<void> = Effect.flatMap(Ref.get(inFlight), (m) =>
      total(m) === 0 ? Effect.void : Effect.zipRight(Queue.take(ended), idle)
    )

    const adjust = (group: string, by: number) =>
      Ref.update(inFlight, (m) => {
        const next = new Map(m)
        const n = (next.get(group) ?? 0) + by
        if (n > 0) next.set(group, n)
        else next.delete(group)
        return next
      })

    /** Takes a claimed job in hand: counted in its group and kept alive by the heartbeat. */
    const take = (job: Job) => {
      held.set(job.id, job)
      return adjust(job.groupKey ?? "", 1)
    }

    const bury = (handler: JobHandler<R>, job: Job, error: string) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            if (!(yield* queue.settle(job, { _tag: "dead", error }))) return "lost" as const
            yield* handler
              .onDead(job, error)
              .pipe(Effect.catchAllCause((failure) => new DeadLetterStepFailed({ failure })))
            return "dead" as const
          })
        )
        .pipe(
          // Rolled back with its undo: dead-lettered alone, or the job would be reaped and buried again
          // at every lease, for ever.
          Effect.catchTag("DeadLetterStepFailed", ({ failure }) =>
            Effect.gen(function* () {
              yield* Effect.logError(`Job ${job.kind} #${job.id}: its dead-letter step failed`, failure)
              const buried = yield* queue.settle(job, {
                _tag: "dead",
                error: `${error}; dead-letter step failed: ${describe(failure)}`
              })
              return buried ? ("dead" as const) : ("lost" as const)
            })
          )
        )

    const fail = (handler: JobHandler<R>, job: Job, cause: Cause.Cause<unknown>) =>
      Effect.gen(function* () {
        const error = describe(cause)
        const permanent = Cause.failureOption(cause).pipe(
          Option.exists((e) => e instanceof UndecodablePayload || e instanceof PermanentFailure)
        )
        const next = permanent ? { _tag: "dead" as const, error } : yield* queue.failureOf(handler.kind, job, error)
        const outcome =
          next._tag === "dead"
            ? yield* bury(handler, job, error)
            : (yield* queue.settle(job, next))
              ? ("retry" as const)
              : ("lost" as const)
        yield* Effect.logWarning(`Job ${job.kind} #${job.id}, attempt ${job.attempts} failed (${next._tag})`, cause)
        return outcome
      })

    /** `settle` tried again while it fails (its error or its defect), for as long as a run of the kind may last. */
    const retried = (
      handler: JobHandler<R>,
      settle: Effect.Effect<boolean, unknown>
    ): Effect.Effect<boolean, unknown> =>
      settle.pipe(Effect.sandbox, Effect.retry(settlementRetries(handler.kind)), Effect.unsandbox)

    /**
     * Marks a run's job done, tried again while it fails (`settlementRetries`): a dropped connection,
     * a statement timeout or a database restarting must not undo work that succeeded. The job stays in
     * hand meanwhile, its lease renewed by the heartbeat whenever the database answers; one the reaper
     * returned all the same is still completed while nobody has claimed it since (`JobQueue.complete`),
     * and this runner does not claim it beside its completion. One that fails for good is logged
     * (`settling failed`) and its job left to the reaper, like any failed settlement.
     */
    const complete = (handler: JobHandler<R>, job: Job): Effect.Effect<JobOutcome, unknown> =>
      Effect.map(retried(handler, queue.complete(job)), (held) => (held ? "done" : "lost"))

    /**
     * A handler's own settlement after its effect happened, tried again while it fails, the job kept in
     * hand as for `complete`; refused (the lease lost), it is not retried. One that fails for good is
     * logged (`settling failed`) and its job left to the reaper.
     */
    const settleAfter = (handler: JobHandler<R>, { settle }: SettleAfterRun): Effect.Effect<JobOutcome, unknown> =>
      Effect.map(retried(handler, settle), (held) => (held ? "settled" : "lost"))

    const runOne = (job: Job, started: Option.Option<unknown>) => {
      const handler = byKind.get(job.kind)!
      let runEnded = false
      const work =
        job.attempts > handler.kind.maxAttempts
          ? bury(handler, job, job.lastError ?? "attempts used up")
          : handler.run(job, started).pipe(
              Effect.ensuring(
                Effect.sync(() => {
                  runEnded = true
                  strays.delete(job.id)
                })
              ),
              // A hung run fails like any other (retried, then dead) and frees its slot: its heartbeat
              // would renew its lease for ever. On the Effect clock (tests move it with TestClock).
              (run) => withinTimeout(run, handler.kind.timeout),
              // Only the run's failure is a failed attempt: a run that succeeded is never retried or
              // dead-lettered (with its undo) because its completion failed.
              Effect.matchCauseEffect({
                onFailure: (cause) => fail(handler, job, cause),
                onSuccess: (result): Effect.Effect<JobOutcome, unknown> =>
                  result === "completed"
                    ? complete(handler, job)
                    : result === "settled"
                      ? Effect.succeed("settled")
                      : settleAfter(handler, result)
              })
            )
      return work.pipe(
        observeJob(job),
        Effect.catchAllCause((cause) => Effect.logError(`Job ${job.kind} #${job.id}: settling failed`, cause)),
        Effect.ensuring(
          Effect.suspend(() => {
            if (!runEnded && job.attempts <= handler.kind.maxAttempts) strays.add(job.id)
            held.delete(job.id)
            return adjust(job.groupKey ?? "", -1).pipe(
              Effect.zipRight(Queue.offer(wake, undefined)),
              Effect.zipRight(Queue.offer(ended, undefined))
            )
          })
        )
      )
    }

    const settle = Effect.yieldNow().pipe(Effect.repeatN(BATCH_YIELDS))

    // The heartbeat: every third of the lease, one statement renews the leases of all the jobs in
    // hand, so a long job keeps its claim while its worker lives; a dead worker stops renewing them.
    // (One per runner, not a timer raced beside every job: that cost ~80 µs of CPU per job.)
    yield* Effect.suspend(() => queue.extend([...held.values()], lease)).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning(`${options.name} runner: renewing leases failed`, cause)),
      Effect.repeat(Schedule.spaced(Duration.times(lease, 1 / 3))),
      Effect.delay(Duration.times(lease, 1 / 3)),
      Effect.forkIn(scope)
    )

    const starts = handlers.flatMap((handler) => Option.toArray(handler.start))
    if (starts.length > 1)
      return yield* Effect.dieMessage(`${options.name} runner: more than one handler starts its jobs in the claim`)
    /** The claim of up to `limit` jobs, with the start of their work when a handler has one. */
    const claim = (limit: number, perGroup: Pick<ClaimInput, "perGroup" | "inFlight">) =>
      Effect.flatMap(starts.length === 0 ? Effect.succeed(undefined) : starts[0]!, (start) =>
        queue.claim({
          kinds,
          priorities,
          workerId,
          limit,
          lease,
          running: [...held.keys(), ...strays],
          ...perGroup,
          ...(start === undefined ? {} : { start })
        })
      )

    /** Claims while there is room and something due; each job runs in its own fiber. */
    const pump: Effect.Effect<void, never, R> = Effect.gen(function* () {
      yield* settle
      yield* Ref.set(lastClaimAt, yield* Clock.currentTimeMillis)
      const more = yield* Effect.uninterruptible(
        Effect.gen(function* () {
          const current = yield* Ref.get(inFlight)
          const room = options.concurrency - total(current)
          if (room <= 0) return false
          const claimed = yield* claim(
            room,
            options.perGroup === undefined ? {} : { perGroup: options.perGroup, inFlight: current }
          )
          for (const job of claimed.jobs) {
            yield* take(job)
            // Interruptible inside (a job's own races and timeouts need it); shutdown awaits or
            // interrupts it (see `stop` below).
            yield* FiberSet.run(
              running,
              Effect.interruptible(runOne(job, Option.fromNullable(claimed.started.get(job.id))))
            )
          }
          // Claim again only when the scan may have stopped short of due jobs.
          return claimed.jobs.length > 0 && (claimed.more || claimed.jobs.length === room)
        })
      )
      if (more) yield* pump
    })

    /** Sleeps until the next due job (or the polling interval), unless woken earlier. */
    const waitForWork = Effect.gen(function* () {
      if ((yield* Queue.poll(wake))._tag === "Some") return
      const nextDue = yield* queue.nextDueAt(kinds)
      const now = yield* Clock.currentTimeMillis
      const lookedAt = yield* Ref.get(lastClaimAt)
      // A job due when the pump looked was left because its group (or this runner) is at its bound:
      // a finishing job wakes the loop, so only a later due time sets a timer.
      const untilDue = Option.match(nextDue, {
        onNone: () => pollEvery,
        onSome: (at) => (at > lookedAt ? Duration.min(pollEvery, Duration.millis(Math.max(0, at - now))) : pollEvery)
      })
      yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(untilDue))
    })

    // A failing round (the database away) is logged and retried: the runner outlives outages.
    const survive = (what: string) => (cause: Cause.Cause<never>) =>
      Effect.zipRight(
        Effect.logError(`${options.name} runner: ${what} failed`, cause),
        Effect.sleep(Duration.seconds(1))
      )

    /** One pass without the loop: claims and runs due jobs until none is left; how many it ran. */
    const drainDue: Effect.Effect<number, never, R> = Effect.gen(function* () {
      let ran = 0
      while (true) {
        const { jobs, started } = yield* claim(options.concurrency, {})
        yield* Effect.forEach(
          jobs,
          (job) => Effect.zipRight(take(job), runOne(job, Option.fromNullable(started.get(job.id)))),
          {
            concurrency: "unbounded",
            discard: true
          }
        )
        ran += jobs.length
        if (jobs.length < options.concurrency) return ran
      }
    })

    /**
     * Shutdown, once no claim starts any more: with `finishOnShutdown` the jobs in hand may finish and
     * be recorded for that long; the runs still going are then interrupted and their jobs handed back
     * at once (due now, the attempt not counted), not left `running` until their leases run out.
     */
    const stop = Effect.gen(function* () {
      if (options.finishOnShutdown !== undefined) {
        // In a fiber of its own: a finalizer is uninterruptible, so the timeout could not stop the wait.
        yield* idle.pipe(
          Effect.timeout(options.finishOnShutdown),
          Effect.ignore,
          Effect.interruptible,
          Effect.forkDaemon,
          Effect.flatMap(Fiber.join)
        )
      }
      const inHand = [...held.values()]
      if (inHand.length === 0) return
      yield* Fiber.interruptAll(Array.from(running))
      // Conditional on the lease: a job that ended meanwhile, or went to another worker, is left alone.
      const released = yield* queue.release(inHand)
      if (released > 0) yield* Effect.logInfo(`${options.name} runner: handed back ${released} job(s) in hand`)
    }).pipe(
      Effect.catchAllCause((cause) => Effect.logError(`${options.name} runner: handing back its jobs failed`, cause))
    )

    const start = Effect.gen(function* () {
      if (kinds.length === 0) return
      // Registered first, so it runs last: once the loops below are stopped (no new claim). The
      // heartbeat, started before, still renews the leases meanwhile.
      yield* Effect.addFinalizer(() => stop)
      yield* queue.wakeups(kinds).pipe(
        Stream.runForEach(() => Queue.offer(wake, undefined)),
        Effect.forkIn(scope)
      )
      yield* Effect.zipRight(pump, waitForWork).pipe(
        Effect.catchAllCause(survive("claim round")),
        Effect.forever,
        Effect.forkIn(scope)
      )
      yield* queue.reap.pipe(
        Effect.tap((n) => (n > 0 ? Effect.logWarning(`Returned ${n} expired job(s) to the queue`) : Effect.void)),
        Effect.catchAllCause(survive("reaper")),
        Effect.repeat(
          Schedule.spaced(options.reapEvery ?? Duration.min(Duration.seconds(15), Duration.times(lease, 0.5)))
        ),
        Effect.forkIn(scope)
      )
      yield* Effect.logInfo(`${options.name} runner ${workerId} handles: ${kinds.join(", ")}`)
    })

    return { start, drainDue }
  })

/** One pass of a runner's work (no loop, no reaper): for tests and one-off tools. */
export const drainDueJobs = <R>(handlers: ReadonlyArray<JobHandler<R>>, options: RunnerOptions) =>
  Effect.scoped(Effect.flatMap(makeJobRunner(handlers, options), (runner) => runner.drainDue))

/** The runner as a layer of a worker process. */
export const JobRunnerLive = <R>(
  handlers: ReadonlyArray<JobHandler<R>>,
  options: RunnerOptions
): Layer.Layer<never, never, JobQueue | SqlClient.SqlClient | R> =>
  Layer.scopedDiscard(Effect.flatMap(makeJobRunner(handlers, options), (runner) => runner.start))
