import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { queryFingerprint } from "../../domain/Cursor.js"
import type { FactorReasons } from "../../domain/scoring/Reasons.js"
import { type AppTenderDetailRow, AppTenderReads, type AppTenderRow } from "../../infra/scoring/AppTenderReads.js"
import type { ListPosition } from "../../infra/scoring/ScoredTendersRepo.js"
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

const listPosition = (key: ReadonlyArray<string | number>): Option.Option<ListPosition> => {
  const [score, publishKey, tenderId] = key
  return key.length === 3 && typeof score === "number" && typeof publishKey === "string" && typeof tenderId === "string"
    ? Option.some({ score, publishKey, tenderId })
    : Option.none()
}

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
          const status = Option.fromNullable(urlParams.status)
          const query = queryFingerprint(["app-tenders", companyId, minScore, urlParams.status ?? "all"])
          const { after, bound } = yield* cursors.resume(query, urlParams.cursor, listPosition)
          const page = yield* reads.listPage({
            tenantId: account.tenantId,
            companyId,
            minScore,
            status,
            now: new Date(yield* Clock.currentTimeMillis),
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
              ? cursors.encode(query, { key: [last.score, last.publish_key, last.id], bound: page.bound })
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
