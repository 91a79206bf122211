import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { bucharestDate } from "../../domain/BucharestTime.js"
import { addDays, earlierDay, laterDay } from "../../domain/ingest/PublicationDays.js"
import { NOTICE_RETRY, SourceFailure } from "../../domain/ingest/SourceFailure.js"
import {
  isTedHost,
  TED_PAGE_LIMIT,
  type TedNoticeRef,
  TedSearchResponse,
  tedNoticeRef,
  tedSearchRequest
} from "../../domain/ingest/TedSearch.js"
import { parseInput } from "../../domain/tenders/formats/ImportFormat.js"
import { errorMessage, type ParsedItem, skipped } from "../../domain/tenders/formats/ParsedItem.js"
import { normalizeTedPublicationNumber } from "../../domain/tenders/formats/Sicap.js"
import { jobKind } from "../queue/JobKind.js"
import { JobQueue } from "../queue/JobQueue.js"
import { handle } from "../queue/JobRunner.js"
import { IngestConfig } from "./IngestConfig.js"
import { IngestState } from "./IngestState.js"
import { NoticeIntake, type PolledNotice } from "./NoticeIntake.js"
import { retriedAfterSourceWait } from "./NoticeRetry.js"
import { withPollLease } from "./PollLease.js"
import { makeSourceClient } from "./SourceClient.js"

/**
 * Paging in progress: the day the query started from, the token of the next page, and whether a page
 * before it listed a result it could not read (`held`: the watermark then stays on `day`).
 */
const TedCursor = Schema.Struct({
  day: Schema.String,
  token: Schema.NullOr(Schema.String),
  held: Schema.optional(Schema.Boolean)
})
const decodeCursor = Schema.decodeUnknownOption(TedCursor)
const decodeSearch = Schema.decodeUnknown(TedSearchResponse)

/**
 * Pages one poll may read beyond what TED's `totalNoticeCount` needs (notices published while it
 * pages add a few); past them the iteration is taken for a loop.
 */
const EXTRA_PAGES = 10

/**
 * The notices one query is taken to reach at most when TED gives no `totalNoticeCount` (its window in
 * page-number mode; about 100 days of Romanian notices): past them, and EXTRA_PAGES, it is a loop.
 */
const UNCOUNTED_NOTICES = 15_000

/**
 * Days a search result unreadable in its listing keeps the watermark on or before its day, so later
 * polls list it again (and read it, once listed whole); one that stays unreadable is then given up,
 * rather than making every poll page from its day for good.
 */
const UNREAD_HOLD_DAYS = 7

/** "ingest.ted-notice": a notice whose XML could not be read during its poll (NOTICE_RETRY). */
export const ReadTedNotice = jobKind(
  "ingest.ted-notice",
  Schema.Struct({
    publicationNumber: Schema.String,
    publicationDay: Schema.String,
    xmlUrl: Schema.String,
    pageUrl: Schema.String
  }),
  NOTICE_RETRY
)

/** The notice in a downloaded XML (eForms or TED R2.0.9), as the file importers read it. */
const parseNotice = (ref: TedNoticeRef, xml: string): ParsedItem => {
  try {
    const items = parseInput(xml, "auto")
    return items.find((item) => item._tag === "Parsed") ?? items[0] ?? skipped(ref.publicationNumber, "empty XML")
  } catch (error) {
    return skipped(ref.publicationNumber, `the XML cannot be read: ${errorMessage(error)}`)
  }
}

const polled = (ref: TedNoticeRef, item: ParsedItem): PolledNotice => ({
  ref: ref.publicationNumber,
  version: 0,
  tedRef: normalizeTedPublicationNumber(ref.publicationNumber) ?? null,
  pageUrl: ref.pageUrl,
  item,
  // A change notice "Notice cancelled": its tender is closed, as a SEAP cancellation closes one.
  cancelled: item._tag === "Parsed" && item.cancelled === true
})

/**
 * The TED poller: one `poll` asks the Search API for Romanian buyers' notices published on or after
 * the watermark (its own day included: TED publishes a day's notices at different times), follows
 * `iterationNextToken` to the end, reads each notice not read before from its XML link and hands
 * each page to the intake with the paging state, so a restart resumes at the page it stopped in.
 * A token TED no longer accepts restarts the query from the watermark (notices already read are
 * not read again). A notice whose XML fails becomes an `ingest.ted-notice` job. One poll of TED at
 * a time (PollLease); an iteration that does not end fails the poll.
 */
