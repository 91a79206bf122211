import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { untypedJobKind } from "../../src/infra/queue/JobKind.js"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

// Every worker of a kind is woken by the same NOTIFY and claims at once. A claim that only skipped
// locked rows after cutting its candidates to `limit` picked the other claim's jobs, skipped them
// all, and came back empty while due jobs waited (then its runner slept a whole `pollEvery`).
describe("claims at the same moment (workers woken by the same NOTIFY) with a backlog of due jobs", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("the later claim takes the due jobs the earlier one left, not nothing", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const queue = yield* JobQueue
        const Backlog = untypedJobKind("test.backlog")
        for (let n = 0; n < 8; n++) yield* queue.enqueue(Backlog, { n })
        const claimOf = (workerId: string) =>
          queue.claim({ kinds: [Backlog.name], workerId, limit: 4, lease: Duration.minutes(1) })
        const go = yield* Deferred.make<void>()
        // Worker B, on a connection of its own, claims while worker A's claim is not yet committed.
        const workerB = yield* Deferred.await(go).pipe(Effect.zipRight(claimOf("b")), Effect.fork)
        const { a, b } = yield* sql.withTransaction(
          Effect.gen(function* () {
            const a = yield* claimOf("a")
            yield* Deferred.succeed(go, undefined)
            // B's claim runs to its end while A's rows are locked (SKIP LOCKED does not wait).
            return { a, b: yield* Fiber.join(workerB) }
          })
        )
        expect(a.jobs).toHaveLength(4)
        expect(b.jobs).toHaveLength(4)
        const ids = [...a.jobs, ...b.jobs].map((job) => job.id)
        expect(new Set(ids).size).toBe(8)
      })
    )
  })
})
