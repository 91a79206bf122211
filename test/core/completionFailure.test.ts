import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { type Duration, Effect, Fiber, Layer, Ref, TestClock, TestServices } from "effect"
import { untypedJobKind } from "../../src/infra/queue/JobKind.js"
import { type Job, JobQueue } from "../../src/infra/queue/JobQueue.js"
import { drainDueJobs, handle, type RunnerOptions, settleAfterRun } from "../../src/infra/queue/JobRunner.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { failUpdates } from "../support/FailingUpdates.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

/** Makes the `done` update of a kind's jobs fail its first `failures` times. */
const failCompletions = (kind: string, failures: number) =>
  failUpdates({
    name: "fail_completion",
    table: "jobs",
    when: `NEW.status = 'done' AND NEW.kind = '${kind}'`,
    failures,
    message: "connection reset while completing"
  })

/** Runs one job of `kind` (its last attempt) through the runner; its runs, its undos and its row after. */
const runOnce = (kind: ReturnType<typeof untypedJobKind>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* JobQueue
    const id = yield* queue.enqueue(kind, {})
    const runs: Array<unknown> = []
    const undone: Array<string> = []
    const handler = handle(
      kind,
      (payload) => Effect.sync(() => runs.push(payload)),
      (_payload, _job, error) => Effect.sync(() => undone.push(error))
    )
    yield* drainDueJobs([handler], { name: "test", concurrency: 1, lease: "1 minute", pollEvery: "1 minute" })
    const [row] = yield* sql<{ status: string }>`SELECT status FROM jobs WHERE id = ${id}`
    return { runs, undone, status: row!.status }
  })

describe("a run that succeeded but whose completion failed (a connection cut, a statement timeout)", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("the completion is tried again: the job is done, not run again, not dead-lettered with its undo", () =>
      Effect.gen(function* () {
        const Once = untypedJobKind("test.complete-once", { maxAttempts: 1 })
        yield* failCompletions(Once.name, 1)
        const { runs, undone, status } = yield* runOnce(Once)
        expect(runs).toHaveLength(1)
        expect(undone).toEqual([])
        expect(status).toBe("done")
      })
    )
  })

  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a completion that keeps failing leaves the job to the reaper, never to its undo", () =>
      Effect.gen(function* () {
        // Its completion is tried again for as long as a run of its kind may last: 2 s here.
        const Stuck = untypedJobKind("test.complete-never", { maxAttempts: 1, timeout: "2 seconds" })
        yield* failCompletions(Stuck.name, 1000)
        const { runs, undone, status } = yield* runOnce(Stuck)
        expect(runs).toHaveLength(1)
        expect(undone).toEqual([])
        // Still held under its lease: the reaper hands it on once the lease runs out.
        expect(status).toBe("running")
      })
    )
  })
})

/** Makes the `done` update of a kind's jobs fail while `completion_down` says so (PostgreSQL away). */
const failCompletionsWhileDown = (kind: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(`
      CREATE TABLE completion_down (down boolean NOT NULL);
      INSERT INTO completion_down VALUES (false);
      CREATE FUNCTION fail_completion() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT down FROM completion_down) THEN
          RAISE EXCEPTION 'connection refused while completing';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_completion BEFORE UPDATE ON jobs FOR EACH ROW
        WHEN (NEW.status = 'done' AND NEW.kind = '${kind}') EXECUTE FUNCTION fail_completion();`)
  )

/** Real time for the runner's fibers and the database to act on a TestClock step. */
const settle = TestServices.provideLive(Effect.sleep("200 millis"))

