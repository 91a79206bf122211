import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Layer, Ref } from "effect"
import { untypedJobKind } from "../../src/infra/queue/JobKind.js"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { handle, JobRunnerLive, type RunnerOptions } from "../../src/infra/queue/JobRunner.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

const rowOf = (jobId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ status: string; attempts: number; locked_by: string | null; run_at: Date }>`
      SELECT status, attempts, locked_by, run_at FROM jobs WHERE id = ${jobId}`
  ).pipe(Effect.map((rows) => rows[0]!))

/**
 * A runner of two kinds of its own (the tests share a database): `Render` jobs never end (each
 * signals `started`), `Quick` jobs take 300 ms.
 */
const launch = (name: string, options: Omit<RunnerOptions, "name" | "concurrency" | "lease" | "pollEvery">) =>
  Effect.gen(function* () {
    const Render = untypedJobKind(`test.render-${name}`, { maxAttempts: 3 })
    const Quick = untypedJobKind(`test.quick-${name}`)
    const started = yield* Deferred.make<void>()
    const runner = yield* Layer.launch(
      JobRunnerLive(
        [
          handle(Render, () => Deferred.succeed(started, undefined).pipe(Effect.zipRight(Effect.never))),
          handle(Quick, () => Effect.sleep("300 millis"))
        ],
        // The report runner's lease (REPORT_JOB_LEASE_SECONDS).
        { name: "t", concurrency: 2, lease: "120 seconds", pollEvery: "1 second", ...options }
      )
    ).pipe(Effect.fork)
    yield* Effect.sleep("300 millis")
    return { runner, started, Render, Quick }
  })

// SIGTERM is the runner's scope closing (NodeRuntime.runMain interrupts the main fiber).
describe("a runner that stops (SIGTERM) with jobs in hand", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("hands them back at once: queued, due now, the interrupted attempt not counted", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        // Like the report, webhook and mail runners: nothing is waited for.
        const { runner, started, Render } = yield* launch("at-once", {})
        const id = yield* queue.enqueue(Render, {})
        yield* Deferred.await(started).pipe(Effect.timeout("10 seconds"))
        expect(yield* rowOf(id)).toMatchObject({ status: "running", attempts: 1 })
        yield* Fiber.interrupt(runner)
        const now = yield* Clock.currentTimeMillis
        const row = yield* rowOf(id)
        expect({ status: row.status, attempts: row.attempts, lockedBy: row.locked_by }).toEqual({
          status: "queued",
          attempts: 0,
          lockedBy: null
        })
        expect(row.run_at.getTime()).toBeLessThanOrEqual(now)
      })
    )

    it.effect("with finishOnShutdown, waits that long for them: what ends is recorded, the rest handed back", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const { runner, started, Render, Quick } = yield* launch("waiting", { finishOnShutdown: "2 seconds" })
        const endless = yield* queue.enqueue(Render, {})
        yield* Deferred.await(started).pipe(Effect.timeout("10 seconds"))
        const quick = yield* queue.enqueue(Quick, {})
        yield* Effect.sleep("100 millis")
        const stopping = yield* Clock.currentTimeMillis
        yield* Fiber.interrupt(runner)
        const waited = (yield* Clock.currentTimeMillis) - stopping
        expect(waited).toBeGreaterThanOrEqual(1_900)
        expect(waited).toBeLessThan(10_000)
        expect(yield* rowOf(quick)).toMatchObject({ status: "done", attempts: 1 })
        expect(yield* rowOf(endless)).toMatchObject({ status: "queued", attempts: 0, locked_by: null })
      })
    )

    it.effect("a run that cannot stop at once is waited for: its job is handed back only once it has ended", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const Writing = untypedJobKind("test.writing-shutdown", { maxAttempts: 3 })
        const started = yield* Deferred.make<void>()
        const finished = yield* Ref.make(false)
        // Like a scoring write in its transaction: an uninterruptible step that the interruption waits for.
        const runner = yield* Layer.launch(
          JobRunnerLive(
            [
              handle(Writing, () =>
                Deferred.succeed(started, undefined).pipe(
                  Effect.zipRight(
                    Effect.uninterruptible(Effect.sleep("400 millis").pipe(Effect.zipRight(Ref.set(finished, true))))
                  ),
                  Effect.zipRight(Effect.never)
                )
              )
            ],
            { name: "t", concurrency: 1, lease: "120 seconds", pollEvery: "1 second" }
          )
        ).pipe(Effect.fork)
        const id = yield* queue.enqueue(Writing, {})
        yield* Deferred.await(started).pipe(Effect.timeout("10 seconds"))
        yield* Fiber.interrupt(runner)
        expect(yield* Ref.get(finished)).toBe(true)
        expect(yield* rowOf(id)).toMatchObject({ status: "queued", attempts: 0, locked_by: null })
      })
    )

    it.effect("a job whose lease went to another worker meanwhile is left to that worker", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const sql = yield* SqlClient.SqlClient
        const { runner, started, Render } = yield* launch("lease-lost", {})
        const id = yield* queue.enqueue(Render, {})
        yield* Deferred.await(started).pipe(Effect.timeout("10 seconds"))
        // Reaped (its heartbeat could not reach the database) and claimed by another worker.
        yield* sql`UPDATE jobs SET locked_by = 'other-worker', attempts = 2 WHERE id = ${id}`
        yield* Fiber.interrupt(runner)
        expect(yield* rowOf(id)).toMatchObject({ status: "running", attempts: 2, locked_by: "other-worker" })
      })
    )
  })
})
