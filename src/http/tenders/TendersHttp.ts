import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Layer, Option } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { queryFingerprint } from "../../domain/Cursor.js"
import type { Factors } from "../../domain/scoring/Model.js"
import type { FactorReasons, ReasonLanguage } from "../../domain/scoring/Reasons.js"
import {
  type ListPosition,
  ScoredTendersRepo,
  type ScoreRow,
  type TenderListRow
} from "../../infra/scoring/ScoredTendersRepo.js"
import { ScoreReasons } from "../../infra/scoring/ScoreReasons.js"
import { storedBreakdown } from "../../infra/scoring/StoredFactors.js"
import { Api } from "../Api.js"
import { ApiCaller } from "../ApiKeyAuth.js"
import { ApiKeyAuthLive, companyAccessDenied, requireOwnCompany } from "../ApiKeyAuthLive.js"
import { chargeCredits, creditsMeta } from "../credits/CreditsReport.js"
import { refuseHead } from "../HeadRequests.js"
import { prebuiltJson } from "../PrebuiltJson.js"
import { makeCursors } from "../pagination/Cursors.js"
import { servePaidPage } from "../pagination/PaidPage.js"
import { negotiateReasonLanguage } from "./ReasonLanguage.js"
import { LIST_DEFAULT_LIMIT } from "./TendersApi.js"

export const SCORE_COST = 2

/** The wire form of a list item (spec 2.1), built directly: this is the hot path. */
const toListItem = (row: TenderListRow) => ({
  tender_id: row.tender_id,
  title: row.title,
  score: row.score,
  verdict: row.verdict,
  cpv_codes: row.cpv_codes,
  contracting_authority: row.contracting_authority,
  deadline: row.deadline,
  estimated_value_ron: row.estimated_value_ron,
  estimated_value_eur: row.estimated_value_eur,
  publish_date: row.publish_date,
  source_url: row.source_url
})

/**
 * The `data` of a score answer (spec 2.3), built before the caller is charged (an unknown model
 * version dies in storedBreakdown). Each factor carries its `reason` (our addition to spec 2.3): one
 * sentence naming the evidence, from the company's current profile.
 */
const toScoreData = (row: ScoreRow, reasons: FactorReasons | undefined, language: ReasonLanguage) =>
  Effect.map(storedBreakdown(row), (factors) => ({
    tender_id: row.tender_id,
    overall_score: row.overall_score,
    overall_confidence: row.overall_confidence,
    verdict: row.verdict,
    factors: withReasons(factors, reasons, NO_REASON[language]),
    scoring_model_version: row.model_version,
    scored_at: row.scored_at
  }))

/** A score whose tender is no longer a contract notice (or whose company was just removed) has no evidence to name. */
const NO_REASON: { readonly [language in ReasonLanguage]: string } = {
  en: "no evidence available: the tender or the company profile changed since scoring",
  ro: "nicio dovadă disponibilă: licitația sau profilul companiei s-au schimbat de la punctare"
}

const withReasons = (factors: Factors, reasons: FactorReasons | undefined, noReason: string) => ({
  semantic: { ...factors.semantic, reason: reasons?.semantic ?? noReason },
  keyword: { ...factors.keyword, reason: reasons?.keyword ?? noReason },
  cpv: { ...factors.cpv, reason: reasons?.cpv ?? noReason },
  value_fit: { ...factors.value_fit, reason: reasons?.value_fit ?? noReason },
  historical: { ...factors.historical, reason: reasons?.historical ?? noReason }
})

const listPosition = (key: ReadonlyArray<string | number>): Option.Option<ListPosition> => {
  const [score, publishKey, tenderId] = key
  return key.length === 3 && typeof score === "number" && typeof publishKey === "string" && typeof tenderId === "string"
    ? Option.some({ score, publishKey, tenderId })
    : Option.none()
}

export const TendersHttpLive = HttpApiBuilder.group(Api, "tenders", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* ScoredTendersRepo
    const explain = yield* ScoreReasons
    const cursors = yield* makeCursors

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          yield* refuseHead
          const companyId = urlParams.companyId.toLowerCase()
          const minScore = urlParams.minScore ?? 0
          const limit = urlParams.limit ?? LIST_DEFAULT_LIMIT
          const status = urlParams.status ?? "all"
          // Page size is not part of the binding: a client may change it between pages. `all` keeps
          // the fingerprint cursors had before `status` existed, so they stay valid.
          const query = queryFingerprint(
            status === "all" ? ["tenders", companyId, minScore] : ["tenders", companyId, minScore, status]
          )

          const resumed = yield* cursors.resume(query, urlParams.cursor, listPosition)
          const { after, bound: cursorBound } = resumed
          // Open and closed are told apart as of page 1: a deadline passing between pages moves nothing.
          const asOf = resumed.asOf ?? (yield* Clock.currentTimeMillis)

          const caller = yield* ApiCaller
          // The page statement also checks the company is the caller's. Page 1 fixes the snapshot;
          // later pages carry it in the cursor. One row more than the page tells whether another
          // page exists.
          const { owned, bound, total, rows } = yield* repo.listPage({
            tenantId: caller.tenantId,
            companyId,
            minScore,
            status,
            now: new Date(asOf),
            bound: Option.fromNullable(cursorBound),
            after,
            take: limit + 1
          })
          if (!owned) return yield* companyAccessDenied()
          const { served, hasMore, nextCursor, charge } = yield* servePaidPage({
            caller,
            rows,
            limit,
            reason: "GET /api/v1/tenders",
            cursorAfter: (last) =>
              cursors.encode(query, {
                key: [last.score, last.publish_key, last.tender_id],
                bound,
                ...(status === "all" ? {} : { asOf })
              })
          })

          // Prebuilt wire JSON (a test decodes it with TenderList): schema encoding costs half the throughput.
          return prebuiltJson({
            data: served.map(toListItem),
            meta: { total, limit, next_cursor: nextCursor, has_more: hasMore, credits: creditsMeta(charge) }
          })
        })
      )
      .handle("score", ({ headers, path, urlParams }) =>
        Effect.gen(function* () {
          yield* refuseHead
          const language = yield* negotiateReasonLanguage(headers["accept-language"])
          // UUIDs are stored lower-case; the reasons' lookups compare them as text.
          const companyId = urlParams.companyId.toLowerCase()
          const tenderId = path.id.toLowerCase()
          const caller = yield* requireOwnCompany(companyId)
          const found = yield* repo.findScore({ companyId, tenderId })
          if (Option.isNone(found)) {
            return yield* new ApiError.NotFound({ message: "No such tender scored for this company" })
          }
          const reasons = yield* explain.reasonsFor(companyId, [tenderId], language)
          const data = yield* toScoreData(found.value, reasons.get(found.value.tender_id), language)
          const charge = yield* chargeCredits({
            tenantId: caller.tenantId,
            report: caller.credits,
            cost: SCORE_COST,
            mode: "exact",
            reason: "GET /api/v1/tenders/:id/score"
          })
          return { data, meta: { credits: creditsMeta(charge) } }
        })
      )
  })
)

/** The group with its key authentication (general rate limit). */
export const TendersLive = TendersHttpLive.pipe(Layer.provide(ApiKeyAuthLive))
