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

const decodeNotice = Schema.decodeUnknownEither(TedSearchNotice)

/** A search result as a notice to read, or why it cannot be read (a malformed item is skipped, not fatal). */
export const tedNoticeRef = (item: unknown): TedNoticeRef | { readonly skip: string; readonly ref: string } => {
  const ref =
    typeof (item as { "publication-number"?: unknown })?.["publication-number"] === "string"
      ? (item as { "publication-number": string })["publication-number"]
      : "?"
  const decoded = decodeNotice(item)
  if (decoded._tag === "Left") return { ref, skip: "search result without a publication number, date or links" }
  const notice = decoded.right
  const date = [notice["publication-date"]].flat()[0]
  const publicationDay = date === undefined ? undefined : dayOf(date)
  const xmlUrl = notice.links.xml?.MUL ?? Object.values(notice.links.xml ?? {})[0]
  if (publicationDay === undefined) return { ref, skip: `unreadable publication date ${JSON.stringify(date)}` }
  if (xmlUrl === undefined) return { ref, skip: "no XML link (links.xml.MUL)" }
  return {
    publicationNumber: notice["publication-number"],
    publicationDay,
    xmlUrl,
    pageUrl: tedNoticePage(notice["publication-number"])
  }
}
