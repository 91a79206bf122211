import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { JobQueue, JobQueueLive } from "../../src/infra/queue/JobQueue.js"
import { queueRescores } from "../../src/infra/scoring/ScoringJobKinds.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = JobQueueLive.pipe(Layer.provideMerge(TestDatabaseLive))

const ids = ["a", "b", "c"].map((c) => `00000000-0000-4000-8000-00000000000${c}`)

describe("queueing company rescores", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("queues each company once, in id order, whatever order the caller names them in", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* queueRescores(yield* JobQueue, [ids[2]!, ids[0]!, ids[1]!, ids[0]!])
        const queued = yield* sql<{ company: string }>`
          SELECT payload->>'companyId' AS company FROM jobs WHERE kind = 'company.rescore' ORDER BY id`
        expect(queued.map((row) => row.company)).toEqual(ids)
        yield* sql`DELETE FROM jobs WHERE kind = 'company.rescore'`
      })
    )

    it.effect("two transactions queueing the same companies in opposite orders never deadlock", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const jobs = yield* JobQueue
        // A watchlist moved from one company to another beside a scoring write that requeues both:
        // each queues both rescores, in the order it happens to know them.
        const queueing = (companies: ReadonlyArray<string>) =>
          sql.withTransaction(queueRescores(jobs, companies).pipe(Effect.zipRight(sql`SELECT pg_sleep(0.02)`)))
        const exits = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? [ids[0]!, ids[1]!] : [ids[1]!, ids[0]!])),
          (companies) => Effect.exit(queueing(companies)),
          { concurrency: "unbounded" }
        )
        expect(exits.filter(Exit.isFailure)).toEqual([])
      })
    )
  })
})
