import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import {
  Clock,
  Deferred,
  Duration,
  Effect,
  Fiber,
  Layer,
  Option,
  Queue,
  Ref,
  Schedule,
  Schema,
  TestClock,
  TestServices
} from "effect"
import { delayAfterFailure, JobRetrySchedule, MailRetrySchedule } from "../../src/domain/Retries.js"
import { type JobKind, jobKind, untypedJobKind } from "../../src/infra/queue/JobKind.js"
import { type Job, JobQueue } from "../../src/infra/queue/JobQueue.js"
import { drainDueJobs, handle, JobRunnerLive } from "../../src/infra/queue/JobRunner.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { WorkerLive } from "../../src/workers/Worker.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

const statusOf = (jobId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ status: string; attempts: number }>`SELECT status, attempts FROM jobs WHERE id = ${jobId}`
  ).pipe(Effect.map((rows) => rows[0]!))

const runAtOf = (jobId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ run_at: Date }>`SELECT run_at FROM jobs WHERE id = ${jobId}`).pipe(
    Effect.map((rows) => rows[0]!.run_at.getTime())
  )

const claimOne = (kind: JobKind<unknown>, lease: Duration.DurationInput = "1 minute") =>
  Effect.flatMap(JobQueue, (queue) => queue.claim({ kinds: [kind.name], workerId: "w", limit: 1, lease })).pipe(
    Effect.map(({ jobs }): Job | undefined => jobs[0])
  )

/** Fails a held job the way the runner does: retried after the kind's delay, or dead. */
const fail = (kind: JobKind<unknown>, job: Job, error: string) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const next = yield* queue.failureOf(kind, job, error)
    yield* queue.settle(job, next)
    return next._tag === "retry" ? "retrying" : "failed"
  })

const Once = untypedJobKind("test.once")
const Notify = untypedJobKind("test.notify")
const Delayed = untypedJobKind("test.delayed")
const Failing = untypedJobKind("test.fail", { maxAttempts: 3 })
const Crash = untypedJobKind("test.crash")
const Flaky = untypedJobKind("test.flaky")
const Long = untypedJobKind("test.long")
const Hangs = untypedJobKind("test.hangs", { maxAttempts: 2, timeout: "5 minutes" })
const Other = untypedJobKind("test.other")
const Stuck = untypedJobKind("test.stuck", { maxAttempts: 2, timeout: "5 minutes" })

const millis = (delay: Option.Option<Duration.Duration>) => Option.map(delay, Duration.toMillis)

