import { Readable } from "node:stream"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { NodeStream } from "@effect/platform-node"
import { stringify } from "csv-stringify"
import { Clock, Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { bucharestDate } from "../../domain/BucharestTime.js"
import { queryFingerprint } from "../../domain/Cursor.js"
import { type ExportPosition, type ExportRow, ScoredTendersRepo } from "../../infra/scoring/ScoredTendersRepo.js"
import { Api } from "../Api.js"
import { ApiKeyAuthExportLive, requireOwnCompany } from "../ApiKeyAuthLive.js"
import { creditsMeta } from "../credits/CreditsReport.js"
import { refuseHead } from "../HeadRequests.js"
import { prebuiltJson } from "../PrebuiltJson.js"
import { makeCursors } from "../pagination/Cursors.js"
import { servePaidPage } from "../pagination/PaidPage.js"
import { EXPORT_COLUMNS, EXPORT_DEFAULT_LIMIT, EXPORT_MAX_LIMIT } from "./ExportApi.js"

export const EXPORT_MAX_RANGE_DAYS = 90
/** How arrays (cpv_codes) are written in one CSV field. */
export const CSV_ARRAY_SEPARATOR = ";"

const DAY_MS = 86_400_000

/** A 400 of `kind` about the query parameter `path`. */
const badQuery = (
  kind: typeof ApiError.ValidationError | typeof ApiError.DateRangeExceeded | typeof ApiError.LimitExceeded,
  path: string,
  message: string
) => new kind({ message, details: [{ path, message }] })

/** The page size of an export query, once its range and limit are within the spec's bounds (400 otherwise). */
const checkedLimit = (query: { readonly from: string; readonly to: string; readonly limit?: number }) => {
  const span = (Date.parse(`${query.to}T00:00:00Z`) - Date.parse(`${query.from}T00:00:00Z`)) / DAY_MS
  if (span < 0) return Effect.fail(badQuery(ApiError.ValidationError, "to", "`to` must not be before `from`"))
  if (span > EXPORT_MAX_RANGE_DAYS) {
    return Effect.fail(badQuery(ApiError.DateRangeExceeded, "to", "`to - from` must be at most 90 days"))
  }
  const limit = query.limit ?? EXPORT_DEFAULT_LIMIT
  if (limit > EXPORT_MAX_LIMIT) {
    return Effect.fail(badQuery(ApiError.LimitExceeded, "limit", "`limit` must be at most 1000"))
  }
  return Effect.succeed(limit)
}

/** The wire form of an export row (spec 2.4), fields in the spec's order. */
const toExportRow = (row: ExportRow) => ({
  tender_id: row.tender_id,
  title: row.title,
  cpv_codes: row.cpv_codes,
  cpv_description: null,
  contracting_authority: row.contracting_authority,
  authority_county: row.authority_county,
  deadline: row.deadline,
  estimated_value_ron: row.estimated_value_ron,
  estimated_value_eur: row.estimated_value_eur,
  publish_date: row.publish_date,
  overall_score: row.overall_score,
  verdict: row.verdict,
  score_cpv: row.score_cpv,
  score_semantic: row.score_semantic,
  score_keyword: row.score_keyword,
  score_value_fit: row.score_value_fit,
  score_historical: row.score_historical,
  price_benchmark_signal: null,
  price_benchmark_median_eur: null,
  source_url: row.source_url
})

/**
 * A text cell a spreadsheet would take for a formula (first character `=`, `+`, `-`, `@`, a tab or a
 * carriage return: OWASP's CSV injection list) is written after an apostrophe, which Excel and
 * LibreOffice show as text: titles and authority names come from notices anyone can publish. So is
 * such a character after a `;`, a tab or a line break inside the text: Excel under Romanian settings
 * (list separator `;`) splits the file there, outside the quotes, and the rest would start a cell.
 */
const FORMULA_TRIGGER = /(^|[;\t\r\n])(?=[=+\-@\t\r])/g
const asSpreadsheetText = (value: unknown) =>
  typeof value === "string" ? value.replace(FORMULA_TRIGGER, "$1'") : value

const toCsvRecord = (row: ExportRow) =>
  Object.fromEntries(
    Object.entries({ ...toExportRow(row), cpv_codes: row.cpv_codes.join(CSV_ARRAY_SEPARATOR) }).map(
      ([column, value]) => [column, asSpreadsheetText(value)]
    )
  )

const exportPosition = (key: ReadonlyArray<string | number>): Option.Option<ExportPosition> => {
  const [publishKey, tenderId] = key
  return key.length === 2 && typeof publishKey === "string" && typeof tenderId === "string"
    ? Option.some({ publishKey, tenderId })
    : Option.none()
}

/**
 * CRLF between records; a field holding a line break of either kind is quoted too (csv-stringify
 * quotes a lone "\n" or "\r" only when told: RFC 4180 readers would split the record there).
 */
export const CSV_OPTIONS = {
  bom: true,
  header: true,
  columns: EXPORT_COLUMNS as Array<string>,
  record_delimiter: "windows",
  quoted_match: /[\r\n]/
} as const

/**
 * The CSV body, produced row by row by csv-stringify (UTF-8 BOM, header row, RFC 4180 quoting)
 * while the response is written, never assembled as one string.
 */
const csvBody = (rows: ReadonlyArray<ExportRow>) =>
  NodeStream.fromReadable<Error, Uint8Array>(
    () => Readable.from(rows.map(toCsvRecord)).pipe(stringify(CSV_OPTIONS)),
    (error) => (error instanceof Error ? error : new Error(String(error)))
  )

export const ExportHttpLive = HttpApiBuilder.group(Api, "export", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* ScoredTendersRepo
    const cursors = yield* makeCursors

    return handlers.handle("tenders", ({ urlParams }) =>
      Effect.gen(function* () {
        yield* refuseHead
        const { from, to } = urlParams
        const limit = yield* checkedLimit(urlParams)
        const companyId = urlParams.companyId.toLowerCase()
        const status = urlParams.status ?? "all"
        // The format and page size are not part of the binding: JSON and CSV pages may be mixed.
        // `all` keeps the fingerprint cursors had before `status` existed.
        const query = queryFingerprint(
          status === "all" ? ["export", companyId, from, to] : ["export", companyId, from, to, status]
        )
        const resumed = yield* cursors.resume(query, urlParams.cursor, exportPosition)
        // Open and closed are told apart as of page 1: a deadline passing between pages moves nothing.
        const asOf = resumed.asOf ?? (yield* Clock.currentTimeMillis)

        const caller = yield* requireOwnCompany(companyId)
        const bound = resumed.bound ?? (yield* repo.snapshotBound)
        const rows = yield* repo.exportPage({
          companyId,
          from,
          to,
          status,
          now: new Date(asOf),
          bound,
          after: resumed.after,
          take: limit + 1
        })
        const { served, hasMore, nextCursor, charge } = yield* servePaidPage({
          caller,
          rows,
          limit,
          reason: "GET /api/v1/export/tenders",
          cursorAfter: (last) =>
            cursors.encode(query, {
              key: [last.publish_key, last.tender_id],
              bound,
              ...(status === "all" ? {} : { asOf })
            })
        })
        const exportedAt = new Date(yield* Clock.currentTimeMillis)

        if (urlParams.format === "csv") {
          return HttpServerResponse.stream(csvBody(served), {
            contentType: "text/csv; charset=utf-8",
            headers: {
              "content-disposition": `attachment; filename="svc-export-${bucharestDate(exportedAt.getTime())}.csv"`,
              "x-has-more": String(hasMore),
              "x-export-count": String(served.length),
              "x-exported-at": exportedAt.toISOString(),
              ...(nextCursor === null ? {} : { "x-next-cursor": nextCursor })
            }
          })
        }
        return prebuiltJson({
          data: served.map(toExportRow),
          meta: {
            count: served.length,
            next_cursor: nextCursor,
            has_more: hasMore,
            exported_at: exportedAt.toISOString(),
            credits: creditsMeta(charge)
          }
        })
      })
    )
  })
)

/** The group with its key authentication (export rate limit). */
export const ExportLive = ExportHttpLive.pipe(Layer.provide(ApiKeyAuthExportLive))
