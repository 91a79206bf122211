import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Either, Layer, Option } from "effect"
import { bucharestDate } from "../../domain/BucharestTime.js"
import { sameProcedure } from "../../domain/ingest/SameProcedure.js"
import type { SourceName } from "../../domain/ingest/SourceFailure.js"
import type { ParsedItem } from "../../domain/tenders/formats/ParsedItem.js"
import { isWebUrl } from "../../domain/tenders/SourceUrl.js"
import { normalizeTenderRecord, type Tender } from "../../domain/tenders/TenderRecord.js"
import { JobQueue } from "../queue/JobQueue.js"
import { ScoreTenders } from "../scoring/ScoringJobKinds.js"
import { TenderStore } from "../tenders/TenderStore.js"
import { IngestState, type SeenNotice } from "./IngestState.js"
import { fencePoll, type PollLeaseLost } from "./PollLease.js"

/** One notice a poller read, parsed (or skipped) by the importers the service already has. */
export interface PolledNotice {
  /** The source's own number of the notice (TED publication number, SEAP notice number). */
  readonly ref: string
  readonly version: number
  /** The procedure's TED publication number, normalised, when the notice gives it. */
  readonly tedRef: string | null
  /** The notice's public page: its `source_url` when the notice itself names none, or no http(s) URL. */
  readonly pageUrl: string
  readonly item: ParsedItem
  /** The source says the procedure was cancelled: its tender is closed. */
  readonly cancelled?: boolean
  /**
   * Skipped for what the source's list said of it (no link, a malformed number), not for the notice
   * itself, which was never read: counted and logged, but not marked read, so that a list naming it
   * whole later reads it.
   */
  readonly unread?: boolean
}

export interface IntakeResult {
  readonly inserted: number
  readonly updated: number
  /** Notices of a procedure already known from the other source: joined to its tender. */
  readonly joined: number
  readonly skipped: number
}

/**
 * Where polled notices enter the service. In one transaction per batch: each notice becomes or
 * updates its tender (upsert by source and notice id, so a notice seen again is an update and a
 * change notice updates the tender it changes), or joins the tender of the same procedure already
 * known from the other source; every notice read is marked read, with its skip reason if it was skipped;
 * one `tenders.score` job scores the batch, where tenders new to the service may alert and tenders a
 * change updated alert only where their verdict rose; and the
 * poller's paging state advances. A crash anywhere leaves all of it undone, so the page is read again.
 * A poll's page is taken in only while the poll holds its lease (PollLease's fence): a poll whose
 * lease passed to another poll fails with PollLeaseLost and its page is undone.
 */
export class NoticeIntake extends Context.Tag("NoticeIntake")<
  NoticeIntake,
  {
    readonly intake: (
      source: SourceName,
      notices: ReadonlyArray<PolledNotice>,
      /** The poller's paging state after this batch, saved with it. */
      cursor?: Option.Option<unknown>
    ) => Effect.Effect<IntakeResult, PollLeaseLost>
  }
>() {}

/** The advisory lock of page intake (see `intake`); other locks of the service: Migrator, ScorePartitions, LifecycleLease. */
const INTAKE_LOCK = 7_246_835

/**
 * How far ahead of the service's clock a publication date is believed: a source's day may begin
 * before ours (time zones), but a notice published years ahead (9999-12-31) is a typo or a forgery,
 * and as a tender it would sort first, stay "new" and sit in a far partition for good.
 */
const PUBLISHED_AHEAD_AT_MOST = 86_400_000

const keyOf = (tender: Tender) => `${tender.source}\u0000${tender.sourceNoticeId}`

