import { SqlClient } from "@effect/sql"
import { it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer, Redacted, Schedule } from "effect"
import { describe, expect } from "vitest"
import { PgLive } from "../../src/infra/db/PgPool.js"
import { freshDatabase } from "../support/TestDatabase.js"

/**
 * An interrupted statement's cancel (@effect/sql-pg sends `pg_cancel_backend` and hands the
 * connection back as soon as the statement ends) stops that statement and never another. Through the
 * pool, the cancel waited for a free connection while all were busy; the interrupted statement ended
 * meanwhile, its connection served the next statement in the queue, and the cancel, run late, stopped
 * that one ("canceling statement due to user request"). src/infra/db/PgPool.ts, `cancelsOnTheirOwn`.
 */
const twoConnections = Layer.unwrapScoped(
  Effect.map(freshDatabase, ({ url }) => PgLive({ url: Redacted.make(url), maxConnections: 2 }))
).pipe(Layer.orDie)

describe("an interrupted statement's cancel", () => {
  it.live(
    "never stops the statement that runs next on its connection, also when every connection of the pool is busy",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // One connection busy for a second: none is free for the cancel until it ends.
        const busy = yield* Effect.fork(sql`SELECT pg_sleep(1)`)
        yield* Effect.sleep("100 millis")
        const interrupted = yield* Effect.fork(sql`SELECT pg_sleep(0.4)`)
        yield* Effect.sleep("100 millis")
        // Queued for a connection before the cancel is: it gets the interrupted statement's.
        const next = yield* Effect.fork(Effect.either(sql<{ done: string }>`SELECT 'done' AS done FROM pg_sleep(1.5)`))
        yield* Effect.sleep("100 millis")
        yield* Fiber.interrupt(interrupted)
        const answer = yield* Fiber.join(next)
        yield* Fiber.join(busy)
        expect(Either.isRight(answer) ? answer.right : String(answer.left.cause)).toEqual([{ done: "done" }])
      }).pipe(Effect.provide(twoConnections)),
    30_000
  )

  it.live(
    "stops the interrupted statement on the server, also when every connection of the pool is busy",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const busy = yield* Effect.fork(sql`SELECT pg_sleep(3)`)
        const interrupted = yield* Effect.fork(sql`SELECT pg_sleep(20), 'interrupted'`)
        yield* Effect.sleep("300 millis")
        yield* Fiber.interrupt(interrupted)
        // Without a cancel it would run 20 s.
        const running = sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%''interrupted''%' AND state = 'active'
          AND pid <> pg_backend_pid()`
        const left = yield* running.pipe(
          Effect.map(([row]) => row!.n),
          Effect.repeat({
            until: (n) => n === 0,
            schedule: Schedule.spaced("100 millis").pipe(Schedule.upTo("10 seconds"))
          })
        )
        yield* Fiber.interrupt(busy)
        expect(left).toBe(0)
      }).pipe(Effect.provide(twoConnections)),
    30_000
  )
})
