import type { PgClient } from "@effect/sql-pg"
import { Duration, Effect, PubSub, Schedule, type Scope, Stream } from "effect"

/**
 * The payloads of NOTIFY on `channel` for any number of subscribers, over ONE `LISTEN` that starts
 * with the first subscriber and lives as long as `scope`, on a dedicated connection reopened when it
 * drops (polling stays the workers' safety net). One listener per process on purpose: each
 * `PgClient.listen` sends its own LISTEN on the shared listen connection, so several at once ran
 * concurrent queries on one `pg` client (pg's "client is already executing a query" warning), and
 * one subscriber's UNLISTEN silenced the others. `PgClient.listen` (@effect/sql-pg 0.53) silently
 * drops notifications whose payload is empty: notify with a non-empty payload.
 */
export const makeWakeups = (pg: PgClient.PgClient, channel: string, scope: Scope.Scope) =>
  Effect.gen(function* () {
    const hub = yield* PubSub.sliding<string>(1024)
    const listen = yield* Effect.once(
      pg.listen(channel).pipe(
        Stream.retry(Schedule.spaced(Duration.seconds(1))),
        Stream.runForEach((payload) => PubSub.publish(hub, payload)),
        Effect.catchAllCause(Effect.logError),
        Effect.forkIn(scope)
      )
    )
    return Stream.unwrapScoped(Effect.zipRight(listen, Effect.map(PubSub.subscribe(hub), Stream.fromQueue)))
  })
