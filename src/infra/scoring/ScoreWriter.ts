import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { tenderMatchedPayload } from "../../domain/scoring/MatchEvent.js"
import { alertingWatchlists } from "../../domain/scoring/Matching.js"
import { MODEL_VERSION, scorePair } from "../../domain/scoring/Model.js"
import type { CorpusStats } from "../../domain/scoring/Semantic.js"
import { TENDER_MATCHED } from "../../domain/webhooks/DeliverySchedule.js"
import { DELIVERIES_CHANNEL } from "../webhooks/DeliveryQueue.js"
import type { LoadedCompany, LoadedTender } from "./ScoringReads.js"

/** A tender and a company it is to be scored for (a candidate by the domain rule). */
export interface ScoringPair {
  readonly tender: LoadedTender
  readonly company: LoadedCompany
}

/**
 * The earlier scores a write replaces: those of the given tenders (a tender batch), or those of a
 * company on tenders still open at `now` (a company rescore).
 */
export type StaleScope =
  | { readonly tenderIds: ReadonlyArray<string> }
  | { readonly companyId: string; readonly now: Date }

/** (company, tender) pairs as two parallel id arrays. */
interface PairKeys {
  readonly company: ReadonlyArray<string>
  readonly tender: ReadonlyArray<string>
}
const noPairs: PairKeys = { company: [], tender: [] }

/**
 * Column arrays for one INSERT … unnest each: numbers travel as numeric arrays, not JSON text.
 * Alerts and events exist only for the new tenders among the pairs.
 */
const rowsOf = (pairs: ReadonlyArray<ScoringPair>, stats: CorpusStats, isNew: ReadonlySet<string>, scoredAt: Date) => {
  const scores = {
    company: [] as Array<string>,
    tender: [] as Array<string>,
    overall: [] as Array<number>,
    confidence: [] as Array<number>,
    verdict: [] as Array<string>,
    semantic: [] as Array<number>,
    keyword: [] as Array<number>,
    cpv: [] as Array<number>,
    valueFit: [] as Array<number>,
    historical: [] as Array<number>,
    cpvType: [] as Array<string>,
    publishDate: [] as Array<string>,
    ingestSeq: [] as Array<string>
  }
  const alerts = {
    tenant: [] as Array<string>,
    company: [] as Array<string>,
    watchlist: [] as Array<string>,
    tender: [] as Array<string>,
    score: [] as Array<number>,
    verdict: [] as Array<string>
  }
  const events = {
    tenant: [] as Array<string>,
    company: [] as Array<string>,
    tender: [] as Array<string>,
    payload: [] as Array<string>
  }

  for (const { tender, company } of pairs) {
    const score = scorePair(company.prepared, tender.prepared, stats)
    const companyId = company.prepared.company.id
    scores.company.push(companyId)
    scores.tender.push(tender.row.id)
    scores.overall.push(score.overallScore)
    scores.confidence.push(score.overallConfidence)
    scores.verdict.push(score.verdict)
    scores.semantic.push(score.factors.semantic.score)
    scores.keyword.push(score.factors.keyword.score)
    scores.cpv.push(score.factors.cpv.score)
    scores.valueFit.push(score.factors.value_fit.score)
    scores.historical.push(score.factors.historical.score)
    scores.cpvType.push(score.factors.cpv.cpv_type)
    scores.publishDate.push(tender.row.publish_date.toISOString())
    scores.ingestSeq.push(tender.row.ingest_seq)
    if (!isNew.has(tender.row.id)) continue
    const alerting = alertingWatchlists(company.prepared, tender.prepared, score)
    if (alerting.length === 0) continue
    for (const { watchlist } of alerting) {
      alerts.tenant.push(company.tenantId)
      alerts.company.push(companyId)
      alerts.watchlist.push(watchlist.id)
      alerts.tender.push(tender.row.id)
      alerts.score.push(score.overallScore)
      alerts.verdict.push(score.verdict)
    }
    const matched = {
      id: tender.row.id,
      title: tender.row.title,
      cpvCodes: [tender.prepared.tender.mainCpv, ...tender.prepared.tender.additionalCpvs],
      deadline: tender.row.deadline,
      estimatedValueRon: tender.row.value_ron,
      sourceUrl: tender.row.source_url
    }
    events.tenant.push(company.tenantId)
    events.company.push(companyId)
    events.tender.push(tender.row.id)
    events.payload.push(JSON.stringify(tenderMatchedPayload(companyId, matched, score, scoredAt)))
  }
  return { scores, alerts, events }
}

