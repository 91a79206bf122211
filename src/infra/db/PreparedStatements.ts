import type { SqlClient, SqlError as SqlErrorType } from "@effect/sql"
import { SqlError } from "@effect/sql"
import { Effect, Option } from "effect"
import type pg from "pg"
import { PgPool, ReadPool } from "./PgPool.js"

/**
 * The runner of the measured hot path's named prepared statements (key lookup in auth, the list page
 * in scoring, the charge in billing: each capability keeps its statements beside its repository).
 *
 * Why they bypass @effect/sql: run through `SqlClient`, each query opens an Effect scope and is
 * parsed and planned again; straight on the pool, `pg` prepares a named statement once per
 * connection and afterwards sends only its parameters. Measured with `npm run bench -- api`, this
 * raised the service from 0.59x/0.72x to 0.73x/0.85x of the bare node:http baseline (BENCHMARKS.md,
 * "how the figures moved"). The baseline (bench/baseline-server.ts) runs these same statements. Their
 * rows are typed, not decoded by Schema: decoding every list row is the cost this path avoids.
 *
 * They ignore a surrounding `sql.withTransaction`: the pool hands them any connection, not the
 * transaction's. Inside a transaction, run a statement's text with `runOnSqlClient`.
 */

/** A named prepared statement. A name always stands for the same text (each connection prepares it once). */
export interface Statement<Params extends ReadonlyArray<unknown>, Row> {
  readonly name: string
  readonly text: string
  /** Types only (never set): the parameters it takes and the rows it returns. */
  readonly signature?: (params: Params) => Row
}

export const statement = <Params extends ReadonlyArray<unknown>, Row>(
  name: string,
  text: string
): Statement<Params, Row> => ({ name, text })

/** A runner of named statements on one pool. */
export type RunPrepared = <Params extends ReadonlyArray<unknown>, Row>(
  statement: Statement<Params, Row>,
  params: Params
) => Effect.Effect<ReadonlyArray<Row>>

/**
 * Runs a statement by name straight on the pool (no Effect scope per query), outside any
 * transaction. SQL failures are defects: these statements take no user-shaped SQL.
 */
const runPreparedOn =
  (pool: pg.Pool): RunPrepared =>
  <Params extends ReadonlyArray<unknown>, Row>(statement: Statement<Params, Row>, params: Params) =>
    Effect.async<ReadonlyArray<Row>, SqlError.SqlError>((resume) => {
      pool.query(
        { name: statement.name, text: statement.text, values: params as ReadonlyArray<unknown> as Array<unknown> },
        (cause, result) =>
          resume(
            cause
              ? Effect.fail(new SqlError.SqlError({ cause, message: `Failed to execute ${statement.name}` }))
              : Effect.succeed(result.rows as ReadonlyArray<Row>)
          )
      )
    }).pipe(Effect.orDie)

/** The runner on the primary. */
export const makeRunPrepared = Effect.map(PgPool, runPreparedOn)

/**
 * The runner on the read replica (ReadPool), when the process has one (DATABASE_READ_URL): for reads
 * that may lag the primary by the replication delay.
 */
export const makeRunPreparedOnReplica = Effect.map(Effect.serviceOption(ReadPool), Option.map(runPreparedOn))

/** Runs a statement's text (unnamed) through the SqlClient: inside `sql.withTransaction`, on its connection. */
export const runOnSqlClient = <Params extends ReadonlyArray<unknown>, Row extends object>(
  sql: SqlClient.SqlClient,
  statement: Statement<Params, Row>,
  params: Params
): Effect.Effect<ReadonlyArray<Row>, SqlErrorType.SqlError> => sql.unsafe<Row>(statement.text, params)
