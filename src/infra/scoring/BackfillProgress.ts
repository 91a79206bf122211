import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { MODEL_VERSION } from "../../domain/scoring/Model.js"

/** How far the current model version's backfill got through its first pass (the open tenders). */
export interface OpenPassProgress {
  /** The open tenders up to this ingest_seq are scored by the current model. */
  readonly afterSeq: string
  readonly done: boolean
}

/**
 * The backfill's progress (table score_backfills, migration 0050), kept per model version: a backfill
 * resumed after a crash goes on with its first pass from the last page written, whether or not rows
 * of another version remain (the tenders left may have none, and still owe the pairs only the new
 * model stores).
 */
export const makeBackfillProgress = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** The current version's progress; none when no backfill of it ever started. */
  const current = sql<{ open_after_seq: string; open_done: boolean }>`
    SELECT open_after_seq::text AS open_after_seq, open_done FROM score_backfills
    WHERE model_version = ${MODEL_VERSION}`.pipe(
    Effect.map((rows): OpenPassProgress | undefined =>
      rows[0] === undefined ? undefined : { afterSeq: rows[0].open_after_seq, done: rows[0].open_done }
    )
  )

  const start = sql`INSERT INTO score_backfills (model_version) VALUES (${MODEL_VERSION}) ON CONFLICT DO NOTHING`

  /** The open tenders up to `afterSeq` are written. */
  const advance = (afterSeq: string) =>
    sql`UPDATE score_backfills SET open_after_seq = ${afterSeq}::bigint WHERE model_version = ${MODEL_VERSION}`

  const finishOpenPass = sql`UPDATE score_backfills SET open_done = true WHERE model_version = ${MODEL_VERSION}`

  return { current, start, advance, finishOpenPass }
})
