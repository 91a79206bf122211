import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { bucharestDate } from "../../domain/BucharestTime.js"
import { addDays, daysUntil } from "../../domain/ingest/PublicationDays.js"
import {
  SEAP_LISTS,
  type SeapList,
  seapCancelled,
  seapItemRef,
  seapListBody,
  seapListPath,
  seapReferer
} from "../../domain/ingest/SeapLists.js"
import { NOTICE_RETRY, SourceFailure } from "../../domain/ingest/SourceFailure.js"
import { errorMessage, parsed, skipped } from "../../domain/tenders/formats/ParsedItem.js"
import { sicapRecord, sicapTedPublicationNumber } from "../../domain/tenders/formats/Sicap.js"
import { jobKind } from "../queue/JobKind.js"
import { JobQueue } from "../queue/JobQueue.js"
import { handle } from "../queue/JobRunner.js"
import { IngestConfig } from "./IngestConfig.js"
import { IngestState } from "./IngestState.js"
import { NoticeIntake, type PolledNotice } from "./NoticeIntake.js"
import { retriedAfterSourceWait } from "./NoticeRetry.js"
import { withPollLease } from "./PollLease.js"
import { makeSourceClient } from "./SourceClient.js"

/** Paging in progress: the day, the list and the next page to ask. */
const SeapCursor = Schema.Struct({ day: Schema.String, list: Schema.Literal(...SEAP_LISTS), pageIndex: Schema.Number })
type SeapCursor = typeof SeapCursor.Type
const decodeCursor = Schema.decodeUnknownOption(SeapCursor)

const ListPage = Schema.Struct({
  total: Schema.optional(Schema.NullOr(Schema.Number)),
  items: Schema.Array(Schema.Unknown),
  searchTooLong: Schema.optional(Schema.NullOr(Schema.Boolean))
})
const decodePage = Schema.decodeUnknown(ListPage)

const Contracts = Schema.Struct({ items: Schema.Array(Schema.Unknown), total: Schema.optional(Schema.Number) })
const decodeContracts = Schema.decodeUnknownOption(Contracts)

/** SEAP's largest page of an award's contracts (`take`). */
const CONTRACTS_PAGE = 200

/** The most notices SEAP lists under one query (it cuts there, `searchTooLong`): paging a list without a `total` stops there. */
const LIST_CAP = 3000

/** "ingest.seap-notice": a listed notice whose detail could not be read during its poll (NOTICE_RETRY). */
export const ReadSeapNotice = jobKind(
  "ingest.seap-notice",
  Schema.Struct({ list: Schema.Literal(...SEAP_LISTS), item: Schema.Unknown }),
  NOTICE_RETRY
)

const idOf = (item: unknown, key: string) => String((item as Record<string, unknown>)[key] ?? "")

/**
 * The SEAP poller: one `poll` walks the publication days from the watermark (its own day included)
 * to today, and for each day the contract-notice, award-notice and direct-acquisition lists page by
 * page. A notice not read before (or with a newer erratum) is read with its detail (an award's
 * contracts name the winners, which feed the award history) and each page goes to the intake with
 * the paging state, so a restart resumes at the page it stopped in. Requests are spaced (SEAP blocks
 * clients that ask fast) and carry the same-site Referer SEAP requires.
 */
