import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { untypedJobKind } from "../../src/infra/queue/JobKind.js"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

// Dead letters are routine (a webhook delivery that failed its schedule, a refused e-mail, a failed
// render): kept for ever, they grew `jobs` without bound.
describe("dead letters on the TestClock", () => {
  layer(TestLayer)((it) => {
    it.effect("a dead job is deleted by the reaper 30 days after it died, and not before", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const queue = yield* JobQueue
        const Failing = untypedJobKind("test.dead", { maxAttempts: 1 })
        const id = yield* queue.enqueue(Failing, {})
        const [job] = (yield* queue.claim({ kinds: [Failing.name], workerId: "w", limit: 1, lease: "1 minute" })).jobs
        expect(yield* queue.settle(job!, { _tag: "dead", error: "HTTP 500 response" })).toBe(true)
        const statusOf = sql<{ status: string }>`SELECT status FROM jobs WHERE id = ${id}`
        yield* TestClock.adjust("30 days")
        yield* queue.reap
        expect(yield* statusOf).toEqual([{ status: "dead" }])
        yield* TestClock.adjust("1 millis")
        yield* queue.reap
        expect(yield* statusOf).toEqual([])
      })
    )
  })
})
