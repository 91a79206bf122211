import { SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { bucharestDate } from "../../domain/BucharestTime.js"
import { addDays } from "../../domain/ingest/PublicationDays.js"
import { SOURCE_NAMES, type SourceName } from "../../domain/ingest/SourceFailure.js"
import { clockNow } from "../db/ClockNow.js"
import { fencePoll, type PollLeaseLost } from "./PollLease.js"
import type { SourceBlock } from "./SourceClient.js"

/**
 * How often a worker's poller of a source says it polls it (`heartbeat`; a poll's start says it too).
 * The source is polled (`enabled`) while one said so within the last three: a worker that stopped
 * polling it (stopped, crashed, INGEST_SOURCES changed) leaves it off within 3 minutes.
 */
export const POLLER_HEARTBEAT = Duration.minutes(1)
const POLLER_ALIVE_FOR = Duration.times(POLLER_HEARTBEAT, 3)

/**
 * A source's poller state as it is stored; `cursor` is the poller's own paging state (JSON);
 * `enabled`: a worker polls it (its poller's heartbeat is fresh).
 */
export const SourceStateRow = Schema.Struct({
  name: Schema.Literal(...SOURCE_NAMES),
  enabled: Schema.Boolean,
  watermark: Schema.String,
  cursor: Schema.NullOr(Schema.Unknown),
  last_success_at: Schema.NullOr(Schema.DateFromSelf),
  last_error_at: Schema.NullOr(Schema.DateFromSelf),
  last_error: Schema.NullOr(Schema.String),
  ingested: Schema.NumberFromString,
  skipped: Schema.NumberFromString,
  revisited_on: Schema.NullOr(Schema.String)
})
export type SourceState = typeof SourceStateRow.Type

/** A source's state as operators read it (`/ready`; with its notice jobs, `sources status` and the app's settings: NoticeJobs). */
export interface SourceStatus {
  readonly name: SourceName
  readonly enabled: boolean
  readonly watermark: string
  readonly lastSuccessAt: string | null
  readonly lastErrorAt: string | null
  readonly lastError: string | null
  readonly ingested: number
  readonly skipped: number
}

export const sourceStatus = (state: SourceState): SourceStatus => ({
  name: state.name,
  enabled: state.enabled,
  watermark: state.watermark,
  lastSuccessAt: state.last_success_at?.toISOString() ?? null,
  lastErrorAt: state.last_error_at?.toISOString() ?? null,
  lastError: state.last_error,
  ingested: state.ingested,
  skipped: state.skipped
})

/** A polled source whose last poll failed (or that failed before it ever succeeded): it is down. */
export const isDegraded = (status: SourceStatus) =>
  status.enabled &&
  status.lastErrorAt !== null &&
  (status.lastSuccessAt === null || status.lastErrorAt > status.lastSuccessAt)

/** A notice a poller has read: what it became (or why it was skipped) and the procedure's TED number. */
export interface SeenNotice {
  readonly source: SourceName
  readonly ref: string
  readonly version: number
  readonly tenderId: string | null
  readonly skipReason: string | null
  readonly tedRef: string | null
  /** The id of the tender record it gave (`tenders.source_notice_id`), when it gave one. */
  readonly sourceNoticeId: string | null
}

/**
 * The pollers' state in PostgreSQL, written from here only: per source its watermark, paging in
 * progress, last success and error and counters, the end of its last `Retry-After`
 * (`ingest_sources`), and every notice read (`ingested_notices`), so that a restart resumes where it
 * stopped, a notice seen again is not read twice and no worker asks a source that asked to wait.
 */
export class IngestState extends Context.Tag("IngestState")<
  IngestState,
  {
    /** The source's state at a poll's start, created with `watermark` on first use; a heartbeat of its poller. */
    readonly open: (source: SourceName, watermark: string) => Effect.Effect<SourceState>
    /**
     * A worker's poller of the source says it polls it (every POLLER_HEARTBEAT): the source is
     * `enabled` while one did within the last three. Workers that do not poll a source write nothing.
     */
    readonly heartbeat: (source: SourceName) => Effect.Effect<void>
    readonly saveCursor: (source: SourceName, cursor: unknown) => Effect.Effect<void>
    /**
     * A poll that went to the end: the new watermark, no paging in progress, the success time. Fenced
     * as a page's intake is: a poll whose lease went to another poll writes nothing (it would clear
     * that poll's cursor) and fails with PollLeaseLost.
     */
    readonly finishPoll: (source: SourceName, watermark: string) => Effect.Effect<void, PollLeaseLost>
    readonly recordError: (source: SourceName, message: string) => Effect.Effect<void>
    /** The past days' lists were asked again on `day` (the SEAP poller's daily revisit). */
    readonly markRevisited: (source: SourceName, day: string) => Effect.Effect<void>
    readonly count: (source: SourceName, counts: { ingested: number; skipped: number }) => Effect.Effect<void>
    /** The source's `Retry-After` as every process sees it (`ingest_sources.blocked_until`), for its client. */
    readonly sourceBlock: (source: SourceName) => SourceBlock
    /** Every source, in SOURCE_NAMES order; one never polled shows its defaults. */
    readonly all: Effect.Effect<ReadonlyArray<SourceState>>
    /** `all`, failing when the database does not answer (`/ready` reports it instead of dying). */
    readonly readAll: Effect.Effect<ReadonlyArray<SourceState>, SqlError.SqlError>
    /** The versions already read of these notices (absent: never read). */
    readonly seenVersions: (
      source: SourceName,
      refs: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, number>>
    /** Marks notices read; a mark keeps the greatest version read (an older one read late does not lower it). */
    readonly markSeen: (notices: ReadonlyArray<SeenNotice>) => Effect.Effect<void>
    /** The tender of this notice type another source's notice of the same procedure (same TED number) became. */
    readonly tenderOfProcedure: (
      tedRef: string,
      notSource: SourceName,
      noticeType: string
    ) => Effect.Effect<Option.Option<string>>
    /**
     * The other source's tender an earlier version of this notice joined: the same notice number (a
     * SEAP erratum) or the same notice id (an eForms change notice names the notice it changes).
     */
    readonly joinedTender: (
      source: SourceName,
      ref: string,
      sourceNoticeId: string
    ) => Effect.Effect<Option.Option<string>>
  }
>() {}

const decodeState = Schema.decodeUnknown(SourceStateRow)

export const IngestStateLive = Layer.effect(
  IngestState,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = (now: Date) =>
      sql`name, coalesce(poller_alive_until > ${now}, false) AS enabled, watermark::text AS watermark, cursor,
          last_success_at, last_error_at, last_error, ingested::text AS ingested, skipped::text AS skipped,
          revisited_on::text AS revisited_on`

    const stateOf = (source: SourceName) =>
      Effect.flatMap(clockNow, (now) => sql`SELECT ${columns(now)} FROM ingest_sources WHERE name = ${source}`).pipe(
        Effect.flatMap((rows) => decodeState(rows[0])),
        Effect.orDie
      )

    /** The source's row, created with `watermark`, its poller vouched for from `now`. */
    const vouch = (source: SourceName, watermark: string, now: Date) =>
      sql`INSERT INTO ingest_sources (name, watermark, poller_alive_until)
          VALUES (${source}, ${watermark}::date, ${new Date(now.getTime() + Duration.toMillis(POLLER_ALIVE_FOR))})
          ON CONFLICT (name) DO UPDATE SET poller_alive_until = EXCLUDED.poller_alive_until`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const open = (source: SourceName, watermark: string) =>
      Effect.flatMap(clockNow, (now) => vouch(source, watermark, now)).pipe(Effect.zipRight(stateOf(source)))

    // A poller's first beat may come before its first poll: the row it creates starts from
    // yesterday, as the pollers' first poll does.
    const heartbeat = (source: SourceName) =>
      Effect.flatMap(clockNow, (now) => vouch(source, addDays(bucharestDate(now.getTime()), -1), now))

    const saveCursor = (source: SourceName, cursor: unknown) =>
      Effect.flatMap(clockNow, (now) =>
        sql`UPDATE ingest_sources SET cursor = ${JSON.stringify(cursor)}::jsonb, updated_at = ${now}
            WHERE name = ${source}`.pipe(Effect.asVoid, Effect.orDie)
      )

    const finishPoll = (source: SourceName, watermark: string) =>
      Effect.flatMap(clockNow, (now) =>
        sql
          .withTransaction(
            fencePoll(sql, source).pipe(
              Effect.zipRight(sql`UPDATE ingest_sources
              SET watermark = greatest(watermark, ${watermark}::date), cursor = NULL, last_success_at = ${now},
                  updated_at = ${now}
              WHERE name = ${source}`),
              Effect.asVoid
            )
          )
          .pipe(Effect.catchTag("SqlError", Effect.die))
      )

    const recordError = (source: SourceName, message: string) =>
      Effect.flatMap(clockNow, (now) =>
        sql`
          INSERT INTO ingest_sources (name, watermark, last_error_at, last_error, updated_at)
          VALUES (${source}, ${bucharestDate(now.getTime())}::date, ${now}, ${message.slice(0, 500)}, ${now})
          ON CONFLICT (name) DO UPDATE SET
            last_error_at = EXCLUDED.last_error_at, last_error = EXCLUDED.last_error, updated_at = EXCLUDED.updated_at`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
      )

    const markRevisited = (source: SourceName, day: string) =>
      sql`UPDATE ingest_sources SET revisited_on = ${day}::date WHERE name = ${source}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const count = (source: SourceName, counts: { ingested: number; skipped: number }) =>
      counts.ingested === 0 && counts.skipped === 0
        ? Effect.void
        : sql`UPDATE ingest_sources SET ingested = ingested + ${counts.ingested}, skipped = skipped + ${counts.skipped}
              WHERE name = ${source}`.pipe(Effect.asVoid, Effect.orDie)

    const sourceBlock = (source: SourceName): SourceBlock => ({
      until: sql<{ until: Date | null }>`SELECT blocked_until AS until FROM ingest_sources WHERE name = ${source}`.pipe(
        Effect.map((rows) => rows[0]?.until?.getTime() ?? 0),
        Effect.orDie
      ),
      // Kept as the later of the two ends: two workers' 429s never shorten the wait.
      extend: (until) =>
        Effect.flatMap(clockNow, (now) =>
          sql`
            INSERT INTO ingest_sources (name, watermark, blocked_until, updated_at)
            VALUES (${source}, ${bucharestDate(now.getTime())}::date, ${new Date(until)}, ${now})
            ON CONFLICT (name) DO UPDATE SET blocked_until = greatest(ingest_sources.blocked_until, EXCLUDED.blocked_until)`.pipe(
            Effect.asVoid,
            Effect.orDie
          )
        )
    })

    const stored = SqlSchema.findAll({
      Request: Schema.DateFromSelf,
      Result: SourceStateRow,
      execute: (now) => sql`SELECT ${columns(now)} FROM ingest_sources`
    })
    const readAll = Effect.gen(function* () {
      const now = yield* clockNow
      const rows = yield* stored(now).pipe(Effect.catchTag("ParseError", Effect.die))
      const today = bucharestDate(now.getTime())
      return SOURCE_NAMES.map(
        (name): SourceState =>
          rows.find((row) => row.name === name) ?? {
            name,
            enabled: false,
            watermark: today,
            cursor: null,
            last_success_at: null,
            last_error_at: null,
            last_error: null,
            ingested: 0,
            skipped: 0,
            revisited_on: null
          }
      )
    })

    const seenVersions = (source: SourceName, refs: ReadonlyArray<string>) =>
      refs.length === 0
        ? Effect.succeed(new Map<string, number>())
        : sql<{ notice_ref: string; version: number }>`
            SELECT notice_ref, version FROM ingested_notices
            WHERE source = ${source} AND notice_ref = ANY(${refs}::text[])`.pipe(
            Effect.map((rows) => new Map(rows.map((row) => [row.notice_ref, row.version]))),
            Effect.orDie
          )

    const insertSeen = (notices: ReadonlyArray<SeenNotice>) =>
      Effect.flatMap(
        clockNow,
        (now) =>
          sql`
            INSERT INTO ingested_notices
              (source, notice_ref, version, tender_id, skip_reason, ted_ref, source_notice_id, seen_at)
            SELECT * FROM unnest(${notices.map((n) => n.source)}::text[], ${notices.map((n) => n.ref)}::text[],
                                 ${notices.map((n) => n.version)}::int[], ${notices.map((n) => n.tenderId)}::uuid[],
                                 ${notices.map((n) => n.skipReason)}::text[], ${notices.map((n) => n.tedRef)}::text[],
                                 ${notices.map((n) => n.sourceNoticeId)}::text[],
                                 ${notices.map(() => now.toISOString())}::timestamptz[])
            ON CONFLICT (source, notice_ref) DO UPDATE SET
              version = greatest(ingested_notices.version, EXCLUDED.version),
              tender_id = coalesce(EXCLUDED.tender_id, ingested_notices.tender_id),
              skip_reason = EXCLUDED.skip_reason, ted_ref = coalesce(EXCLUDED.ted_ref, ingested_notices.ted_ref),
              source_notice_id = coalesce(EXCLUDED.source_notice_id, ingested_notices.source_notice_id),
              seen_at = EXCLUDED.seen_at`
      )

    // One row per notice: a page listing a notice twice would otherwise fail the statement ("cannot
    // affect row a second time") and, with it, every later poll of that page. The last reading counts.
    // A mark the database refuses (a value its index or column cannot hold) would undo the page's
    // transaction, and every later poll's: the marks go under a savepoint, and if refused, one by one,
    // a refused one logged and left out (its notice is read again by the next poll that lists it).
    const markSeen = (all: ReadonlyArray<SeenNotice>) => {
      const notices = [...new Map(all.map((n) => [`${n.source}\u0000${n.ref}`, n])).values()]
      return notices.length === 0
        ? Effect.void
        : sql.withTransaction(insertSeen(notices)).pipe(
            Effect.catchTag("SqlError", () =>
              Effect.forEach(
                notices,
                (notice) =>
                  sql
                    .withTransaction(insertSeen([notice]))
                    .pipe(
                      Effect.catchTag("SqlError", (error) =>
                        Effect.logWarning(
                          `${notice.source} notice ${notice.ref.slice(0, 40)}: its read mark was refused (${String((error.cause as { message?: unknown } | undefined)?.message ?? error.message).slice(0, 200)})`
                        )
                      )
                    ),
                { discard: true }
              )
            ),
            Effect.orDie
          )
    }

    const firstTender = Effect.map((rows: ReadonlyArray<{ tender_id: string }>) =>
      Option.fromNullable(rows[0]?.tender_id)
    )

    const tenderOfProcedure = (tedRef: string, notSource: SourceName, noticeType: string) =>
      sql<{ tender_id: string }>`
        SELECT n.tender_id FROM ingested_notices n JOIN tenders t ON t.id = n.tender_id
        WHERE n.ted_ref = ${tedRef} AND n.source <> ${notSource} AND t.notice_type = ${noticeType}
        ORDER BY n.seen_at LIMIT 1`.pipe(firstTender, Effect.orDie)

    const joinedTender = (source: SourceName, ref: string, sourceNoticeId: string) =>
      sql<{ tender_id: string }>`
        SELECT tender_id FROM ingested_notices
        WHERE source = ${source} AND tender_id IS NOT NULL
          AND (notice_ref = ${ref} OR source_notice_id = ${sourceNoticeId})
        ORDER BY seen_at DESC LIMIT 1`.pipe(firstTender, Effect.orDie)

    return {
      open,
      heartbeat,
      saveCursor,
      finishPoll,
      recordError,
      markRevisited,
      count,
      sourceBlock,
      all: Effect.orDie(readAll),
      readAll,
      seenVersions,
      markSeen,
      tenderOfProcedure,
      joinedTender
    }
  })
)
