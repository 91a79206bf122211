import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, type Duration, Effect, Layer, Ref, TestClock, TestServices } from "effect"
import { untypedJobKind } from "../../src/infra/queue/JobKind.js"
import { type Job, JobQueue } from "../../src/infra/queue/JobQueue.js"
import { handle, JobRunnerLive } from "../../src/infra/queue/JobRunner.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))
const Slow = untypedJobKind("test.slow")

const statusOf = (jobId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ status: string; attempts: number }>`SELECT status, attempts FROM jobs WHERE id = ${jobId}`
  ).pipe(Effect.map((rows) => rows[0]!))

const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => TestServices.provideLive(effect)
/** Real time for the runner's fibers and the database to act on a TestClock step. */
const settle = live(Effect.sleep("300 millis"))

describe("a lease that runs out while its runner still runs the job (the database away longer than the lease)", () => {
  layer(TestLayer)((it) => {
    it.effect("the runner does not claim it again beside its own run; it is run again only after that run ends", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        // The heartbeat's statement fails for a while (PostgreSQL restarting), then works again.
        const heartbeatDown = yield* Ref.make(false)
        const FlakyHeartbeat = Layer.effect(
          JobQueue,
          Effect.map(JobQueue, (real) => ({
            ...real,
            extend: (jobs: ReadonlyArray<Job>, lease: Duration.DurationInput) =>
              Effect.flatMap(Ref.get(heartbeatDown), (down) =>
                down ? Effect.dieMessage("connection refused") : real.extend(jobs, lease)
              )
          }))
        )
        const release = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
        const started = [yield* Deferred.make<Job>(), yield* Deferred.make<Job>()]
        const finished = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
        let runs = 0
        yield* Layer.launch(
          JobRunnerLive(
            [
              handle(Slow, (_payload, job) =>
                Effect.gen(function* () {
                  const n = runs++
                  yield* Deferred.succeed(started[n]!, job as Job)
                  yield* Deferred.await(release[n]!)
                  yield* Deferred.succeed(finished[n]!, undefined)
                  // The first run fails: a run that succeeded would complete the job nobody claimed since
                  // (test/core/completionFailure.test.ts); a failed one is refused and run again.
                  if (n === 0) return yield* Effect.fail("the first run fails")
                })
              )
            ],
            { name: "t", concurrency: 4, lease: "30 seconds", pollEvery: "1 second" }
          ).pipe(Layer.provide(FlakyHeartbeat))
        ).pipe(Effect.forkScoped)
        yield* settle
        const id = yield* queue.enqueue(Slow, {})
        yield* Deferred.await(started[0]!).pipe(Effect.timeout("10 seconds"), live)

        // 45 s without renewals: the 30 s lease runs out and the reaper returns the job to the queue.
        yield* Ref.set(heartbeatDown, true)
        for (let step = 0; step < 9; step++) {
          yield* TestClock.adjust("5 seconds")
          yield* settle
        }
        yield* Ref.set(heartbeatDown, false)
        for (let step = 0; step < 20; step++) {
          yield* TestClock.adjust("1 second")
          yield* settle
        }
        expect((yield* statusOf(id)).status).toBe("queued")
        // Not claimed again by the runner that still runs it.
        expect(yield* Deferred.isDone(started[1]!)).toBe(false)

        // Its run fails (the settlement is refused: the lease was lost); then the job runs again, alone.
        yield* Deferred.succeed(release[0]!, undefined)
        for (let step = 0; step < 20 && !(yield* Deferred.isDone(started[1]!)); step++) {
          yield* TestClock.adjust("1 second")
          yield* settle
        }
        const again = yield* Deferred.await(started[1]!).pipe(Effect.timeout("10 seconds"), live)
        expect(again.attempts).toBe(2)
        expect(yield* Deferred.isDone(finished[0]!)).toBe(true)
        yield* Deferred.succeed(release[1]!, undefined)
        yield* Deferred.await(finished[1]!).pipe(Effect.timeout("10 seconds"), live)
        yield* settle
        expect(yield* statusOf(id)).toMatchObject({ attempts: 2 })
        expect((yield* statusOf(id)).status).not.toBe("running")
      }).pipe(Effect.scoped)
    )
  })
})
