import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Runs a named prepared statement on a pooled connection: `pg` parses and plans it once per
 * connection and afterwards sends only its parameters. For the statements every key-API request
 * runs, re-parsing and re-planning cost more than executing them. A name must always stand for the
 * same text. SQL failures are defects: these statements take no user-shaped SQL.
 */
export const makePrepared =
  (sql: SqlClient.SqlClient) =>
  <A>(name: string, text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>> =>
    Effect.scoped(
      Effect.flatMap(sql.reserve, (connection) =>
        // pg's Client.query accepts a {name, text} config where the driver passes the SQL text.
        connection.executeRaw({ name, text } as unknown as string, params)
      )
    ).pipe(
      Effect.map((result) => (result as { rows: ReadonlyArray<A> }).rows),
      Effect.orDie
    )
