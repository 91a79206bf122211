import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { untypedJobKind } from "../../src/infra/queue/JobKind.js"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { drainDueJobs, handle } from "../../src/infra/queue/JobRunner.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

/**
 * Makes the `done` update of a kind's jobs fail its first `failures` times, as a cut connection or a
 * statement timeout would (a sequence is not rolled back with the failed statement).
 */
const failCompletions = (kind: string, failures: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(`
      CREATE SEQUENCE completion_failures;
      CREATE FUNCTION fail_completion() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('completion_failures') <= ${failures} THEN
          RAISE EXCEPTION 'connection reset while completing';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_completion BEFORE UPDATE ON jobs FOR EACH ROW
        WHEN (NEW.status = 'done' AND NEW.kind = '${kind}') EXECUTE FUNCTION fail_completion();`)
  )

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
        const Stuck = untypedJobKind("test.complete-never", { maxAttempts: 1 })
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
