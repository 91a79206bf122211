import { SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import pg from "pg"

/**
 * The `pg` pool under the process's PgClient, for the statements every key-API request runs.
 * Provided together with PgClient and SqlClient by `PgLive`, so both share the connections.
 */
export class PgPool extends Context.Tag("PgPool")<PgPool, pg.Pool>() {}

/** PgPool, PgClient and SqlClient over one pool of `maxConnections`, ended with the layer. */
export const PgLive = (options: {
  readonly url: Redacted.Redacted
  readonly maxConnections: number
  readonly applicationName?: string
}) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const pool = new pg.Pool({
            connectionString: Redacted.value(options.url),
            max: options.maxConnections,
            application_name: options.applicationName ?? "tender-scoring-service"
          })
          // An idle client's error (server restart) is reported on its next use, not here.
          pool.on("error", () => {})
          return pool
        }),
        (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption("1 second"))
      )
      // Fail at start, as PgClient.layer does, when the server cannot be reached.
      yield* Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        Effect.timeoutFail({
          duration: "5 seconds",
          onTimeout: () =>
            new SqlError.SqlError({
              cause: new Error("Connection timed out"),
              message: "PgClient: Connection timed out"
            })
        })
      )
      return Layer.merge(Layer.succeed(PgPool, pool), PgClient.layerFromPool({ acquire: Effect.succeed(pool) }))
    })
  )

/**
 * Runs a named prepared statement straight on the pool: `pg` parses and plans it once per
 * connection and afterwards sends only its parameters, and no Effect scope is opened per query.
 * A name must always stand for the same text. SQL failures are defects: these statements take no user-shaped SQL.
 */
export const makePrepared = Effect.map(
  PgPool,
  (pool) =>
    <A>(name: string, text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>> =>
      Effect.async<ReadonlyArray<A>, SqlError.SqlError>((resume) => {
        pool.query({ name, text, values: params as Array<unknown> }, (cause, result) =>
          resume(
            cause
              ? Effect.fail(new SqlError.SqlError({ cause, message: `Failed to execute ${name}` }))
              : Effect.succeed(result.rows as ReadonlyArray<A>)
          )
        )
      }).pipe(Effect.orDie)
)
