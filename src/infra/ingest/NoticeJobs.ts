import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { SourceName } from "../../domain/ingest/SourceFailure.js"
import { IngestState, type SourceStatus, sourceStatus } from "./IngestState.js"
import { ReadSeapNotice } from "./SeapPoller.js"
import { ReadTedNotice } from "./TedPoller.js"

/** Each source's job of a notice read that failed during its poll. */
const NOTICE_JOB_KINDS: Record<SourceName, string> = { ted: ReadTedNotice.name, seap: ReadSeapNotice.name }

/**
 * A source's notice jobs in the queue: still to be tried again (queued or running), and lost
 * (dead-lettered). `reap` deletes dead jobs 30 days after they died, so `lostNotices` counts those
 * lost in the last 30 days.
 */
export interface NoticeJobCounts {
  readonly retryingNotices: number
  readonly lostNotices: number
}

/** A source's status with its notice jobs: what `sources status` and `GET /api/v1/sources` answer. */
export type SourceReport = SourceStatus & NoticeJobCounts

const CountRow = Schema.Struct({ kind: Schema.String, retrying: Schema.Number, lost: Schema.Number })

const decodeCounts = Schema.decodeUnknown(Schema.Array(CountRow))

/**
 * The read of every source (in `IngestState.all`'s order) with its notice jobs. Not on `/ready`:
 * counting reads the queue's table, which has no index for dead jobs, and a lost notice is not an outage.
 */
export const makeSourceReports = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const ingest = yield* IngestState
  const counts = sql`
    SELECT kind, count(*) FILTER (WHERE status IN ('queued', 'running'))::int AS retrying,
           count(*) FILTER (WHERE status = 'dead')::int AS lost
    FROM jobs WHERE kind = ANY(${Object.values(NOTICE_JOB_KINDS)}::text[]) GROUP BY kind`.pipe(
    Effect.flatMap(decodeCounts),
    Effect.orDie
  )
  return Effect.gen(function* () {
    const states = yield* ingest.all
    const rows = yield* counts
    return states.map((state): SourceReport => {
      const row = rows.find((r) => r.kind === NOTICE_JOB_KINDS[state.name])
      return { ...sourceStatus(state), retryingNotices: row?.retrying ?? 0, lostNotices: row?.lost ?? 0 }
    })
  })
})
