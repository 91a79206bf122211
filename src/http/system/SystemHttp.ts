import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { pingRedis, RedisConnection } from "../../infra/billing/Redis.js"
import { Api } from "../Api.js"

const within = Duration.seconds(2)

export const SystemHttpLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const redis = yield* RedisConnection

    const checkDatabase = sql`SELECT 1`.pipe(
      Effect.timeout(within),
      Effect.mapError(() => ({ path: "database", message: "PostgreSQL did not answer" }))
    )
    const checkRedis = pingRedis.pipe(
      Effect.provideService(RedisConnection, redis),
      Effect.mapError(() => ({ path: "redis", message: "Redis did not answer" }))
    )

    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        Effect.all([checkDatabase, checkRedis], { concurrency: 2, mode: "validate" }).pipe(
          Effect.as({
            status: "ready" as const,
            checks: { database: "ok" as const, redis: Option.isSome(redis) ? ("ok" as const) : ("in-process" as const) }
          }),
          Effect.mapError(
            (failures) =>
              new ApiError.ServiceUnavailable({
                message: "Not ready: a dependency is unreachable",
                details: failures.flatMap((f) => (Option.isSome(f) ? [f.value] : []))
              })
          )
        )
      )
  })
)
