import { Readable } from "node:stream"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { NodeStream } from "@effect/platform-node"
import { stringify } from "csv-stringify"
import { Clock, Effect, Layer, Option } from "effect"
import { bucharestDate } from "../../domain/BucharestTime.js"
import { queryFingerprint } from "../../domain/Cursor.js"
import { type ExportPosition, type ExportRow, ScoredTendersRepo } from "../../infra/scoring/ScoredTendersRepo.js"
import { Api } from "../Api.js"
import { BadRequest } from "../ApiErrors.js"
import { ApiKeyAuthExportLive, requireOwnCompany } from "../ApiKeyAuth.js"
import { chargeCredits, creditsMeta } from "../credits/CreditsReport.js"
import { invalidCursor, makeCursors } from "../pagination/Cursors.js"
import { EXPORT_COLUMNS } from "./ExportApi.js"

export const EXPORT_DEFAULT_LIMIT = 100
export const EXPORT_MAX_LIMIT = 1000
export const EXPORT_MAX_RANGE_DAYS = 90
/** How arrays (cpv_codes) are written in one CSV field. */
export const CSV_ARRAY_SEPARATOR = ";"

const DAY_MS = 86_400_000

const badRequest = (code: string, path: string, message: string) =>
  new BadRequest({ code, message, details: [{ path, message }] })

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

const toCsvRecord = (row: ExportRow) => ({ ...toExportRow(row), cpv_codes: row.cpv_codes.join(CSV_ARRAY_SEPARATOR) })

const exportPosition = (key: ReadonlyArray<string | number>): Option.Option<ExportPosition> => {
  const [publishKey, tenderId] = key
  return key.length === 2 && typeof publishKey === "string" && typeof tenderId === "string"
    ? Option.some({ publishKey, tenderId })
    : Option.none()
}

/**
 * The CSV body, produced row by row by csv-stringify (UTF-8 BOM, header row, RFC 4180 quoting)
 * while the response is written, never assembled as one string.
 */
const csvBody = (rows: ReadonlyArray<ExportRow>) =>
  NodeStream.fromReadable<Error, Uint8Array>(
    () =>
      Readable.from(rows.map(toCsvRecord)).pipe(
        stringify({ bom: true, header: true, columns: EXPORT_COLUMNS as Array<string>, record_delimiter: "windows" })
      ),
    (error) => (error instanceof Error ? error : new Error(String(error)))
  )

export const ExportHttpLive = HttpApiBuilder.group(Api, "export", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* ScoredTendersRepo
    const cursors = yield* makeCursors

    return handlers.handle("tenders", ({ urlParams }) =>
      Effect.gen(function* () {
        const { from, to } = urlParams
        const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS
        if (span < 0) return yield* badRequest("VALIDATION_ERROR", "to", "`to` must not be before `from`")
        if (span > EXPORT_MAX_RANGE_DAYS) {
          return yield* badRequest("DATE_RANGE_EXCEEDED", "to", "`to - from` must be at most 90 days")
        }
        const limit = urlParams.limit ?? EXPORT_DEFAULT_LIMIT
        if (limit > EXPORT_MAX_LIMIT) {
          return yield* badRequest("LIMIT_EXCEEDED", "limit", "`limit` must be at most 1000")
        }
        const companyId = urlParams.companyId.toLowerCase()
        // The format and page size are not part of the binding: JSON and CSV pages may be mixed.
        const query = queryFingerprint(["export", companyId, from, to])
        const position = urlParams.cursor === undefined ? undefined : yield* cursors.decode(query, urlParams.cursor)
        const after = position === undefined ? Option.none<ExportPosition>() : exportPosition(position.key)
        if (position !== undefined && Option.isNone(after)) return yield* invalidCursor()

        const caller = yield* requireOwnCompany(companyId)
        const bound = position?.bound ?? (yield* repo.snapshotBound)
        const rows = yield* repo.exportPage({ companyId, from, to, bound, after, take: limit + 1 })
        const page = rows.length > limit ? rows.slice(0, limit) : rows
        const charge = yield* chargeCredits({
          tenantId: caller.tenantId,
          report: caller.credits,
          cost: page.length,
          mode: "upTo",
          reason: "GET /api/v1/export/tenders"
        })
        const served = charge.charged < page.length ? page.slice(0, charge.charged) : page
        const last = served[served.length - 1]
        const hasMore = rows.length > served.length
        const nextCursor =
          hasMore && last !== undefined
            ? cursors.encode(query, { key: [last.publish_key, last.tender_id], bound })
            : null
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
        return HttpServerResponse.unsafeJson({
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