const makeSeapPoller = Effect.gen(function* () {
  const config = yield* IngestConfig
  const state = yield* IngestState
  const intake = yield* NoticeIntake
  const queue = yield* JobQueue
  const base = config.seapApiUrl
  const client = yield* makeSourceClient({
    source: "seap",
    spacing: config.spacing.seap,
    userAgent: config.userAgent,
    headers: { referer: seapReferer(base) },
    block: state.sourceBlock("seap")
  })

  /** Every contract of an award (each names its winner), page by page up to the `total` SEAP gives. */
  const awardContracts = (caNoticeId: number) =>
    Effect.gen(function* () {
      const contracts: Array<unknown> = []
      while (true) {
        const body = yield* client.postJson(
          `${base}/api-pub/C_PUBLIC_CANotice/GetCANoticeContracts`,
          { caNoticeId, skip: contracts.length, take: CONTRACTS_PAGE },
          1
        )
        const page = Option.getOrUndefined(decodeContracts(body))
        if (page === undefined) return contracts
        contracts.push(...page.items)
        // A short page is the last; without a `total`, so is this one (nothing says there is more).
        if (page.items.length < CONTRACTS_PAGE || page.total === undefined || contracts.length >= page.total)
          return contracts
      }
    })

  /**
   * A notice's detail, or none when SEAP answers 400 (its classic detail endpoints do for eForms "v2"
   * notices, ../shared/sources): the notice is then read from its list row, where asking again would
   * get the same 400 for the week its retry job lives and then lose it. Every other failure fails the
   * read (retried as its own job).
   */
  const detailOf = (ref: string, path: string) =>
    client.getJson(`${base}${path}`, 1).pipe(
      Effect.catchIf(
        (failure) => failure.reason === "refused" && failure.status === 400,
        () => Effect.as(Effect.logWarning(`seap: the detail of ${ref} answered 400; read from its list row`), undefined)
      )
    )

  /**
   * A listed notice with its detail, as a notice for the intake. A crash while reading it (a detail
   * no reader foresaw) skips that notice with the reason, as a malformed one is: never its page.
   */
  const readNotice = (list: SeapList, item: unknown) => {
    const key = seapItemRef(list, item)
    const { ref, version } = typeof key === "string" ? { ref: "?", version: 0 } : key
    return Effect.gen(function* () {
      const detail =
        list === "can"
          ? yield* detailOf(ref, `/api-pub/C_PUBLIC_CANotice/get/${idOf(item, "caNoticeId")}`)
          : list === "da"
            ? yield* detailOf(ref, `/api-pub/PublicDirectAcquisition/getView/${idOf(item, "directAcquisitionId")}`)
            : undefined
      const contracts = list === "can" ? yield* awardContracts(Number(idOf(item, "caNoticeId"))) : []
      const record = sicapRecord(list, { item, detail, contracts })
      return {
        ref,
        version,
        tedRef: (list === "can" ? sicapTedPublicationNumber(detail) : undefined) ?? null,
        pageUrl: typeof record === "string" ? "" : (record.source_url ?? ""),
        item: typeof record === "string" ? skipped(ref, record) : parsed(ref, record),
        cancelled: seapCancelled(item)
      } satisfies PolledNotice
    }).pipe(
      Effect.catchAllDefect((defect) =>
        Effect.succeed<PolledNotice>({
          ref,
          version,
          tedRef: null,
          pageUrl: "",
          item: skipped(ref, `could not be read: ${errorMessage(defect).slice(0, 200)}`)
        })
      )
    )
  }

  const listPage = (list: SeapList, day: string, pageIndex: number) =>
    client.postJson(`${base}${seapListPath[list]}`, seapListBody(list, day, pageIndex, config.pageSize)).pipe(
      Effect.flatMap((body) =>
        decodePage(body).pipe(
          Effect.mapError(
            () =>
              new SourceFailure({
                source: "seap",
                reason: "invalid",
                status: 200,
                retryAfter: undefined,
                message: `seap ${list} list of ${day} answered without an items list`
              })
          )
        )
      )
    )

  /** One page: its notices not read before (or changed since) read, and taken in with the paging state after it. */
  const takePage = (list: SeapList, items: ReadonlyArray<unknown>, next: SeapCursor, saveCursor: boolean) =>
    Effect.gen(function* () {
      const listed = items.map((item, index) => ({ item, key: seapItemRef(list, item), index }))
      const malformed: Array<PolledNotice> = listed.flatMap(({ key, index }) =>
        typeof key === "string"
          ? [
              {
                ref: `${list}:${next.day}:${next.pageIndex}:${index}`,
                version: 0,
                tedRef: null,
                pageUrl: "",
                item: skipped(`${list} item ${index + 1}`, key)
              }
            ]
          : []
      )
      const known = listed.flatMap(({ item, key }) => (typeof key === "string" ? [] : [{ item, key }]))
      const seen = yield* state.seenVersions(
        "seap",
        known.map((entry) => entry.key.ref)
      )
      const unread = known.filter((entry) => (seen.get(entry.key.ref) ?? -1) < entry.key.version)
      const results = yield* Effect.forEach(unread, ({ item }) => Effect.either(readNotice(list, item)))
      const read: Array<PolledNotice> = []
      const failed: Array<(typeof unread)[number]> = []
      results.forEach((result, index) => {
        if (result._tag === "Right") read.push(result.right)
        else failed.push(unread[index]!)
      })
      if (failed.length > 0) {
        // One retry job per notice version: the next poll may list it again.
        yield* queue.enqueueAll(
          ReadSeapNotice,
          failed.map(({ item, key }) => ({ payload: { list, item }, groupKey: `seap:${key.ref}:${key.version}` })),
          { unlessPending: true }
        )
        yield* Effect.logWarning(`seap: ${failed.length} ${list} notice detail(s) failed; each is retried on its own`)
      }
      yield* intake.intake("seap", [...malformed, ...read], saveCursor ? Option.some(next) : Option.none())
    })

  /** Where paging goes after the last page of `list` on `day`. */
  const afterList = (day: string, list: SeapList): SeapCursor => {
    const following = SEAP_LISTS[SEAP_LISTS.indexOf(list) + 1]
    return following === undefined
      ? { day: addDays(day, 1), list: "cn", pageIndex: 0 }
      : { day, list: following, pageIndex: 0 }
  }

  /**
   * The pages of `list` on `day` from `firstPage`; the paging state is saved with each unless
   * revisiting. True when the list shifted while it was paged (its `total` changed from page to
   * page: a notice that left or joined it slid the rest, maybe onto a page already read).
   */
  const pollList = (day: string, list: SeapList, firstPage: number, saveCursor = true) =>
    Effect.gen(function* () {
      let firstTotal: number | null | undefined
      let shifted = false
      for (let pageIndex = firstPage; ; pageIndex++) {
        const page = yield* listPage(list, day, pageIndex)
        if (page.searchTooLong === true && pageIndex === firstPage) {
          yield* Effect.logWarning(
            `seap: the ${list} list of ${day} is cut at ${page.total ?? "?"} notices (searchTooLong); the rest is not reachable by paging`
          )
        }
        if (pageIndex === firstPage) firstTotal = page.total
        else if (typeof page.total === "number" && typeof firstTotal === "number" && page.total !== firstTotal)
          shifted = true
        // Without a `total` nothing says this page is the last: a short page is (or SEAP's cap).
        const total = typeof page.total === "number" ? page.total : LIST_CAP
        const last = page.items.length < config.pageSize || (pageIndex + 1) * config.pageSize >= total
        yield* takePage(
          list,
          page.items,
          last ? afterList(day, list) : { day, list, pageIndex: pageIndex + 1 },
          saveCursor
        )
        if (last) {
          if (shifted) yield* Effect.logWarning(`seap: the ${list} list of ${day} changed while it was paged`)
          return shifted
        }
      }
    })

  /**
   * Once a day, the contract-notice lists of the `seapRevisitDays` days before the poll's first day
   * again: a day's list is otherwise asked on that day only, and an erratum (a deadline moved) or a
   * cancellation comes days later. Only notices with a higher version (errata, cancellation) are read
   * again; the paging state is left alone. A day whose list fails is logged and left to the next
   * day's revisit: it is not the poll's failure (its own days were read), nor a reason to ask every
   * day again at each poll.
   */
  const revisit = (today: string, firstDay: string) =>
    Effect.gen(function* () {
      for (let day = addDays(today, -config.seapRevisitDays); day < firstDay; day = addDays(day, 1)) {
        yield* pollList(day, "cn", 0, false).pipe(
          Effect.catchAll((failure) =>
            Effect.logWarning(
              `seap: the revisit of the cn list of ${day} failed (${failure.message}); left to the next day's revisit`
            )
          )
        )
      }
      yield* state.markRevisited("seap", today)
    })

  /** One poll, under the source's poll lease (another poll of SEAP running: this one is skipped). */
  const poll = withPollLease(
    "seap",
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const today = bucharestDate(now)
      const source = yield* state.open("seap", addDays(today, -1))
      const resumed = decodeCursor(source.cursor)
      const start = Option.match(resumed, { onNone: () => source.watermark, onSome: (c) => c.day })
      // A day whose list shifted while paged is asked again by the next poll: the watermark stays on
      // it (today's always is). Only yesterday's: a list that keeps shifting then costs at most one
      // more day of lists per poll, until midnight (an older day's is logged, not asked again).
      const yesterday = addDays(today, -1)
      let shiftedDay: string | undefined
      for (const day of daysUntil(start, now)) {
        for (const list of SEAP_LISTS) {
          const at = Option.filter(resumed, (c) => c.day === day)
          if (Option.isSome(at) && SEAP_LISTS.indexOf(list) < SEAP_LISTS.indexOf(at.value.list)) continue
          const firstPage = Option.isSome(at) && at.value.list === list ? at.value.pageIndex : 0
          const shifted = yield* pollList(day, list, firstPage)
          if (shifted && day >= yesterday && shiftedDay === undefined) shiftedDay = day
        }
      }
      yield* state.finishPoll("seap", shiftedDay ?? today)
      if (config.seapRevisitDays > 0 && (source.revisited_on ?? "") < today) yield* revisit(today, start)
    })
  )

  /**
   * Whether a poll has read this version of the listed notice, or a later one, since its read failed
   * (its retry job then has nothing to do: read, an older version would undo the newer one).
   */
  const alreadyRead = (list: SeapList, item: unknown) => {
    const key = seapItemRef(list, item)
    return typeof key === "string"
      ? Effect.succeed(false)
      : Effect.map(state.seenVersions("seap", [key.ref]), (seen) => (seen.get(key.ref) ?? -1) >= key.version)
  }

  return { poll, readNotice, alreadyRead }
})

