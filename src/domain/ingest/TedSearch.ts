import { Schema } from "effect"
import { compactDay, dayOf } from "./PublicationDays.js"

/**
 * The TED Search API v3 as the TED poller uses it (../shared/sources/README.md, section 1): an expert
 * query for Romanian buyers' notices published on or after a day, in ITERATION mode, and the fields
 * read from each result. A field may come as a scalar, an array or a language map: read defensively.
 */

/** The most notices one search page may return (more is 400 SEARCH_EXCEEDS_MAX_LIMIT). */
export const TED_PAGE_LIMIT = 250

/** Fields asked for; `links` comes with every notice. Unknown names would fail the whole request. */
export const TED_SEARCH_FIELDS = ["publication-number", "publication-date", "notice-type", "buyer-country"] as const

/** Notices of Romanian buyers published on or after `day` (its own day included), oldest first. */
export const tedQuery = (day: string): string =>
  `buyer-country=ROU AND publication-date>=${compactDay(day)} SORT BY publication-date ASC`

export const tedSearchRequest = (day: string, iterationNextToken: string | null, limit = TED_PAGE_LIMIT) => ({
  query: tedQuery(day),
  fields: TED_SEARCH_FIELDS,
  limit: Math.min(limit, TED_PAGE_LIMIT),
  scope: "ALL",
  paginationMode: "ITERATION",
  ...(iterationNextToken === null ? {} : { iterationNextToken })
})

const LanguageLinks = Schema.Record({ key: Schema.String, value: Schema.String })

/** One result: only what the poller needs; other fields pass through unread. */
const TedSearchNotice = Schema.Struct({
  "publication-number": Schema.String,
  "publication-date": Schema.Union(Schema.String, Schema.Array(Schema.String)),
  links: Schema.Struct({
    xml: Schema.optional(LanguageLinks),
    html: Schema.optional(LanguageLinks)
  })
})

export const TedSearchResponse = Schema.Struct({
  notices: Schema.Array(Schema.Unknown),
  totalNoticeCount: Schema.optional(Schema.Number),
  iterationNextToken: Schema.optional(Schema.NullOr(Schema.String)),
  timedOut: Schema.optional(Schema.Boolean)
})

/** A notice to read: its number, publication day and where its XML and its page are. */
export interface TedNoticeRef {
  readonly publicationNumber: string
  readonly publicationDay: string
  readonly xmlUrl: string
  readonly pageUrl: string
}

/** The public page of a notice, which names its publication number. */
export const tedNoticePage = (publicationNumber: string) =>
  `https://ted.europa.eu/en/notice/-/detail/${publicationNumber}`

/**
 * A publication number as TED writes it: `<number>-<year>`, the number sometimes zero-padded to 8
 * digits (../shared/sources/README.md). Anything else is not TED's, and is neither fetched nor
 * stored (a 4 kB one would not even fit the read-marks index).
 */
const PUBLICATION_NUMBER = /^\d{1,10}-\d{4}$/

/** TED's own hosts, where its notices' XML links point (`https://ted.europa.eu/en/notice/{n}/xml`). */
export const isTedHost = (url: URL) =>
  url.protocol === "https:" && (url.hostname === "ted.europa.eu" || url.hostname.endsWith(".ted.europa.eu"))

/** A value quoted in a skip reason or used as a reference in the log, cut short. */
const shortened = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text)

const decodeNotice = Schema.decodeUnknownEither(TedSearchNotice)

/**
 * A search result as a notice to read, or why it cannot be read (a malformed item is skipped, not
 * fatal). `isOwnHost`: whether a URL is on the source's own hosts; an XML link elsewhere is not
 * fetched (whatever it answers would be imported as TED's).
 */
export const tedNoticeRef = (
  item: unknown,
  isOwnHost: (url: URL) => boolean
): TedNoticeRef | { readonly skip: string; readonly ref: string } => {
  const number = (item as { "publication-number"?: unknown })?.["publication-number"]
  if (typeof number === "string" && !PUBLICATION_NUMBER.test(number)) {
    return {
      ref: shortened(number),
      skip: `malformed publication number (${number.length} characters, not <number>-<year>)`
    }
  }
  const ref = typeof number === "string" ? number : "?"
  const decoded = decodeNotice(item)
  if (decoded._tag === "Left") return { ref, skip: "search result without a publication number, date or links" }
  const notice = decoded.right
  const date = [notice["publication-date"]].flat()[0]
  const publicationDay = date === undefined ? undefined : dayOf(date)
  const xmlUrl = notice.links.xml?.MUL ?? Object.values(notice.links.xml ?? {})[0]
  if (publicationDay === undefined) return { ref, skip: `unreadable publication date ${JSON.stringify(date)}` }
  if (xmlUrl === undefined) return { ref, skip: "no XML link (links.xml.MUL)" }
  if (!URL.canParse(xmlUrl)) return { ref, skip: `XML link ${JSON.stringify(shortened(xmlUrl))} is no URL` }
  const link = new URL(xmlUrl)
  if (!isOwnHost(link)) return { ref, skip: `XML link on another host (${shortened(link.host)}): not fetched` }
  return {
    publicationNumber: notice["publication-number"],
    publicationDay,
    xmlUrl,
    pageUrl: tedNoticePage(notice["publication-number"])
  }
}
