import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Runs an effect in one database transaction, for callers outside infra that compose several
 * repositories (the demo seed). Repositories' own transactions inside it become savepoints.
 */
export const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(effect))