export class SeapPoller extends Context.Tag("SeapPoller")<SeapPoller, Effect.Effect.Success<typeof makeSeapPoller>>() {}

export const SeapPollerLive = Layer.effect(SeapPoller, makeSeapPoller)

/**
 * Reads a listed notice whose detail failed during its poll, unless a later poll read it (or a newer
 * version of it) meanwhile; a failure again is retried by the kind's schedule, or once SEAP's
 * `Retry-After` has run out.
 */
export const readSeapNoticeJob = handle(ReadSeapNotice, ({ list, item }, job) =>
  Effect.gen(function* () {
    const poller = yield* SeapPoller
    if (yield* poller.alreadyRead(list, item)) {
      const key = seapItemRef(list, item)
      const ref = typeof key === "string" ? `${list} item` : `${key.ref} (version ${key.version})`
      return yield* Effect.logInfo(`seap notice ${ref}: read by a later poll, not again on retry`)
    }
    const notice = yield* poller.readNotice(list, item)
    // A job is no poll's: no lease fences its intake.
    yield* (yield* NoticeIntake).intake("seap", [notice]).pipe(Effect.catchTag("PollLeaseLost", Effect.die))
    yield* Effect.logInfo(`seap notice ${notice.ref} read on retry`)
  }).pipe(retriedAfterSourceWait(ReadSeapNotice, job))
)