const makeTedPoller = Effect.gen(function* () {
  const config = yield* IngestConfig
  const state = yield* IngestState
  const intake = yield* NoticeIntake
  const queue = yield* JobQueue
  // TED's own hosts: the configured API's, and ted.europa.eu's, where the notices' XML links point.
  const apiHost = new URL(config.tedApiUrl).host
  const isOwnHost = (url: URL) => url.host === apiHost || isTedHost(url)
  const client = yield* makeSourceClient({
    source: "ted",
    spacing: config.spacing.ted,
    userAgent: config.userAgent,
    isOwnHost,
    block: state.sourceBlock("ted")
  })
  const searchUrl = `${config.tedApiUrl}/v3/notices/search`

  /**
   * One notice's XML, retried once at once (a kept-alive connection the server had closed); a notice
   * that fails again gets a job of its own instead of holding up its page.
   */
  const readNotice = (ref: TedNoticeRef) =>
    client.getXml(ref.xmlUrl, 1).pipe(Effect.map((xml) => polled(ref, parseNotice(ref, xml))))

  const search = (day: string, token: string | null) =>
    client.postJson(searchUrl, tedSearchRequest(day, token, config.pageSize)).pipe(
      Effect.flatMap((body) =>
        decodeSearch(body).pipe(
          Effect.mapError(
            () =>
              new SourceFailure({
                source: "ted",
                reason: "invalid",
                status: 200,
                retryAfter: undefined,
                message: "TED search answered without a notices list"
              })
          )
        )
      ),
      Effect.filterOrFail(
        (response) => response.timedOut !== true,
        () =>
          new SourceFailure({
            source: "ted",
            reason: "server",
            status: 200,
            retryAfter: undefined,
            message: "TED search timed out (partial results); the next poll asks again"
          })
      )
    )

  /**
   * One page: the notices not read before, read and taken in with the paging state that follows it.
   * A result the listing gives unreadable (no link, a malformed number, a link to another host) is
   * skipped but not marked read: the notice itself was never read, and a later listing that gives
   * it whole reads it (the cursor is `held`, so the watermark does not pass it). Returns the latest
   * day read and whether this poll's pages so far held the watermark.
   */
  const takePage = (notices: ReadonlyArray<unknown>, cursor: typeof TedCursor.Type) =>
    Effect.gen(function* () {
      const refs = notices.map((notice) => tedNoticeRef(notice, isOwnHost))
      const readable = refs.filter((ref): ref is TedNoticeRef => !("skip" in ref))
      const malformed = refs.flatMap((ref) =>
        "skip" in ref
          ? [
              {
                ref: ref.ref === "?" ? `search result ${refs.indexOf(ref) + 1}` : ref.ref,
                version: 0,
                tedRef: null,
                pageUrl: "",
                item: skipped(ref.ref, ref.skip),
                unread: true
              }
            ]
          : []
      )
      const seen = yield* state.seenVersions(
        "ted",
        readable.map((ref) => ref.publicationNumber)
      )
      const unread = readable.filter((ref) => !seen.has(ref.publicationNumber))
      const results = yield* Effect.forEach(unread, (ref) => Effect.either(readNotice(ref)), { concurrency: 4 })
      const read: Array<PolledNotice> = []
      const failed: Array<{ readonly ref: TedNoticeRef; readonly reason: string }> = []
      results.forEach((result, index) => {
        if (result._tag === "Right") read.push(result.right)
        else failed.push({ ref: unread[index]!, reason: result.left.message })
      })
      if (failed.length > 0) {
        // One retry job per notice: the next poll asks for its day again and meets it again.
        yield* queue.enqueueAll(
          ReadTedNotice,
          failed.map(({ ref }) => ({ payload: ref, groupKey: `ted:${ref.publicationNumber}` })),
          { unlessPending: true }
        )
        for (const { ref, reason } of failed) {
          yield* Effect.logWarning(
            `ted notice ${ref.publicationNumber}: its XML failed (${reason}); retried on its own`
          )
        }
      }
      const held = cursor.held === true || malformed.length > 0
      yield* intake.intake("ted", [...malformed, ...read], Option.some({ ...cursor, held }))
      return { latest: readable.reduce((latest, ref) => laterDay(latest, ref.publicationDay), cursor.day), held }
    })

  /** A loop in TED's iteration: the poll fails, and the next one starts again from the watermark. */
  const endless = (message: string) =>
    state.saveCursor("ted", null).pipe(
      Effect.zipRight(
        Effect.fail(
          new SourceFailure({
            source: "ted",
            reason: "invalid",
            status: 200,
            retryAfter: undefined,
            message: `TED's iteration does not end (${message}); the next poll starts again from the watermark`
          })
        )
      )
    )

  /** One poll, under the source's poll lease (another poll of TED running: this one is skipped). */
  const poll = withPollLease(
    "ted",
    Effect.gen(function* () {
      const today = bucharestDate(yield* Clock.currentTimeMillis)
      const source = yield* state.open("ted", addDays(today, -1))
      const resumed = decodeCursor(source.cursor)
      const day = Option.match(resumed, { onNone: () => source.watermark, onSome: (c) => c.day })
      let token = Option.match(resumed, { onNone: () => null, onSome: (c) => c.token })
      let held = Option.exists(resumed, (c) => c.held === true)
      let latest = day
      // The tokens this poll asked with, and its pages: a token again, or pages far past what TED
      // counts, is a loop that would otherwise page for ever (the same page again and again).
      const asked = new Set<string>()
      let pages = 0
      let total: number | undefined
      while (true) {
        if (token !== null) asked.add(token)
        const response = yield* search(day, token).pipe(
          Effect.catchIf(
            (failure) => failure.reason === "refused" && token !== null,
            (failure) =>
              Effect.logWarning(`ted: the saved iteration token was refused (${failure.message}); starting again`).pipe(
                Effect.zipRight(search(day, null))
              )
          )
        )
        pages++
        if (response.totalNoticeCount !== undefined) total = Math.max(total ?? 0, response.totalNoticeCount)
        const next = response.iterationNextToken ?? null
        const end = next === null || response.notices.length === 0
        if (!end && asked.has(next))
          return yield* endless(`it named the token ${JSON.stringify(next.slice(0, 40))} again`)
        if (pages > Math.ceil((total ?? UNCOUNTED_NOTICES) / Math.min(config.pageSize, TED_PAGE_LIMIT)) + EXTRA_PAGES) {
          return yield* endless(`${pages} pages for ${total ?? "an uncounted number of"} notices`)
        }
        const page = yield* takePage(response.notices, { day, token: end ? null : next, held })
        latest = laterDay(latest, page.latest)
        held = page.held
        if (end) break
        token = next
      }
      // Every result is on or after `day`: held there, the watermark passes no unread one.
      const holdUntil = addDays(today, -UNREAD_HOLD_DAYS)
      if (held && day < holdUntil) {
        yield* Effect.logWarning(
          `ted: the watermark moves past ${day}, where a result unreadable in its listing held it ${UNREAD_HOLD_DAYS} days: given up`
        )
      }
      const watermark = held ? earlierDay(latest, laterDay(day, holdUntil)) : latest
      yield* state.finishPoll("ted", watermark > today ? today : watermark)
    })
  )

  /** Whether a poll has read the notice since its read failed (its retry job then has nothing to do). */
  const alreadyRead = (ref: TedNoticeRef) =>
    Effect.map(state.seenVersions("ted", [ref.publicationNumber]), (seen) => seen.has(ref.publicationNumber))

  return { poll, readNotice, alreadyRead }
})

export class TedPoller extends Context.Tag("TedPoller")<TedPoller, Effect.Effect.Success<typeof makeTedPoller>>() {}

export const TedPollerLive = Layer.effect(TedPoller, makeTedPoller)

/**
 * Reads a notice whose XML failed during its poll, unless a later poll read it meanwhile (read again,
 * it would be downloaded, rescored as a change and counted twice); a failure again is retried by the
 * kind's schedule, or once TED's `Retry-After` has run out.
 */
export const readTedNoticeJob = handle(ReadTedNotice, (ref, job) =>
  Effect.gen(function* () {
    const poller = yield* TedPoller
    if (yield* poller.alreadyRead(ref)) {
      return yield* Effect.logInfo(`ted notice ${ref.publicationNumber}: read by a later poll, not again on retry`)
    }
    const notice = yield* poller.readNotice(ref)
    // A job is no poll's: no lease fences its intake.
    const result = yield* (yield* NoticeIntake)
      .intake("ted", [notice])
      .pipe(Effect.catchTag("PollLeaseLost", Effect.die))
    yield* Effect.logInfo(`ted notice ${ref.publicationNumber} read on retry (${result.inserted} new)`)
  }).pipe(retriedAfterSourceWait(ReadTedNotice, job))
)
