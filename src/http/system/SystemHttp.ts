import { HttpApiBuilder } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { Duration, Effect, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { pingDatabase, pingReadPool } from "../../infra/db/Database.js"
import { ReadPool } from "../../infra/db/PgPool.js"
import { IngestState, isDegraded, sourceStatus } from "../../infra/ingest/IngestState.js"
import { pingRedis, RedisConnection } from "../../infra/redis/RedisConnection.js"
import { Api } from "../Api.js"

/**
 * How long /ready waits for the sources' state, like the database check (pingDatabase): a table
 * locked by another process's migration or DDL must not hold a probe that expects an answer.
 */
const SOURCES_READ_TIMEOUT = Duration.seconds(2)

export const SystemHttpLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const services = yield* Effect.context<SqlClient.SqlClient | RedisConnection>()
    // The connection the rate limiter counts on (or none: the in-process store).
    const redis = yield* RedisConnection
    const ingest = yield* IngestState
    // The replica the key API's list pages read (DATABASE_READ_URL), when the process has one.
    const readPool = yield* Effect.serviceOption(ReadPool)

    const databaseSilent = { path: "database", message: "PostgreSQL did not answer" }
    const checkDatabase = pingDatabase.pipe(
      Effect.provide(services),
      Effect.mapError(() => databaseSilent)
    )
    // Read after the database answered the ping: failing or slow, it is the database that is not ready.
    const readSources = ingest.readAll.pipe(
      Effect.timeout(SOURCES_READ_TIMEOUT),
      Effect.mapError(() => [databaseSilent])
    )
    const checkReplica = Option.match(readPool, {
      onNone: () => Effect.void,
      onSome: (pool) =>
        pingReadPool(pool).pipe(
          Effect.mapError(() => ({ path: "replica", message: "The read replica (DATABASE_READ_URL) did not answer" }))
        )
    })
    const checkRedis = pingRedis.pipe(
      Effect.provide(services),
      Effect.mapError(() => ({ path: "redis", message: "Redis did not answer" }))
    )

    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        Effect.all([checkDatabase, checkReplica, checkRedis], { concurrency: 3, mode: "validate" }).pipe(
          Effect.mapError((failures) => failures.flatMap(Option.toArray)),
          Effect.zipRight(readSources),
          Effect.map((states) => {
            const polled = states.map(sourceStatus).filter((source) => source.enabled)
            return {
              status: "ready" as const,
              checks: {
                database: "ok" as const,
                replica: Option.isSome(readPool) ? ("ok" as const) : ("none" as const),
                redis: Option.isSome(redis) ? ("ok" as const) : ("in-process" as const),
                sources: Object.fromEntries(
                  polled.map((source) => [source.name, isDegraded(source) ? ("degraded" as const) : ("ok" as const)])
                )
              },
              degraded: polled
                .filter(isDegraded)
                .map((source) => ({ source: source.name, lastError: source.lastError }))
            }
          }),
          Effect.mapError(
            (failures) =>
              new ApiError.ServiceUnavailable({
                message: "Not ready: a dependency is unreachable",
                details: failures
              })
          )
        )
      )
  })
)
