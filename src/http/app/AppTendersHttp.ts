import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { queryFingerprint } from "../../domain/Cursor.js"
import type { FactorReasons } from "../../domain/scoring/Reasons.js"
import {
  type AppListPosition,
  type AppListSort,
  type AppTenderDetailRow,
  AppTenderReads,
  type AppTenderRow,
  searchWords
} from "../../infra/scoring/AppTenderReads.js"
import { ScoreReasons } from "../../infra/scoring/ScoreReasons.js"
import { storedBreakdown } from "../../infra/scoring/StoredFactors.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"
import { makeCursors } from "../pagination/Cursors.js"
import { APP_TENDERS_DEFAULT_LIMIT } from "./AppTendersApi.js"

const toItem = (row: AppTenderRow) => ({
  id: row.id,
  title: row.title,
  score: row.score,
  verdict: row.verdict,
  cpvCodes: row.cpv_codes,
  authority: row.authority,
  authorityCounty: row.authority_county,
  deadline: row.deadline,
  estimatedValueRon: row.estimated_value_ron,
  estimatedValueEur: row.estimated_value_eur,
  publishDate: row.publish_date,
  sourceUrl: row.source_url
})

/** The breakdown under the row's model weights, each factor with its reason when there is one. */
const toDetail = (row: AppTenderDetailRow, reasons: FactorReasons | undefined) =>
  Effect.map(storedBreakdown(row), (factors) => {
    const { cpv_type, ...cpv } = factors.cpv
    const why = (name: keyof FactorReasons) => (reasons === undefined ? {} : { reason: reasons[name] })
    return {
      ...toItem(row),
      description: row.description,
      cpv: row.cpv_labels.map((label) => ({ code: label.code, labelRo: label.label_ro, labelEn: label.label_en })),
      breakdown: {
        overallConfidence: row.overall_confidence,
        factors: {
          semantic: { ...factors.semantic, ...why("semantic") },
          keyword: { ...factors.keyword, ...why("keyword") },
          cpv: { ...cpv, cpvType: cpv_type as "primary" | "additional" | "none", ...why("cpv") },
          valueFit: { ...factors.value_fit, ...why("value_fit") },
          historical: { ...factors.historical, ...why("historical") }
        },
        modelVersion: row.model_version,
        scoredAt: row.scored_at
      }
    }
  })

/** A cursor's sort key read back as the position of the order `sort` (the fingerprint binds the order). */
const listPosition =
  (sort: AppListSort) =>
  (key: ReadonlyArray<string | number>): Option.Option<AppListPosition> => {
    if (sort === "score") {
      const [score, publishKey, tenderId] = key
      return key.length === 3 &&
        typeof score === "number" &&
        typeof publishKey === "string" &&
        typeof tenderId === "string"
        ? Option.some({ sort, score, publishKey, tenderId })
        : Option.none()
    }
    const [first, tenderId] = key
    if (key.length !== 2 || typeof tenderId !== "string") return Option.none()
    if (sort === "deadline")
      return typeof first === "string" ? Option.some({ sort, deadlineKey: first, tenderId }) : Option.none()
    return typeof first === "number" ? Option.some({ sort, value: first, tenderId }) : Option.none()
  }

/** The sort key of a served row in the order `sort`, for the next cursor. */
const sortKey = (sort: AppListSort, row: AppTenderRow): ReadonlyArray<string | number> =>
  sort === "deadline"
    ? [row.deadline_key, row.id]
    : sort === "value"
      ? [row.estimated_value_ron ?? -1, row.id]
      : [row.score, row.publish_key, row.id]

const badQuery = (path: string, message: string) =>
  new ApiError.ValidationError({ message, details: [{ path, message }] })

const noCompany = () => new ApiError.NotFound({ message: "No such company" })

export const AppTendersHttpLive = HttpApiBuilder.group(Api, "appTenders", (handlers) =>
  Effect.gen(function* () {
    const reads = yield* AppTenderReads
    const explain = yield* ScoreReasons
    const cursors = yield* makeCursors
    return handlers
      .handle("list", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const account = yield* CurrentAccount
          const companyId = path.companyId.toLowerCase()
          const minScore = urlParams.minScore ?? 0
          const limit = urlParams.limit ?? APP_TENDERS_DEFAULT_LIMIT
          const status = urlParams.status ?? "all"
          const sort = urlParams.sort ?? "score"
          const { deadlineFrom, deadlineTo } = urlParams
          if (deadlineFrom !== undefined && deadlineTo !== undefined && deadlineTo < deadlineFrom) {
            return yield* badQuery("deadlineTo", "must not be before deadlineFrom")
          }
          const words = urlParams.q === undefined ? [] : searchWords(urlParams.q)
          const filters = {
            words,
            county: Option.fromNullable(urlParams.county),
            cpv: Option.fromNullable(urlParams.cpv),
            deadlineFrom: Option.fromNullable(deadlineFrom),
            deadlineTo: Option.fromNullable(deadlineTo)
          }
          const query = queryFingerprint([
            "app-tenders",
            companyId,
            minScore,
            status,
            sort,
            words.join(" "),
            urlParams.county ?? "",
            urlParams.cpv ?? "",
            deadlineFrom ?? "",
            deadlineTo ?? ""
          ])
          const { after, bound, asOf: cursorAsOf } = yield* cursors.resume(query, urlParams.cursor, listPosition(sort))
          // Open and closed are told apart as of page 1: a deadline passing between pages moves nothing.
          const asOf = cursorAsOf ?? (yield* Clock.currentTimeMillis)
          const page = yield* reads.listPage({
            tenantId: account.tenantId,
            companyId,
            minScore,
            status,
            now: new Date(asOf),
            filters,
            sort,
            bound: Option.fromNullable(bound),
            after,
            take: limit + 1
          })
          if (!page.owned) return yield* noCompany()
          const served = page.rows.slice(0, limit)
          const last = served[served.length - 1]
          const hasMore = page.rows.length > limit
          const nextCursor =
            hasMore && last !== undefined
              ? cursors.encode(query, { key: sortKey(sort, last), bound: page.bound, asOf })
              : null
          return { data: served.map(toItem), meta: { total: page.total, limit, nextCursor, hasMore } }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const account = yield* CurrentAccount
          const companyId = path.companyId.toLowerCase()
          const found = yield* reads.detail({
            tenantId: account.tenantId,
            companyId,
            tenderId: path.tenderId.toLowerCase()
          })
          if (Option.isNone(found)) {
            return yield* new ApiError.NotFound({ message: "No such tender scored for this company" })
          }
          // The browser app speaks Romanian: its reasons too (the key API's are English).
          const reasons = yield* explain.reasonsFor(companyId, [found.value.id], "ro")
          return { data: yield* toDetail(found.value, reasons.get(found.value.id)) }
        })
      )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
