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
import { parsed, skipped } from "../../domain/tenders/formats/ParsedItem.js"
import { sicapRecord, sicapTedPublicationNumber } from "../../domain/tenders/formats/Sicap.js"
import { jobKind } from "../queue/JobKind.js"
import { JobQueue } from "../queue/JobQueue.js"
import { handle } from "../queue/JobRunner.js"
import { IngestConfig } from "./IngestConfig.js"
import { IngestState } from "./IngestState.js"
import { NoticeIntake, type PolledNotice } from "./NoticeIntake.js"
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
    headers: { referer: seapReferer(base) }
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

  /** A listed notice with its detail, as a notice for the intake. */
  const readNotice = (list: SeapList, item: unknown) =>
    Effect.gen(function* () {
      const { ref, version } = seapItemRef(list, item) ?? { ref: "?", version: 0 }
      const detail =
        list === "can"
          ? yield* client.getJson(`${base}/api-pub/C_PUBLIC_CANotice/get/${idOf(item, "caNoticeId")}`, 1)
          : list === "da"
            ? yield* client.getJson(
                `${base}/api-pub/PublicDirectAcquisition/getView/${idOf(item, "directAcquisitionId")}`,
                1
              )
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
    })

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
        key === undefined
          ? [
              {
                ref: `${list}:${next.day}:${next.pageIndex}:${index}`,
                version: 0,
                tedRef: null,
                pageUrl: "",
                item: skipped(`${list} item ${index + 1}`, "a list item without a notice number")
              }
            ]
          : []
      )
      const known = listed.filter((entry) => entry.key !== undefined)
      const seen = yield* state.seenVersions(
        "seap",
        known.map((entry) => entry.key!.ref)
      )
      const unread = known.filter((entry) => (seen.get(entry.key!.ref) ?? -1) < entry.key!.version)
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
          failed.map(({ item, key }) => ({ payload: { list, item }, groupKey: `seap:${key!.ref}:${key!.version}` })),
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

  /** The pages of `list` on `day` from `firstPage`; the paging state is saved with each unless revisiting. */
  const pollList = (day: string, list: SeapList, firstPage: number, saveCursor = true) =>
    Effect.gen(function* () {
      for (let pageIndex = firstPage; ; pageIndex++) {
        const page = yield* listPage(list, day, pageIndex)
        if (page.searchTooLong === true && pageIndex === firstPage) {
          yield* Effect.logWarning(
            `seap: the ${list} list of ${day} is cut at ${page.total ?? "?"} notices (searchTooLong); the rest is not reachable by paging`
          )
        }
        const total = page.total ?? 0
        const last = page.items.length < config.pageSize || (pageIndex + 1) * config.pageSize >= total
        yield* takePage(
          list,
          page.items,
          last ? afterList(day, list) : { day, list, pageIndex: pageIndex + 1 },
          saveCursor
        )
        if (last) return
      }
    })

  /**
   * Once a day, the contract-notice lists of the `seapRevisitDays` days before the poll's first day
   * again: a day's list is otherwise asked on that day only, and an erratum (a deadline moved) or a
   * cancellation comes days later. Only notices with a higher version (errata, cancellation) are read
   * again; the paging state is left alone (a failure asks them all again at the next poll).
   */
  const revisit = (today: string, firstDay: string) =>
    Effect.gen(function* () {
      for (let day = addDays(today, -config.seapRevisitDays); day < firstDay; day = addDays(day, 1)) {
        yield* pollList(day, "cn", 0, false)
      }
      yield* state.markRevisited("seap", today)
    })

  const poll = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const today = bucharestDate(now)
    const source = yield* state.open("seap", addDays(today, -1), true)
    const resumed = decodeCursor(source.cursor)
    const start = Option.match(resumed, { onNone: () => source.watermark, onSome: (c) => c.day })
    for (const day of daysUntil(start, now)) {
      for (const list of SEAP_LISTS) {
        const at = Option.filter(resumed, (c) => c.day === day)
        if (Option.isSome(at) && SEAP_LISTS.indexOf(list) < SEAP_LISTS.indexOf(at.value.list)) continue
        const firstPage = Option.isSome(at) && at.value.list === list ? at.value.pageIndex : 0
        yield* pollList(day, list, firstPage)
      }
    }
    yield* state.finishPoll("seap", today)
    if (config.seapRevisitDays > 0 && (source.revisited_on ?? "") < today) yield* revisit(today, start)
  })

  return { poll, readNotice }
})

export class SeapPoller extends Context.Tag("SeapPoller")<SeapPoller, Effect.Effect.Success<typeof makeSeapPoller>>() {}

export const SeapPollerLive = Layer.effect(SeapPoller, makeSeapPoller)

/** Reads a listed notice whose detail failed during its poll; a failure again is retried by the kind's schedule. */
export const readSeapNoticeJob = handle(ReadSeapNotice, ({ list, item }) =>
  Effect.gen(function* () {
    const notice = yield* (yield* SeapPoller).readNotice(list, item).pipe(Effect.mapError((failure) => failure.message))
    yield* (yield* NoticeIntake).intake("seap", [notice])
    yield* Effect.logInfo(`seap notice ${notice.ref} read on retry`)
  })
)