/** Writes scores, alerts and tender.matched events; removes the scores they replace. */
export const makeScoreWriter = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Removes a company's scores on tenders still open at `now` (those a rescore recomputes), except
   * the pairs in `keep`, which the caller rewrites in place.
   */
  const removeOpenScoresOf = (companyId: string, now: Date, keep: PairKeys = noPairs) =>
    sql`
      DELETE FROM tender_scores s USING tenders t
      WHERE s.company_id = ${companyId} AND t.id = s.tender_id
        AND (t.deadline IS NULL OR t.deadline > ${now.toISOString()}::timestamptz)
        AND ${notIn(keep)}`

  /** `s` (a tender_scores row) is none of the pairs in `keep`. */
  const notIn = (keep: PairKeys) =>
    keep.company.length === 0
      ? sql`true`
      : sql`NOT EXISTS (SELECT 1 FROM unnest(${keep.company}::uuid[], ${keep.tender}::uuid[]) AS k(company_id, tender_id)
                        WHERE k.company_id = s.company_id AND k.tender_id = s.tender_id)`

  /** Removes the scores of these tenders that are still from another model version. */
  const removeOutdatedScores = (tenderIds: ReadonlyArray<string>) =>
    sql`DELETE FROM tender_scores
        WHERE tender_id = ANY(${tenderIds}::uuid[]) AND model_version <> ${MODEL_VERSION}`

  /**
   * Scores the given pairs and writes them in one transaction: score upserts, removal of the
   * earlier scores in `staleScope` (so pairs that are no longer candidates disappear), and for new
   * tenders their alerts and events.
   */
  const scoreAndWrite = (
    pairs: ReadonlyArray<ScoringPair>,
    stats: CorpusStats,
    isNew: ReadonlySet<string>,
    staleScope: StaleScope
  ) =>
    Effect.gen(function* () {
      const scoredAt = new Date(yield* Clock.currentTimeMillis)
      const { scores, alerts, events } = rowsOf(pairs, stats, isNew, scoredAt)
      const computedAt = yield* Clock.currentTimeMillis
      const written = yield* sql.withTransaction(
        Effect.gen(function* () {
          // Earlier scores in scope that are not rewritten below are removed, so pairs that stopped
          // being candidates disappear and a list never shows a score computed from an outdated
          // profile or tender. Rewritten pairs are updated in place (the upsert), not deleted and
          // re-inserted: a cursor's snapshot then keeps their earlier version (migration 0012).
          if ("tenderIds" in staleScope) {
            if (staleScope.tenderIds.length > 0) {
              yield* sql`DELETE FROM tender_scores s
                         WHERE s.tender_id = ANY(${staleScope.tenderIds}::uuid[]) AND ${notIn(scores)}`
            }
          } else {
            yield* removeOpenScoresOf(staleScope.companyId, staleScope.now, scores)
          }
          if (scores.company.length > 0) {
            yield* sql`
              INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict,
                                         score_semantic, score_keyword, score_cpv, score_value_fit, score_historical,
                                         cpv_type, model_version, scored_at, tender_publish_date, tender_ingest_seq)
              SELECT s.company_id, s.tender_id, s.overall_score, s.overall_confidence, s.verdict, s.semantic, s.keyword,
                     s.cpv, s.value_fit, s.historical, s.cpv_type, ${MODEL_VERSION},
                     ${scoredAt.toISOString()}::timestamptz, s.publish_date, s.ingest_seq
              FROM unnest(${scores.company}::uuid[], ${scores.tender}::uuid[], ${scores.overall}::smallint[],
                          ${scores.confidence}::real[], ${scores.verdict}::text[], ${scores.semantic}::real[],
                          ${scores.keyword}::real[], ${scores.cpv}::real[], ${scores.valueFit}::real[],
                          ${scores.historical}::real[], ${scores.cpvType}::text[], ${scores.publishDate}::timestamptz[],
                          ${scores.ingestSeq}::bigint[])
                AS s(company_id, tender_id, overall_score, overall_confidence, verdict, semantic, keyword, cpv,
                     value_fit, historical, cpv_type, publish_date, ingest_seq)
              ON CONFLICT (tender_id, company_id) DO UPDATE SET
                overall_score = EXCLUDED.overall_score, overall_confidence = EXCLUDED.overall_confidence,
                verdict = EXCLUDED.verdict, score_semantic = EXCLUDED.score_semantic,
                score_keyword = EXCLUDED.score_keyword, score_cpv = EXCLUDED.score_cpv,
                score_value_fit = EXCLUDED.score_value_fit, score_historical = EXCLUDED.score_historical,
                cpv_type = EXCLUDED.cpv_type, model_version = EXCLUDED.model_version,
                scored_at = EXCLUDED.scored_at, tender_publish_date = EXCLUDED.tender_publish_date,
                tender_ingest_seq = EXCLUDED.tender_ingest_seq`
          }
          let alertCount = 0
          let eventCount = 0
          if (alerts.watchlist.length > 0) {
            const inserted = yield* sql`
              INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict)
              SELECT * FROM unnest(${alerts.tenant}::uuid[], ${alerts.company}::uuid[], ${alerts.watchlist}::uuid[],
                                   ${alerts.tender}::uuid[], ${alerts.score}::smallint[], ${alerts.verdict}::text[])
              ON CONFLICT (watchlist_id, tender_id) DO NOTHING
              RETURNING 1`
            alertCount = inserted.length
          }
          if (events.company.length > 0) {
            // One statement: the new events, and for each one delivery per active webhook of the
            // tenant subscribed to tender.matched (spec 6.1). The delivery body is the payload's JSON
            // text as built here, fixed once: every attempt sends and signs these bytes.
            const [written] = yield* sql<{ events: number; deliveries: number }>`
              WITH input AS (
                SELECT * FROM unnest(${events.tenant}::uuid[], ${events.company}::uuid[], ${events.tender}::uuid[],
                                     ${events.payload}::text[]) AS e(tenant_id, company_id, tender_id, payload)
              ), inserted AS (
                INSERT INTO match_events (tenant_id, company_id, tender_id, payload)
                SELECT tenant_id, company_id, tender_id, payload::jsonb FROM input
                ON CONFLICT (company_id, tender_id) DO NOTHING
                RETURNING id, tenant_id, company_id, tender_id
              ), deliveries AS (
                INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, next_attempt_at,
                                                created_at, updated_at)
                SELECT w.id, i.id, i.tenant_id, input.payload, 'pending', ${scoredAt.toISOString()}::timestamptz, ${scoredAt.toISOString()}::timestamptz,
                       ${scoredAt.toISOString()}::timestamptz
                FROM inserted i
                JOIN input ON input.company_id = i.company_id AND input.tender_id = i.tender_id
                JOIN webhooks w ON w.tenant_id = i.tenant_id AND w.active AND ${TENDER_MATCHED} = ANY(w.events)
                RETURNING 1
              )
              SELECT (SELECT count(*) FROM inserted)::int AS events, (SELECT count(*) FROM deliveries)::int AS deliveries`
            eventCount = written!.events
            if (written!.deliveries > 0) yield* sql`SELECT pg_notify(${DELIVERIES_CHANNEL}, 'new')`
          }
          return { scored: scores.company.length, alerts: alertCount, events: eventCount }
        })
      )
      yield* Effect.logDebug(
        `scoring: ${pairs.length} pairs computed in ${computedAt - scoredAt.getTime()} ms, written in ${(yield* Clock.currentTimeMillis) - computedAt} ms`
      )
      return written
    })

  return { scoreAndWrite, removeOpenScoresOf, removeOutdatedScores }
})

export type ScoreWriter = Effect.Effect.Success<typeof makeScoreWriter>
