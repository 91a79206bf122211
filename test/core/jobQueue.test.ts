import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Fiber, Layer, Option, Ref, Schedule, TestClock, TestServices } from "effect"
import { delayAfterFailure, JobRetrySchedule, MailRetrySchedule } from "../../src/domain/Retries.js"
import { type Job, JobQueue } from "../../src/infra/queue/JobQueue.js"
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

const claimOne = (kind: string, lease: Duration.DurationInput = "1 minute") =>
  Effect.flatMap(JobQueue, (queue) => queue.claim({ kinds: [kind], workerId: "w", limit: 1, lease })).pipe(
    Effect.map((jobs): Job | undefined => jobs[0])
  )

const millis = (delay: Option.Option<Duration.Duration>) => Option.map(delay, Duration.toMillis)

describe("job queue", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a job is claimed by exactly one of two concurrent claimers", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue("test.once", { n: 1 })
        const claims = yield* Effect.all(
          ["a", "b"].map((workerId) =>
            queue.claim({ kinds: ["test.once"], workerId, limit: 10, lease: Duration.minutes(1) })
          ),
          { concurrency: 2 }
        )
        expect(claims.flat().map((job) => job.id)).toEqual([id])
        yield* queue.complete(id)
        expect(yield* statusOf(id)).toEqual({ status: "done", attempts: 1 })
      })
    )

    it.effect("a running worker picks up a job as soon as it is enqueued (LISTEN/NOTIFY)", () =>
      Effect.gen(function* () {
        const handled = yield* Deferred.make<unknown>()
        yield* Layer.launch(
          WorkerLive({
            handlers: { "test.notify": (job) => Deferred.succeed(handled, job.payload) },
            pollEvery: Duration.minutes(10)
          })
        ).pipe(Effect.forkScoped)
        yield* Effect.sleep(Duration.millis(300))
        yield* (yield* JobQueue).enqueue("test.notify", { hello: "world" })
        const payload = yield* Deferred.await(handled).pipe(Effect.timeout(Duration.seconds(5)))
        expect(payload).toEqual({ hello: "world" })
      }).pipe(Effect.scoped)
    )
  })

  // Job times come from Effect's Clock: the TestClock (shared by this block) moves them.
  layer(TestLayer)("job times on the TestClock", (it) => {
    it.effect("a delayed job is not claimable until the clock reaches its run_at", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue("test.delayed", {}, { delay: "10 seconds" })
        expect(yield* runAtOf(id)).toBe((yield* Clock.currentTimeMillis) + 10_000)
        expect(yield* claimOne("test.delayed")).toBeUndefined()
        yield* TestClock.adjust("9999 millis")
        expect(yield* claimOne("test.delayed")).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        expect((yield* claimOne("test.delayed"))?.id).toBe(id)
        yield* queue.complete(id)
      })
    )

    it.effect("a failed job is retried exactly after the schedule's delay, then failed after its last attempt", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue("test.fail", {}, { maxAttempts: 3 })
        for (const attempt of [1, 2]) {
          const job = (yield* claimOne("test.fail"))!
          expect(job.attempts).toBe(attempt)
          const failedAt = yield* Clock.currentTimeMillis
          expect(yield* queue.fail(job, "boom")).toBe("retrying")
          const delay = Duration.toMillis(Option.getOrThrow(yield* delayAfterFailure(JobRetrySchedule, attempt)))
          expect(delay).toBe(2 ** attempt * 1000)
          // Persisted: a restarted worker finds the same retry time in the row.
          expect(yield* runAtOf(id)).toBe(failedAt + delay)
          yield* TestClock.adjust(delay - 1)
          expect(yield* claimOne("test.fail")).toBeUndefined()
          yield* TestClock.adjust(1)
        }
        const last = (yield* claimOne("test.fail"))!
        expect(last.attempts).toBe(3)
        expect(yield* queue.fail(last, "boom again")).toBe("failed")
        expect(yield* statusOf(id)).toEqual({ status: "failed", attempts: 3 })
        yield* TestClock.adjust("1 hour")
        expect(yield* claimOne("test.fail")).toBeUndefined()
      })
    )

    it.effect("an expired lease is reaped when the clock passes lease_until, and not before", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue("test.crash", {})
        expect((yield* claimOne("test.crash", "1 minute"))?.id).toBe(id)
        yield* TestClock.adjust("1 minute")
        expect(yield* queue.reap).toBe(0)
        expect((yield* statusOf(id)).status).toBe("running")
        yield* TestClock.adjust("1 millis")
        expect(yield* queue.reap).toBe(1)
        expect((yield* statusOf(id)).status).toBe("queued")
        expect((yield* claimOne("test.crash"))?.attempts).toBe(2)
      })
    )

    it.effect("the worker loop retries a failing job when the clock passes its retry time", () =>
      Effect.gen(function* () {
        const runs = yield* Ref.make(0)
        const done = yield* Deferred.make<number>()
        yield* Layer.launch(
          WorkerLive({
            handlers: {
              "test.flaky": () =>
                Ref.updateAndGet(runs, (n) => n + 1).pipe(
                  Effect.flatMap((n) => (n === 1 ? Effect.fail("first run fails") : Deferred.succeed(done, n)))
                )
            },
            pollEvery: "1 second"
          })
        ).pipe(Effect.forkScoped)
        const id = yield* (yield* JobQueue).enqueue("test.flaky", {})
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
  it.effect("jobs: 2 s doubling up to 5 min; mail: 1, 3, 9, 27 min, then it gives up", () =>
    Effect.gen(function* () {
      const jobDelays = yield* Effect.forEach([1, 2, 3, 4, 8, 9, 20], (n) => delayAfterFailure(JobRetrySchedule, n))
      expect(jobDelays.map(millis)).toEqual([2, 4, 8, 16, 256, 300, 300].map((s) => Option.some(s * 1000)))
      const mailDelays = yield* Effect.forEach([1, 2, 3, 4, 5], (n) => delayAfterFailure(MailRetrySchedule, n))
      expect(mailDelays.map(millis)).toEqual([...[1, 3, 9, 27].map((m) => Option.some(m * 60_000)), Option.none()])
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
      yield* TestClock.adjust("1 hour")
      yield* Fiber.await(fiber)
      const times = yield* Ref.get(attemptsAt)
      const gaps = times.slice(1).map((t, i) => Option.some(t - times[i]!))
      const stepped = yield* Effect.forEach([1, 2, 3, 4], (n) => delayAfterFailure(MailRetrySchedule, n))
      expect(times).toHaveLength(5)
      expect(gaps).toEqual(stepped.map(millis))
    })
  )
})