describe("job queue", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a job is claimed by exactly one of two concurrent claimers", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue(Once, { n: 1 })
        const claims = yield* Effect.all(
          ["a", "b"].map((workerId) =>
            queue.claim({ kinds: [Once.name], workerId, limit: 10, lease: Duration.minutes(1) })
          ),
          { concurrency: 2 }
        )
        const claimed = claims.flatMap((claim) => claim.jobs)
        expect(claimed.map((job) => job.id)).toEqual([id])
        expect(yield* queue.complete(claimed[0]!)).toBe(true)
        expect(yield* statusOf(id)).toEqual({ status: "done", attempts: 1 })
      })
    )

    it.effect("a running worker picks up a job as soon as it is enqueued (LISTEN/NOTIFY)", () =>
      Effect.gen(function* () {
        const handled = yield* Deferred.make<unknown>()
        yield* Layer.launch(
          WorkerLive({
            handlers: [handle(Notify, (payload) => Deferred.succeed(handled, payload))],
            pollEvery: Duration.minutes(10)
          })
        ).pipe(Effect.forkScoped)
        yield* Effect.sleep(Duration.millis(300))
        yield* (yield* JobQueue).enqueue(Notify, { hello: "world" })
        const payload = yield* Deferred.await(handled).pipe(Effect.timeout(Duration.seconds(5)))
        expect(payload).toEqual({ hello: "world" })
      }).pipe(Effect.scoped)
    )

    it.effect("after its LISTEN connection drops (a PostgreSQL restart, a cut), the worker listens again", () =>
      Effect.gen(function* () {
        const handled = yield* Queue.unbounded<unknown>()
        yield* Layer.launch(
          WorkerLive({
            handlers: [handle(Notify, (payload) => Queue.offer(handled, payload))],
            // Only NOTIFY can wake the runner within the test's time.
            pollEvery: Duration.minutes(10)
          })
        ).pipe(Effect.forkScoped)
        yield* Effect.sleep(Duration.millis(300))
        const queue = yield* JobQueue
        yield* queue.enqueue(Notify, { n: 1 })
        expect(yield* Queue.take(handled).pipe(Effect.timeout(Duration.seconds(5)))).toEqual({ n: 1 })

        const sql = yield* SqlClient.SqlClient
        const listeners = sql<{ pid: number }>`
          SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'`
        const [dropped] = yield* listeners
        expect(dropped).toBeDefined()
        yield* sql`SELECT pg_terminate_backend(${dropped!.pid})`
        // Listening again, on another connection, within a second or two.
        yield* listeners.pipe(
          Effect.repeat({
            schedule: Schedule.spaced("100 millis"),
            until: (rows) => rows.length === 1 && rows[0]!.pid !== dropped!.pid
          }),
          Effect.timeout(Duration.seconds(10))
        )
        yield* queue.enqueue(Notify, { n: 2 })
        expect(yield* Queue.take(handled).pipe(Effect.timeout(Duration.seconds(5)))).toEqual({ n: 2 })
      }).pipe(Effect.scoped)
    )
  })

  layer(TestLayer, { excludeTestServices: true })("claims under concurrency and per group", (it) => {
    it.effect("200 jobs claimed by 4 concurrent claimers: each exactly once", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const Many = untypedJobKind("test.many")
        yield* queue.enqueueAll(
          Many,
          Array.from({ length: 200 }, (_, n) => ({ payload: { n } }))
        )
        const claimer = (workerId: string) =>
          Effect.gen(function* () {
            const ids: Array<string> = []
            while (true) {
              const { jobs } = yield* queue.claim({ kinds: [Many.name], workerId, limit: 7, lease: "1 minute" })
              if (jobs.length === 0) return ids
              ids.push(...jobs.map((job) => job.id))
            }
          })
        const claimed = (yield* Effect.all(["a", "b", "c", "d"].map(claimer), { concurrency: 4 })).flat()
        expect(claimed).toHaveLength(200)
        expect(new Set(claimed).size).toBe(200)
      })
    )

    it.effect("a kind of a higher priority is claimed first; FIFO within a priority", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const Bulk = untypedJobKind("test.bulk")
        const Backfill = untypedJobKind("test.backfill-like")
        const Urgent = untypedJobKind("test.urgent", { priority: 10 })
        const bulk = yield* Effect.forEach([1, 2, 3], (n) => queue.enqueue(Bulk, { n }))
        const backfill = yield* queue.enqueue(Backfill, {})
        const urgent = yield* Effect.forEach([1, 2], (n) => queue.enqueue(Urgent, { n }))
        const kinds = [Bulk, Backfill, Urgent]
        const priorities = new Map(kinds.map((kind) => [kind.name, kind.priority]))
        const claimed: Array<string> = []
        while (true) {
          const { jobs } = yield* queue.claim({
            kinds: kinds.map((kind) => kind.name),
            priorities,
            workerId: "w",
            limit: 2,
            lease: "1 minute"
          })
          if (jobs.length === 0) break
          claimed.push(...jobs.map((job) => job.id))
        }
        expect(claimed).toEqual([...urgent, ...bulk, backfill])
      })
    )

    it.effect("a runner runs its kinds' due jobs by priority: the urgent job queued last runs first", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const Batch = untypedJobKind("test.batch")
        const Edit = untypedJobKind("test.edit", { priority: 10 })
        yield* Effect.forEach([1, 2, 3], (n) => queue.enqueue(Batch, { n }))
        yield* queue.enqueue(Edit, { n: 4 })
        const runs: Array<unknown> = []
        const record = (payload: unknown) => Effect.sync(() => runs.push(payload))
        yield* drainDueJobs([handle(Batch, record), handle(Edit, record)], {
          name: "t",
          concurrency: 1,
          lease: "1 minute",
          pollEvery: "1 minute"
        })
        expect(runs).toEqual([{ n: 4 }, { n: 1 }, { n: 2 }, { n: 3 }])
      })
    )

    it.effect(
      "a group gets at most its bound, less what the worker already runs of it; other groups are not held up",
      () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue
          const Grouped = untypedJobKind("test.grouped")
          yield* queue.enqueueAll(Grouped, [
            ...Array.from({ length: 5 }, () => ({ payload: {}, groupKey: "slow" })),
            ...Array.from({ length: 2 }, () => ({ payload: {}, groupKey: "fast" }))
          ])
          const claim = (inFlight: ReadonlyMap<string, number>) =>
            queue.claim({ kinds: [Grouped.name], workerId: "w", limit: 10, lease: "1 minute", perGroup: 2, inFlight })
          const first = yield* claim(new Map())
          expect(first.jobs.map((job) => job.groupKey).sort()).toEqual(["fast", "fast", "slow", "slow"])
          expect((yield* claim(new Map([["slow", 2]]))).jobs).toEqual([])
          const next = yield* claim(new Map([["slow", 1]]))
          expect(next.jobs.map((job) => job.groupKey)).toEqual(["slow"])
        })
    )

    it.effect(
      "unlessQueued: a job of the group still queued stands for later ones (two at once too); a claimed one does not",
      () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue
          const sql = yield* SqlClient.SqlClient
          const Subject = untypedJobKind("test.subject")
          const once = (group: string) => ({ groupKey: group, unlessQueued: true }) as const
          const queued = (group: string) =>
            sql<{ n: number }>`
              SELECT count(*)::int AS n FROM jobs WHERE kind = ${Subject.name} AND group_key = ${group} AND status = 'queued'`.pipe(
              Effect.map(([row]) => row!.n)
            )
          const first = yield* queue.enqueue(Subject, {}, once("a"))
          expect(yield* queue.enqueue(Subject, {}, once("a"))).toBe(first)
          expect(yield* queue.enqueue(Subject, {}, once("b"))).not.toBe(first)
          expect(yield* queued("a")).toBe(1)

          // Two transactions at once: the second waits for the first's job and takes it.
          const both = yield* Effect.all(
            ["c", "c"].map((group) =>
              sql.withTransaction(Effect.zipLeft(queue.enqueue(Subject, {}, once(group)), Effect.sleep("200 millis")))
            ),
            { concurrency: 2 }
          )
          expect(both[0]).toBe(both[1])
          expect(yield* queued("c")).toBe(1)

          // While the enqueuing transaction is open, its queued job is locked: a claim skips it, so
          // the run starts after the change it stands for has committed.
          const inTransaction = yield* Deferred.make<void>()
          const claimer = yield* Deferred.await(inTransaction).pipe(
            Effect.zipRight(queue.claim({ kinds: [Subject.name], workerId: "w", limit: 10, lease: "1 minute" })),
            Effect.fork
          )
          const claimedMeanwhile = yield* sql.withTransaction(
            queue
              .enqueue(Subject, {}, once("a"))
              .pipe(Effect.zipRight(Deferred.succeed(inTransaction, undefined)), Effect.zipRight(Fiber.join(claimer)))
          )
          expect(claimedMeanwhile.jobs.map((job) => job.groupKey).sort()).toEqual(["b", "c"])

          // Claimed (running), it no longer stands for later ones: it may have read its subject already.
          const { jobs } = yield* queue.claim({ kinds: [Subject.name], workerId: "w", limit: 10, lease: "1 minute" })
          expect(jobs.map((job) => job.id)).toEqual([first])
          const next = yield* queue.enqueue(Subject, {}, once("a"))
          expect(next).not.toBe(first)
          // Back in the queue (a retry), beside the new one: both queued, no collision.
          yield* queue.settle(jobs[0]!, { _tag: "retry", at: new Date(), error: "boom" })
          expect(yield* queued("a")).toBe(2)
          expect(yield* queue.enqueue(Subject, {}, once("a"))).toBe(next)
          // Without the option, a job is always added.
          yield* queue.enqueue(Subject, {}, { groupKey: "a" })
          expect(yield* queued("a")).toBe(3)
        })
    )

    it.effect(
      "the dead letter: after the last attempt the job is dead and its onDead runs in the same transaction",
      () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue
          const sql = yield* SqlClient.SqlClient
          const Doomed = untypedJobKind("test.doomed", { maxAttempts: 1 })
          const id = yield* queue.enqueue(Doomed, { name: "x" })
          const buried: Array<string> = []
          const handler = handle(
            Doomed,
            () => Effect.fail("always"),
            (_payload, _job, error) => Effect.sync(() => buried.push(error))
          )
          expect(
            yield* drainDueJobs([handler], { name: "t", concurrency: 2, lease: "1 minute", pollEvery: "1 minute" })
          ).toBe(1)
          expect(buried).toEqual(["always"])
          const [row] = yield* sql<{
            status: string
            last_error: string
          }>`SELECT status, last_error FROM jobs WHERE id = ${id}`
          expect(row).toEqual({ status: "dead", last_error: "always" })

          // An onDead that fails is rolled back (its writes too), but the job is dead all the same, with
          // why in its last error: left running, it was reaped and buried again at every lease, for ever.
          const id2 = yield* queue.enqueue(Doomed, {})
          const failing = handle(
            Doomed,
            () => Effect.fail("always"),
            () =>
              sql`UPDATE jobs SET payload = '{"undone": true}' WHERE id = ${id2}`.pipe(
                Effect.zipRight(Effect.fail("cannot undo"))
              )
          )
          yield* drainDueJobs([failing], { name: "t", concurrency: 2, lease: "1 minute", pollEvery: "1 minute" })
          const [buriedAlone] = yield* sql<{
            status: string
            last_error: string
            payload: unknown
          }>`SELECT status, last_error, payload FROM jobs WHERE id = ${id2}`
          expect(buriedAlone).toEqual({
            status: "dead",
            last_error: "always; dead-letter step failed: cannot undo",
            payload: {}
          })
        })
    )

    it.effect("a job whose workers kept dying is dead-lettered unrun once its claims are used up", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const Crashing = untypedJobKind("test.crashing", { maxAttempts: 2 })
        yield* queue.enqueue(Crashing, {})
        // Two claims by workers that die (their leases expire at once and the reaper returns the job).
        for (const workerId of ["dead-1", "dead-2"]) {
          expect(
            (yield* queue.claim({ kinds: [Crashing.name], workerId, limit: 1, lease: "1 millis" })).jobs
          ).toHaveLength(1)
          yield* Effect.sleep("5 millis")
          expect(yield* queue.reap).toBe(1)
        }
        const runs: Array<unknown> = []
        const buried: Array<string> = []
        const handler = handle(
          Crashing,
          (payload) => Effect.sync(() => runs.push(payload)),
          (_payload, _job, error) => Effect.sync(() => buried.push(error))
        )
        yield* drainDueJobs([handler], { name: "t", concurrency: 1, lease: "1 minute", pollEvery: "1 minute" })
        expect(runs).toEqual([])
        expect(buried).toEqual(["lease expired: the worker stopped during the attempt"])
      })
    )

    it.effect("a payload its kind's Schema cannot decode is dead at once, not retried", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const sql = yield* SqlClient.SqlClient
        const Loose = untypedJobKind("test.typed")
        const Typed = jobKind("test.typed", Schema.Struct({ companyId: Schema.String }))
        const id = yield* queue.enqueue(Loose, { companyId: 42 })
        const runs: Array<string> = []
        const handler = handle(Typed, ({ companyId }) => Effect.sync(() => runs.push(companyId)))
        yield* drainDueJobs([handler], { name: "t", concurrency: 1, lease: "1 minute", pollEvery: "1 minute" })
        expect(runs).toEqual([])
        const [row] = yield* sql<{
          status: string
          attempts: number
        }>`SELECT status, attempts FROM jobs WHERE id = ${id}`
        expect(row).toEqual({ status: "dead", attempts: 1 })
      })
    )
  })

  // Job times come from Effect's Clock: the TestClock (shared by this block) moves them.
  layer(TestLayer)("job times on the TestClock", (it) => {
    it.effect("a delayed job is not claimable until the clock reaches its run_at", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue(Delayed, {}, { delay: "10 seconds" })
        expect(yield* runAtOf(id)).toBe((yield* Clock.currentTimeMillis) + 10_000)
        expect(yield* claimOne(Delayed)).toBeUndefined()
        yield* TestClock.adjust("9999 millis")
        expect(yield* claimOne(Delayed)).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        const job = (yield* claimOne(Delayed))!
        expect(job.id).toBe(id)
        yield* queue.complete(job)
      })
    )

    it.effect("a failed job is retried exactly after the schedule's delay, then failed after its last attempt", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue(Failing, {})
        for (const attempt of [1, 2]) {
          const job = (yield* claimOne(Failing))!
          expect(job.attempts).toBe(attempt)
          const failedAt = yield* Clock.currentTimeMillis
          expect(yield* fail(Failing, job, "boom")).toBe("retrying")
          const delay = Duration.toMillis(Option.getOrThrow(yield* delayAfterFailure(JobRetrySchedule, attempt)))
          expect(delay).toBe(2 ** attempt * 1000)
          // Persisted: a restarted worker finds the same retry time in the row.
          expect(yield* runAtOf(id)).toBe(failedAt + delay)
          yield* TestClock.adjust(delay - 1)
          expect(yield* claimOne(Failing)).toBeUndefined()
          yield* TestClock.adjust(1)
        }
        const last = (yield* claimOne(Failing))!
        expect(last.attempts).toBe(3)
        expect(yield* fail(Failing, last, "boom again")).toBe("failed")
        expect(yield* statusOf(id)).toEqual({ status: "dead", attempts: 3 })
        yield* TestClock.adjust("1 hour")
        expect(yield* claimOne(Failing)).toBeUndefined()
      })
    )

    it.effect("an expired lease is reaped when the clock passes lease_until, and not before", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue(Crash, {})
        expect((yield* claimOne(Crash, "1 minute"))?.id).toBe(id)
        yield* TestClock.adjust("1 minute")
        expect(yield* queue.reap).toBe(0)
        expect((yield* statusOf(id)).status).toBe("running")
        yield* TestClock.adjust("1 millis")
        expect(yield* queue.reap).toBe(1)
        expect((yield* statusOf(id)).status).toBe("queued")
        expect((yield* claimOne(Crash))?.attempts).toBe(2)
      })
    )

    it.effect(
      "the runner's heartbeat keeps a long job's claim past its lease; a worker that stops renewing loses it",
      () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue
          const started = yield* Deferred.make<void>()
          // A worker that dies mid-job hands nothing back: its release is switched off, so interrupting
          // the runner below stops it as a kill would.
          const Dies = Layer.effect(
            JobQueue,
            Effect.map(JobQueue, (real) => ({ ...real, release: () => Effect.succeed(0) }))
          )
          const runner = yield* Layer.launch(
            JobRunnerLive(
              [handle(Long, () => Deferred.succeed(started, undefined).pipe(Effect.zipRight(Effect.never)))],
              { name: "t", concurrency: 1, lease: "30 seconds", pollEvery: "1 hour" }
            ).pipe(Layer.provide(Dies))
          ).pipe(Effect.forkScoped)
          const id = yield* queue.enqueue(Long, {})
          yield* Deferred.await(started).pipe(Effect.timeout("10 seconds"), TestServices.provideLive)
          // Three leases long, renewed every 10 s: never reapable while the job runs.
          for (let step = 0; step < 9; step++) {
            yield* TestClock.adjust("10 seconds")
            yield* queue.reap
            expect((yield* statusOf(id)).status).toBe("running")
          }
          // The worker dies (its fibers stop without settling): the lease runs out and the job returns.
          yield* Fiber.interrupt(runner)
          expect((yield* statusOf(id)).status).toBe("running")
          // Renewed last at 90 s at the latest, to 120 s: reapable once that passes.
          yield* TestClock.adjust("31 seconds")
          yield* queue.reap
          expect(yield* statusOf(id)).toEqual({ status: "queued", attempts: 1 })
        }).pipe(Effect.scoped)
    )

    it.effect("a run past its kind's timeout fails like any other (retried, then dead) and frees its slot", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const otherRan = yield* Deferred.make<void>()
        // One slot: while the hung run holds it, no other kind of this runner runs.
        yield* Layer.launch(
          JobRunnerLive(
            [handle(Hangs, () => Effect.never), handle(Other, () => Deferred.succeed(otherRan, undefined))],
            { name: "t", concurrency: 1, lease: "1 minute", pollEvery: "10 seconds" }
          )
        ).pipe(Effect.forkScoped)
        const hung = yield* queue.enqueue(Hangs, {})
        yield* statusOf(hung).pipe(
          Effect.filterOrFail((row) => row.status === "running"),
          Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("10 seconds"))),
          TestServices.provideLive
        )
        yield* queue.enqueue(Other, {})
        /** The clock moved 10 s at a time, with real time between for the runner to act on each step. */
        const advance = (steps: number) =>
          Effect.forEach(
            Array.from({ length: steps }),
            () =>
              TestClock.adjust("10 seconds").pipe(
                Effect.zipRight(Effect.sleep("50 millis").pipe(TestServices.provideLive))
              ),
            { discard: true }
          )
        // Four minutes fifty: its lease renewed all along, the slot still taken.
        yield* advance(29)
        expect(yield* statusOf(hung)).toEqual({ status: "running", attempts: 1 })
        expect(yield* Deferred.isDone(otherRan)).toBe(false)
        // Five minutes: failed and due again (2 s later); the other kind runs in the freed slot.
        yield* advance(1)
        yield* Deferred.await(otherRan).pipe(Effect.timeout("10 seconds"), TestServices.provideLive)
        // Its second and last attempt hangs too: dead, with the reason.
        yield* advance(32)
        const [row] = yield* (yield* SqlClient.SqlClient)<{ status: string; attempts: number; last_error: string }>`
          SELECT status, attempts, last_error FROM jobs WHERE id = ${hung}`
        expect(row).toEqual({ status: "dead", attempts: 2, last_error: "timed out after 5m" })
      }).pipe(Effect.scoped)
    )

    it.effect("a run past its timeout that cannot be interrupted frees its slot; its late end is ignored", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const sql = yield* SqlClient.SqlClient
        const otherRan = yield* Deferred.make<void>()
        const unblock = yield* Deferred.make<void>()
        const runs = yield* Ref.make(0)
        // One slot; the stuck run blocks where interruption cannot reach it (a blocking call).
        yield* Layer.launch(
          JobRunnerLive(
            [
              handle(Stuck, () =>
                Ref.updateAndGet(runs, (n) => n + 1).pipe(
                  Effect.flatMap((n) => (n === 1 ? Effect.uninterruptible(Deferred.await(unblock)) : Effect.void))
                )
              ),
              handle(Other, () => Deferred.succeed(otherRan, undefined))
            ],
            { name: "t", concurrency: 1, lease: "1 minute", pollEvery: "10 seconds" }
          )
        ).pipe(Effect.forkScoped)
        // Whatever happens below, the stuck run ends before the runner is stopped.
        yield* Effect.addFinalizer(() => Deferred.succeed(unblock, undefined))
        const stuck = yield* queue.enqueue(Stuck, {})
        yield* statusOf(stuck).pipe(
          Effect.filterOrFail((row) => row.status === "running"),
          Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("10 seconds"))),
          TestServices.provideLive
        )
        yield* queue.enqueue(Other, {})
        const advance = (steps: number) =>
          Effect.forEach(
            Array.from({ length: steps }),
            () =>
              TestClock.adjust("10 seconds").pipe(
                Effect.zipRight(Effect.sleep("50 millis").pipe(TestServices.provideLive))
              ),
            { discard: true }
          )
        // Five minutes: the attempt fails as timed out and the other kind runs in the freed slot,
        // though the stuck run goes on.
        yield* advance(30)
        yield* Deferred.await(otherRan).pipe(Effect.timeout("10 seconds"), TestServices.provideLive)
        const lastError = sql<{ last_error: string }>`SELECT last_error FROM jobs WHERE id = ${stuck}`
        expect(yield* statusOf(stuck)).toEqual({ status: "queued", attempts: 1 })
        expect((yield* lastError)[0]!.last_error).toBe("timed out after 5m")
        // Due again 2 s later, but not claimed by this runner beside its own run still going.
        yield* advance(3)
        expect(yield* statusOf(stuck)).toEqual({ status: "queued", attempts: 1 })
        // The stuck run ends: its result does not complete the job; the retry runs once it has ended.
        yield* Deferred.succeed(unblock, undefined)
        yield* Effect.sleep("100 millis").pipe(TestServices.provideLive)
        expect(yield* Ref.get(runs)).toBe(1)
        yield* advance(2)
        yield* statusOf(stuck).pipe(
          Effect.filterOrFail((row) => row.status === "done"),
          Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("10 seconds"))),
          TestServices.provideLive
        )
        expect(yield* statusOf(stuck)).toEqual({ status: "done", attempts: 2 })
        expect(yield* Ref.get(runs)).toBe(2)
      }).pipe(Effect.scoped)
    )

    it.effect("the worker loop retries a failing job when the clock passes its retry time", () =>
      Effect.gen(function* () {
        const runs = yield* Ref.make(0)
        const done = yield* Deferred.make<number>()
        yield* Layer.launch(
          WorkerLive({
            handlers: [
              handle(Flaky, () =>
                Ref.updateAndGet(runs, (n) => n + 1).pipe(
                  Effect.flatMap((n) => (n === 1 ? Effect.fail("first run fails") : Deferred.succeed(done, n)))
                )
              )
            ],
            pollEvery: "1 second"
          })
        ).pipe(Effect.forkScoped)
        const id = yield* (yield* JobQueue).enqueue(Flaky, {})
        // The first run happens on the real NOTIFY; wait for it in real time.
        yield* statusOf(id).pipe(
          Effect.filterOrFail((row) => row.status === "queued" && row.attempts === 1),
          Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("10 seconds"))),
          TestServices.provideLive
        )
        yield* TestClock.adjust("1999 millis")
        expect(yield* Ref.get(runs)).toBe(1)
        yield* TestClock.adjust("1 millis")
        const run = yield* Deferred.await(done).pipe(Effect.timeout("10 seconds"), TestServices.provideLive)
        expect(run).toBe(2)
      }).pipe(Effect.scoped)
    )
  })
})

