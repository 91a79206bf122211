import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Layer } from "effect"
import { JobQueue } from "../../src/infra/jobs/JobQueue.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { WorkerLive } from "../../src/workers/Worker.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

const statusOf = (jobId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ status: string; attempts: number }>`SELECT status, attempts FROM jobs WHERE id = ${jobId}`
  ).pipe(Effect.map((rows) => rows[0]!))

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

    it.effect("a failed job is retried later and marked failed after its last attempt", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue("test.fail", {}, { maxAttempts: 2 })
        const [first] = yield* queue.claim({ kinds: ["test.fail"], workerId: "w", limit: 1, lease: "1 minute" })
        expect(yield* queue.fail(first!, "boom", Duration.zero)).toBe("retrying")
        const [second] = yield* queue.claim({ kinds: ["test.fail"], workerId: "w", limit: 1, lease: "1 minute" })
        expect(second!.attempts).toBe(2)
        expect(yield* queue.fail(second!, "boom again", Duration.zero)).toBe("failed")
        expect(yield* statusOf(id)).toEqual({ status: "failed", attempts: 2 })
      })
    )

    it.effect("the reaper returns a job whose lease ran out (a crashed worker) to the queue", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue("test.crash", {})
        yield* queue.claim({ kinds: ["test.crash"], workerId: "dead", limit: 1, lease: Duration.millis(1) })
        yield* Effect.sleep(Duration.millis(20))
        expect(yield* queue.reap).toBe(1)
        expect((yield* statusOf(id)).status).toBe("queued")
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
})