export const NoticeIntakeLive = Layer.effect(
  NoticeIntake,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* TenderStore
    const state = yield* IngestState
    const queue = yield* JobQueue
    // The CPV table does not change while the process runs.
    const catalog = yield* Effect.cached(store.cpvCatalog)

    /**
     * A notice joins the other source's tender of its procedure: its page is kept beside the tender's,
     * and an award's winners are added to the tender's. A later version of a notice that joined
     * before (`changes`: a SEAP erratum, an eForms change notice) also moves the facts a change moves,
     * the deadline and the estimated value, where it gives them. True when one of those moved or a
     * winner was added: the tender is then scored again as a change (its new winners' companies are
     * rescored with their award history).
     */
    const joinTender = (tenderId: string, tender: Tender, changes: boolean) =>
      sql<{ moved: boolean }>`
        UPDATE tenders SET
          other_source_urls = CASE
            WHEN tenders.source_url = ${tender.sourceUrl} OR ${tender.sourceUrl} = ANY(tenders.other_source_urls)
            THEN tenders.other_source_urls
            ELSE array_append(tenders.other_source_urls, ${tender.sourceUrl}) END,
          winner_fiscal_codes = tenders.winner_fiscal_codes || ARRAY(
            SELECT w FROM unnest(${tender.winnerFiscalCodes}::text[]) WITH ORDINALITY AS u(w, i)
            WHERE w <> ALL(tenders.winner_fiscal_codes) ORDER BY i),
          deadline = CASE WHEN ${changes} THEN coalesce(${tender.deadline}, tenders.deadline) ELSE tenders.deadline END,
          estimated_value_ron = CASE WHEN ${changes} THEN coalesce(${tender.estimatedValueRon}, tenders.estimated_value_ron)
                                ELSE tenders.estimated_value_ron END,
          estimated_value_eur = CASE WHEN ${changes} THEN coalesce(${tender.estimatedValueEur}, tenders.estimated_value_eur)
                                ELSE tenders.estimated_value_eur END,
          updated_at = now()
        FROM (SELECT deadline, estimated_value_ron, cardinality(winner_fiscal_codes) AS winners
              FROM tenders WHERE id = ${tenderId} FOR UPDATE) AS before
        WHERE tenders.id = ${tenderId}
        RETURNING tenders.deadline IS DISTINCT FROM before.deadline
          OR tenders.estimated_value_ron IS DISTINCT FROM before.estimated_value_ron
          OR cardinality(tenders.winner_fiscal_codes) > before.winners AS moved`.pipe(
        Effect.map((rows) => rows[0]?.moved === true),
        Effect.orDie
      )

    /** The other source's tenders of this one's buyer published within a week of it. */
    const otherSourceTenders = (source: SourceName, tender: Tender) =>
      sql<{
        id: string
        title: string
        main_cpv: string
        publish_date: Date
        deadline: Date | null
        value_ron: number | null
      }>`
        SELECT t.id, t.title, t.main_cpv, t.publish_date, t.deadline, t.estimated_value_ron::float8 AS value_ron
        FROM tenders t JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE a.fiscal_code = ${tender.authority.fiscalCode} AND t.notice_type = ${tender.noticeType}
          AND t.source = ANY(${source === "ted" ? ["sicap"] : ["ted", "ted-eforms"]}::text[])
          AND t.publish_date BETWEEN ${new Date(tender.publishDate.getTime() - 7 * 86_400_000)}
                                 AND ${new Date(tender.publishDate.getTime() + 7 * 86_400_000)}`.pipe(Effect.orDie)

    /** The tender of the same procedure from the other source, by its TED number, else by its facts. */
    const sameProcedureTender = (source: SourceName, notice: PolledNotice, tender: Tender) =>
      Effect.gen(function* () {
        if (notice.tedRef !== null) {
          const byNumber = yield* state.tenderOfProcedure(notice.tedRef, source, tender.noticeType)
          if (Option.isSome(byNumber)) return byNumber
        }
        if (tender.authority.fiscalCode === null) return Option.none<string>()
        const facts = {
          authorityFiscalCode: tender.authority.fiscalCode,
          mainCpv: tender.mainCpv,
          publishDate: tender.publishDate,
          deadline: tender.deadline,
          title: tender.title,
          valueRon: tender.estimatedValueRon
        }
        const candidates = yield* otherSourceTenders(source, tender)
        const match = candidates.find((other) =>
          sameProcedure(facts, {
            authorityFiscalCode: tender.authority.fiscalCode,
            mainCpv: other.main_cpv,
            publishDate: other.publish_date,
            deadline: other.deadline,
            title: other.title,
            valueRon: other.value_ron
          })
        )
        return Option.map(Option.fromNullable(match), (other) => other.id)
      })

    const intake = (source: SourceName, notices: ReadonlyArray<PolledNotice>, cursor = Option.none<unknown>()) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const cpv = yield* catalog
            const now = yield* Clock.currentTimeMillis
            // Pages are taken in one at a time (a lock held to the commit): a TED and a SEAP page of one
            // procedure, taken in at once, would each look for the other's tender before it commits,
            // and make two.
            yield* sql`SELECT pg_advisory_xact_lock(${INTAKE_LOCK})`
            // After the intake lock, as every other lock of the page (the source's row: count, cursor).
            yield* fencePoll(sql, source)
            // An older version whose read began before a newer one was taken in (a retry job beside a
            // poll, two polls) changes nothing: an undated version (SEAP's errata) read last would
            // otherwise win the upsert. Under the lock the read marks are exactly the versions taken in.
            const taken = yield* state.seenVersions(
              source,
              notices.map((notice) => notice.ref)
            )
            const current: Array<PolledNotice> = []
            for (const notice of notices) {
              const newest = taken.get(notice.ref) ?? -1
              if (newest <= notice.version) current.push(notice)
              else
                yield* Effect.logInfo(
                  `${source} notice ${notice.ref}: version ${notice.version} read after version ${newest} was taken in; it changes nothing`
                )
            }
            const seen: Array<SeenNotice> = []
            const unread = new Set<SeenNotice>()
            const skip = (notice: PolledNotice, reason: string) => {
              const entry = {
                source,
                ref: notice.ref,
                version: notice.version,
                tenderId: null,
                skipReason: reason,
                tedRef: notice.tedRef,
                sourceNoticeId: null
              }
              seen.push(entry)
              if (notice.unread === true) unread.add(entry)
            }
            const normalized: Array<{ notice: PolledNotice; tender: Tender }> = []
            for (const notice of current) {
              if (notice.item._tag === "Skipped") {
                skip(notice, notice.item.reason)
                continue
              }
              const record = notice.item.record as { source_url?: unknown }
              const withPage = isWebUrl(record.source_url) ? record : { ...record, source_url: notice.pageUrl }
              const tender = normalizeTenderRecord(cpv, withPage)
              if (Either.isLeft(tender)) skip(notice, tender.left)
              else if (tender.right.publishDate.getTime() > now + PUBLISHED_AHEAD_AT_MOST) {
                skip(notice, `publication date ${bucharestDate(tender.right.publishDate.getTime())} is in the future`)
              } else normalized.push({ notice, tender: tender.right })
            }
            // A notice whose own tender exists updates it; a later version of one that joined the other
            // source's tender updates that one; a new one may be a procedure the other source already
            // brought, which it joins instead of doubling.
            // A change of a change names the first change: keyed by the original, it finds its tender.
            const resolved = yield* store.resolveVersions(normalized.map((entry) => entry.tender))
            const versions = normalized.map(({ notice }, i) => ({ notice, tender: resolved[i]! }))
            const existing = yield* store.tenderIds(resolved)
            const toStore: Array<{ notice: PolledNotice; tender: Tender }> = []
            const joinedIds: Array<{ notice: PolledNotice; tenderId: string }> = []
            const changedByJoin: Array<string> = []
            for (const { notice, tender } of versions) {
              if (existing.has(keyOf(tender))) {
                toStore.push({ notice, tender })
                continue
              }
              const before = yield* state.joinedTender(source, notice.ref, tender.sourceNoticeId)
              const known = Option.isSome(before) ? before : yield* sameProcedureTender(source, notice, tender)
              if (Option.isNone(known)) {
                toStore.push({ notice, tender })
                continue
              }
              if (yield* joinTender(known.value, tender, Option.isSome(before))) changedByJoin.push(known.value)
              joinedIds.push({ notice, tenderId: known.value })
              seen.push({
                source,
                ref: notice.ref,
                version: notice.version,
                tenderId: known.value,
                skipReason: null,
                tedRef: notice.tedRef,
                sourceNoticeId: tender.sourceNoticeId
              })
            }
            const joined = joinedIds.length
            const stored = yield* store.upsert(toStore.map((entry) => entry.tender))
            const refused = new Map(stored.failed.map(({ tender, reason }) => [tender, reason]))
            const ids = yield* store.tenderIds(toStore.map((entry) => entry.tender))
            for (const { notice, tender } of toStore) {
              const reason = refused.get(tender)
              if (reason !== undefined) skip(notice, reason)
              else
                seen.push({
                  source,
                  ref: notice.ref,
                  version: notice.version,
                  tenderId: ids.get(keyOf(tender)) ?? null,
                  skipReason: null,
                  tedRef: notice.tedRef,
                  sourceNoticeId: tender.sourceNoticeId
                })
            }
            yield* state.markSeen(seen.filter((notice) => !unread.has(notice)))
            const cancelled = [
              ...toStore.filter(({ notice }) => notice.cancelled === true).map(({ tender }) => ids.get(keyOf(tender))),
              ...joinedIds.filter(({ notice }) => notice.cancelled === true).map(({ tenderId }) => tenderId)
            ]
            yield* store.closeCancelled(cancelled.filter((id): id is string => id !== undefined))
            const changed = [...new Set([...stored.updated, ...changedByJoin])]
            const scored = [...new Set([...stored.inserted, ...changed])]
            if (scored.length > 0) {
              yield* queue.enqueue(ScoreTenders, { tenderIds: scored, isNew: stored.inserted, changed })
            }
            if (Option.isSome(cursor)) yield* state.saveCursor(source, cursor.value)
            const skipped = seen.filter((notice) => notice.skipReason !== null)
            yield* state.count(source, { ingested: seen.length - skipped.length, skipped: skipped.length })
            for (const notice of skipped) {
              yield* Effect.logWarning(`${source} notice ${notice.ref} skipped: ${notice.skipReason}`)
            }
            return {
              inserted: stored.inserted.length,
              updated: stored.updated.length,
              joined,
              skipped: skipped.length
            }
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    return { intake }
  })
)