describe("retry schedules", () => {
  it.effect("jobs: 2 s doubling up to 5 min; mail: 1, 3, 9, 27 min, then hourly, and gives up after 12 attempts", () =>
    Effect.gen(function* () {
      const jobDelays = yield* Effect.forEach([1, 2, 3, 4, 8, 9, 20], (n) => delayAfterFailure(JobRetrySchedule, n))
      expect(jobDelays.map(millis)).toEqual([2, 4, 8, 16, 256, 300, 300].map((s) => Option.some(s * 1000)))
      const mailDelays = yield* Effect.forEach([1, 2, 3, 4, 5, 11, 12], (n) => delayAfterFailure(MailRetrySchedule, n))
      expect(mailDelays.map(millis)).toEqual([
        ...[1, 3, 9, 27, 60, 60].map((m) => Option.some(m * 60_000)),
        Option.none()
      ])
    })
  )

  it.effect("stepping a schedule gives the delays Effect.retry sleeps (one definition serves both)", () =>
    Effect.gen(function* () {
      const attemptsAt = yield* Ref.make<ReadonlyArray<number>>([])
      const failing = Clock.currentTimeMillis.pipe(
        Effect.flatMap((t) => Ref.update(attemptsAt, (ts) => [...ts, t])),
        Effect.zipRight(Effect.fail("no"))
      )
      const fiber = yield* Effect.fork(Effect.retry(failing, MailRetrySchedule))
      yield* TestClock.adjust("1 day")
      yield* Fiber.await(fiber)
      const times = yield* Ref.get(attemptsAt)
      const gaps = times.slice(1).map((t, i) => Option.some(t - times[i]!))
      const stepped = yield* Effect.forEach([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], (n) =>
        delayAfterFailure(MailRetrySchedule, n)
      )
      expect(times).toHaveLength(12)
      expect(gaps).toEqual(stepped.map(millis))
    })
  )
})
