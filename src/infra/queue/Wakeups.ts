import { Duration, Effect, PubSub, Schedule, type Scope, Stream } from "effect"
import pg from "pg"

/**
 * The payloads of NOTIFY on `channel` for any number of subscribers, over ONE `LISTEN` that starts
 * with the first subscriber and lives as long as `scope`, on a connection of its own (outside the
 * pool, with the pool's options). One listener per process on purpose: several LISTENs on one
 * client ran concurrent queries on it, and one subscriber's UNLISTEN silenced the others.
 *
 * The connection is watched: when it errors or ends (PostgreSQL restarted, the connection cut), the
 * listener logs it and opens another a second later, and keeps trying while the server is away.
 * (`PgClient.listen` of @effect/sql-pg 0.53 ignores its listen connection's errors, so a dropped
 * connection silently left every worker on polling until it restarted.) Notifications sent while no
 * connection listens are lost; the workers' polling finds their jobs. Payloads must not be empty.
 */
export const makeWakeups = (pool: pg.Pool, channel: string, scope: Scope.Scope) =>
  Effect.gen(function* () {
    const hub = yield* PubSub.sliding<string>(1024)

    /** One connection's notifications; fails when the connection errors or ends. */
    const listening = Stream.asyncPush<string, Error>((emit) =>
      Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const client = new pg.Client(pool.options)
            client.on("error", (error) => emit.fail(error))
            client.on("end", () => emit.fail(new Error("the LISTEN connection ended")))
            client.on("notification", (message) => {
              if (message.channel === channel && message.payload) emit.single(message.payload)
            })
            try {
              await client.connect()
              await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
            } catch (error) {
              await client.end().catch(() => undefined)
              throw error
            }
            return client
          },
          catch: (cause) => (cause instanceof Error ? cause : new Error(String(cause)))
        }),
        (client) =>
          Effect.promise(() => {
            client.removeAllListeners("end")
            client.removeAllListeners("error")
            client.on("error", () => undefined)
            return client.end().catch(() => undefined)
          })
      )
    )

    const listen = yield* Effect.once(
      listening.pipe(
        Stream.tapError((error) => Effect.logWarning(`LISTEN ${channel}: ${error.message}; listening again in 1 s`)),
        Stream.retry(Schedule.spaced(Duration.seconds(1))),
        Stream.runForEach((payload) => PubSub.publish(hub, payload)),
        Effect.catchAllCause(Effect.logError),
        Effect.forkIn(scope)
      )
    )
    return Stream.unwrapScoped(Effect.zipRight(listen, Effect.map(PubSub.subscribe(hub), Stream.fromQueue)))
  })