describe("a run that succeeded on its last attempt while PostgreSQL was away longer than the lease", () => {
  layer(TestLayer)((it) => {
    it.effect("its completion lands once the database is back, though the reaper returned it: done, run once", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const queue = yield* JobQueue
        const Last = untypedJobKind("test.complete-late", { maxAttempts: 1 })
        yield* failCompletionsWhileDown(Last.name)
        // The heartbeat cannot reach the database either while it is away.
        const down = yield* Ref.make(false)
        const Away = Layer.effect(
          JobQueue,
          Effect.map(JobQueue, (real) => ({
            ...real,
            extend: (jobs: ReadonlyArray<Job>, lease: Duration.DurationInput) =>
              Effect.flatMap(Ref.get(down), (away) =>
                away ? Effect.dieMessage("connection refused") : real.extend(jobs, lease)
              )
          }))
        )
        const setDown = (away: boolean) =>
          Ref.set(down, away).pipe(Effect.zipRight(sql`UPDATE completion_down SET down = ${away}`))
        const runs: Array<unknown> = []
        const undone: Array<string> = []
        const handler = handle(
          Last,
          (payload) => setDown(true).pipe(Effect.zipRight(Effect.sync(() => runs.push(payload)))),
          (_payload, _job, error) => Effect.sync(() => undone.push(error))
        )
        const options: RunnerOptions = { name: "test", concurrency: 1, lease: "30 seconds", pollEvery: "1 minute" }
        const id = yield* queue.enqueue(Last, {})
        const runner = yield* drainDueJobs([handler], options).pipe(Effect.provide(Away), Effect.fork)
        // 45 s away: the 30 s lease runs out and a reaper returns the job to the queue.
        for (let step = 0; step < 9; step++) {
          yield* TestClock.adjust("5 seconds")
          yield* settle
        }
        expect(yield* queue.reap).toBe(1)
        // Back: the run's completion lands on the job nobody has claimed since.
        yield* setDown(false)
        for (let step = 0; step < 3; step++) {
          yield* TestClock.adjust("5 seconds")
          yield* settle
        }
        yield* Fiber.join(runner)
        // Any worker's next pass finds nothing to run, nor to bury unrun with its undo.
        yield* drainDueJobs([handler], options)
        const [row] = yield* sql<{
          status: string
          attempts: number
        }>`SELECT status, attempts FROM jobs WHERE id = ${id}`
        expect(runs).toHaveLength(1)
        expect(undone).toEqual([])
        expect(row).toEqual({ status: "done", attempts: 1 })
      })
    )
  })
})

/**
 * Runs one job of `kind` (its last attempt) whose handler leaves its settlement (`done`) to the runner,
 * `before` run first in the handler; how often the settlement was made, the undos and the job's row.
 */
const runSettledAfter = (kind: ReturnType<typeof untypedJobKind>, before: (job: Job) => Effect.Effect<unknown>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* JobQueue
    const id = yield* queue.enqueue(kind, {})
    let settlements = 0
    const undone: Array<string> = []
    const handler = handle(
      kind,
      (_payload, job) =>
        Effect.zipRight(
          before(job),
          settleAfterRun(
            Effect.suspend(() => {
              settlements++
              return queue.settle(job, { _tag: "done" })
            })
          )
        ),
      (_payload, _job, error) => Effect.sync(() => undone.push(error))
    )
    yield* drainDueJobs([handler], { name: "test", concurrency: 1, lease: "1 minute", pollEvery: "1 minute" })
    const [row] = yield* sql<{ status: string; locked_by: string | null }>`
      SELECT status, locked_by FROM jobs WHERE id = ${id}`
    return { settlements, undone, row: row! }
  })

describe("a run whose handler leaves its settlement to the runner (an e-mail sent, a webhook answered)", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a failed settlement is tried again: settled, not a failed attempt with its undo", () =>
      Effect.gen(function* () {
        const Once = untypedJobKind("test.settle-once", { maxAttempts: 1 })
        yield* failCompletions(Once.name, 2)
        const { settlements, undone, row } = yield* runSettledAfter(Once, () => Effect.void)
        expect(settlements).toBe(3)
        expect(undone).toEqual([])
        expect(row).toEqual({ status: "done", locked_by: null })
      })
    )
  })

  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a settlement that keeps failing leaves the job to the reaper, never to its undo", () =>
      Effect.gen(function* () {
        const Stuck = untypedJobKind("test.settle-never", { maxAttempts: 1, timeout: "2 seconds" })
        yield* failCompletions(Stuck.name, 1000)
        const { settlements, undone, row } = yield* runSettledAfter(Stuck, () => Effect.void)
        expect(settlements).toBeGreaterThan(3)
        expect(undone).toEqual([])
        expect(row.status).toBe("running")
      })
    )
  })

  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a settlement refused because the lease went to another worker is not tried again", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const Taken = untypedJobKind("test.settle-taken", { maxAttempts: 1 })
        const { settlements, undone, row } = yield* runSettledAfter(Taken, (job) =>
          sql`UPDATE jobs SET locked_by = 'another' WHERE id = ${job.id}`.pipe(Effect.orDie)
        )
        expect(settlements).toBe(1)
        expect(undone).toEqual([])
        expect(row).toEqual({ status: "running", locked_by: "another" })
      })
    )
  })
})
