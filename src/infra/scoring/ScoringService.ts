import { SqlClient, type SqlError } from "@effect/sql"
import { Clock, Context, Effect, Layer } from "effect"
import {
  type AwardInput,
  type CompanyInput,
  type PreparedCompany,
  type PreparedTender,
  prepareCompany,
  prepareTender,
  type WatchlistInput
} from "../../domain/scoring/Inputs.js"
import { alertingWatchlists, isCandidate } from "../../domain/scoring/Matching.js"
import { MODEL_VERSION, scorePair } from "../../domain/scoring/Model.js"
import type { CorpusStats } from "../../domain/scoring/Semantic.js"
import { makeCorpusStatsCache } from "./CorpusStatsCache.js"
import { type CpvNeighbourhood, loadCpvNeighbourhood } from "./CpvNeighbourhood.js"

export interface ScoreTendersResult {
  readonly scored: number
  readonly alerts: number
  readonly events: number
}

/**
 * Scores tenders for every company they may concern and raises alerts and tender.matched events
 * for newly inserted tenders. Only ids listed in `isNew` may raise alerts or events.
 */
export class ScoringService extends Context.Tag("ScoringService")<
  ScoringService,
  {
    readonly scoreTenders: (
      tenderIds: ReadonlyArray<string>,
      options: { readonly isNew: ReadonlyArray<string> }
    ) => Effect.Effect<{ scored: number; alerts: number; events: number }>
    readonly rescoreCompany: (companyId: string) => Effect.Effect<{ scored: number }>
  }
>() {}

/** Tenders scored per transaction. */
export const SCORING_BATCH_SIZE = 250

interface TenderRow {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly main_cpv: string
  readonly additional_cpvs: ReadonlyArray<string>
  readonly authority_id: string
  readonly value_ron: number | null
  readonly deadline: Date | null
  readonly publish_date: Date
  readonly ingest_seq: string
  readonly source_url: string
}

interface LoadedTender {
  readonly row: TenderRow
  readonly prepared: PreparedTender
}

interface LoadedCompany {
  readonly tenantId: string
  readonly prepared: PreparedCompany
}

const toLoadedTender = (row: TenderRow): LoadedTender => ({
  row,
  prepared: prepareTender({
    id: row.id,
    title: row.title,
    description: row.description,
    mainCpv: row.main_cpv.trim(),
    additionalCpvs: row.additional_cpvs.map((code) => code.trim()),
    authorityId: row.authority_id,
    valueRon: row.value_ron
  })
})

const chunksOf = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const chunks: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size))
  return chunks
}

/** The body of a tender.matched event (spec 6.1). */
const matchedEventPayload = (companyId: string, tender: TenderRow, score: number, verdict: string, at: Date) => ({
  event: "tender.matched",
  company_id: companyId,
  tender: {
    id: tender.id,
    title: tender.title,
    score,
    verdict,
    cpv_codes: [tender.main_cpv.trim(), ...tender.additional_cpvs.map((code) => code.trim())],
    deadline: tender.deadline === null ? null : tender.deadline.toISOString(),
    estimated_value_ron: tender.value_ron,
    source_url: tender.source_url
  },
  timestamp: at.toISOString()
})

export const makeScoringService = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const corpus = yield* makeCorpusStatsCache
  // The CPV table is static reference data: read it on first use, then keep it.
  const neighbourhood = yield* Effect.cached(loadCpvNeighbourhood.pipe(Effect.provideService(SqlClient.SqlClient, sql)))

  const TENDER_COLUMNS = sql`
    t.id, t.title, t.description, t.main_cpv, t.additional_cpvs::text[] AS additional_cpvs, t.authority_id,
    coalesce(t.estimated_value_ron, t.estimated_value_eur * 4.97)::float8 AS value_ron,
    t.deadline, t.publish_date, t.ingest_seq::text AS ingest_seq, t.source_url`

  const loadTenders = (ids: ReadonlyArray<string>) =>
    sql<TenderRow>`
      SELECT ${TENDER_COLUMNS} FROM tenders t
      WHERE t.id = ANY(${ids}::uuid[]) AND t.notice_type = 'contract'
      ORDER BY t.ingest_seq`.pipe(Effect.map((rows) => rows.map(toLoadedTender)))

  /**
   * Candidate prefilter, through indexes only: one query for the watchlists whose CPV codes lie in
   * the batch's CPV neighbourhoods (GIN on cpv_codes), whose keyword anchors occur in its text (GIN
   * on scoring_keyword_anchors) or that target its authorities; one for the award notices of the
   * same CPV group, division code or authority and the companies that won them. The rows are then
   * mapped to tenders in memory. Constant arrays let PostgreSQL combine the indexes (BitmapOr).
   * The result is a superset of the domain rule (Matching.isCandidate), applied afterwards.
   */
  const candidatePairs = (tenders: ReadonlyArray<LoadedTender>, cpv: CpvNeighbourhood) =>
    Effect.gen(function* () {
      const codesOf = (t: LoadedTender) => [t.prepared.tender.mainCpv, ...t.prepared.tender.additionalCpvs]
      const nearCodes = new Map(tenders.map((t) => [t, new Set(codesOf(t).flatMap((code) => cpv.codesNear(code)))]))
      const allNear = [...new Set(tenders.flatMap((t) => [...nearCodes.get(t)!]))]
      const allKeys = [...new Set(tenders.flatMap((t) => [...t.prepared.indexKeys]))]
      const allAuthorities = [...new Set(tenders.map((t) => t.row.authority_id))]
      const allGroups = [...new Set(tenders.flatMap((t) => codesOf(t).map((code) => code.slice(0, 3))))]
      const allDivisionCodes = allNear.filter((code) => code.slice(2, 8) === "000000")

      const watchlists = yield* sql<{
        company_id: string
        cpv_codes: ReadonlyArray<string>
        anchors: ReadonlyArray<string>
        authority_id: string | null
      }>`
        SELECT company_id, cpv_codes::text[] AS cpv_codes, scoring_keyword_anchors(keywords) AS anchors, authority_id
        FROM watchlists
        WHERE deleted_at IS NULL AND active
          AND (cpv_codes && ${allNear}::char(10)[]
               OR scoring_keyword_anchors(keywords) && ${allKeys}::text[]
               OR authority_id = ANY(${allAuthorities}::uuid[]))`
      const awards = yield* sql<{ company_id: string; main_cpv: string; authority_id: string }>`
        SELECT c.id AS company_id, a.main_cpv::text AS main_cpv, a.authority_id
        FROM tenders a
        JOIN companies c ON c.fiscal_code = ANY(a.winner_fiscal_codes) AND c.active
        WHERE a.notice_type = 'award'
          AND (left(a.main_cpv, 3) = ANY(${allGroups}::text[])
               OR a.main_cpv = ANY(${allDivisionCodes}::char(10)[])
               OR a.authority_id = ANY(${allAuthorities}::uuid[]))`

      // Inverted maps: key → companies; a tender's candidates are the union over its keys.
      const byCode = new Map<string, Set<string>>()
      const byAnchor = new Map<string, Set<string>>()
      const byAuthority = new Map<string, Set<string>>()
      const add = (map: Map<string, Set<string>>, key: string, companyId: string) => {
        const set = map.get(key)
        if (set === undefined) map.set(key, new Set([companyId]))
        else set.add(companyId)
      }
      for (const w of watchlists) {
        for (const code of w.cpv_codes) add(byCode, code.trim(), w.company_id)
        for (const anchor of w.anchors) add(byAnchor, anchor, w.company_id)
        if (w.authority_id !== null) add(byAuthority, w.authority_id, w.company_id)
      }
      const byAwardGroup = new Map<string, Set<string>>()
      const byAwardDivision = new Map<string, Set<string>>()
      for (const a of awards) {
        add(byAwardGroup, a.main_cpv.slice(0, 3), a.company_id)
        if (a.main_cpv.slice(2, 8) === "000000") add(byAwardDivision, a.main_cpv.slice(0, 2), a.company_id)
        add(byAuthority, a.authority_id, a.company_id)
      }

      const pairs: Array<{ readonly tender: LoadedTender; readonly companyId: string }> = []
      for (const tender of tenders) {
        const companies = new Set<string>()
        const collect = (set: Set<string> | undefined) => {
          if (set !== undefined) for (const id of set) companies.add(id)
        }
        for (const code of nearCodes.get(tender)!) collect(byCode.get(code))
        for (const key of tender.prepared.indexKeys) collect(byAnchor.get(key))
        collect(byAuthority.get(tender.row.authority_id))
        for (const code of codesOf(tender)) {
          collect(byAwardGroup.get(code.slice(0, 3)))
          collect(byAwardDivision.get(code.slice(0, 2)))
        }
        for (const companyId of companies) pairs.push({ tender, companyId })
      }
      return pairs
    })

  /** Profiles (description, active watchlists, past awards) of active companies. */
  const loadCompanies = (companyIds: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const result = new Map<string, LoadedCompany>()
      if (companyIds.length === 0) return result
      const companies = yield* sql<{ id: string; tenant_id: string; description: string }>`
        SELECT id, tenant_id, description FROM companies WHERE id = ANY(${companyIds}::uuid[]) AND active`
      const watchlists = yield* sql<{
        id: string
        company_id: string
        cpv_codes: ReadonlyArray<string>
        keywords: ReadonlyArray<string>
        min_value: number | null
        max_value: number | null
        authority_id: string | null
        min_score: number
      }>`
        SELECT id, company_id, cpv_codes::text[] AS cpv_codes, keywords, min_value::float8 AS min_value,
               max_value::float8 AS max_value, authority_id, min_score
        FROM watchlists
        WHERE company_id = ANY(${companyIds}::uuid[]) AND deleted_at IS NULL AND active
        ORDER BY created_at, id`
      const awards = yield* sql<{
        company_id: string
        authority_id: string
        main_cpv: string
        value_ron: number | null
      }>`
        SELECT c.id AS company_id, a.authority_id, a.main_cpv,
               coalesce(a.estimated_value_ron, a.estimated_value_eur * 4.97)::float8 AS value_ron
        FROM companies c
        JOIN tenders a ON a.notice_type = 'award' AND a.winner_fiscal_codes @> ARRAY[c.fiscal_code]::text[]
        WHERE c.id = ANY(${companyIds}::uuid[]) AND c.fiscal_code IS NOT NULL
        ORDER BY a.ingest_seq`
      const watchlistsOf = new Map<string, Array<WatchlistInput>>()
      for (const w of watchlists) {
        const list = watchlistsOf.get(w.company_id) ?? []
        list.push({
          id: w.id,
          cpvCodes: w.cpv_codes.map((code) => code.trim()),
          keywords: w.keywords,
          minValue: w.min_value,
          maxValue: w.max_value,
          authorityId: w.authority_id,
          minScore: w.min_score
        })
        watchlistsOf.set(w.company_id, list)
      }
      const historyOf = new Map<string, Array<AwardInput>>()
      for (const a of awards) {
        const list = historyOf.get(a.company_id) ?? []
        list.push({ authorityId: a.authority_id, mainCpv: a.main_cpv.trim(), valueRon: a.value_ron })
        historyOf.set(a.company_id, list)
      }
      for (const c of companies) {
        const input: CompanyInput = {
          id: c.id,
          description: c.description,
          watchlists: watchlistsOf.get(c.id) ?? [],
          history: historyOf.get(c.id) ?? []
        }
        result.set(c.id, { tenantId: c.tenant_id, prepared: prepareCompany(input) })
      }
      return result
    })

  /**
   * Scores the given pairs and writes them in one transaction: score upserts, removal of pairs of
   * these tenders that are no longer candidates, and for new tenders their alerts and events.
   */
  const scoreAndWrite = (
    pairs: ReadonlyArray<{ readonly tender: LoadedTender; readonly company: LoadedCompany }>,
    stats: CorpusStats,
    isNew: ReadonlySet<string>,
    staleScope: { readonly tenderIds: ReadonlyArray<string> } | { readonly companyId: string; readonly now: Date }
  ) =>
    Effect.gen(function* () {
      const scoredAt = new Date(yield* Clock.currentTimeMillis)
      // Column arrays for one INSERT … unnest: numbers travel as numeric arrays, not JSON text.
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
        events.tenant.push(company.tenantId)
        events.company.push(companyId)
        events.tender.push(tender.row.id)
        events.payload.push(
          JSON.stringify(matchedEventPayload(companyId, tender.row, score.overallScore, score.verdict, scoredAt))
        )
      }

      const computedAt = yield* Clock.currentTimeMillis
      const written = yield* sql.withTransaction(
        Effect.gen(function* () {
          // Earlier scores in scope are replaced, so pairs that stopped being candidates disappear
          // and a list never shows a score computed from an outdated profile or tender.
          if ("tenderIds" in staleScope) {
            if (staleScope.tenderIds.length > 0) {
              yield* sql`DELETE FROM tender_scores WHERE tender_id = ANY(${staleScope.tenderIds}::uuid[])`
            }
          } else {
            yield* sql`
              DELETE FROM tender_scores s USING tenders t
              WHERE s.company_id = ${staleScope.companyId} AND t.id = s.tender_id
                AND (t.deadline IS NULL OR t.deadline > ${staleScope.now.toISOString()}::timestamptz)`
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
            const inserted = yield* sql`
              INSERT INTO match_events (tenant_id, company_id, tender_id, payload)
              SELECT t, c, d, p::jsonb FROM unnest(${events.tenant}::uuid[], ${events.company}::uuid[],
                                                   ${events.tender}::uuid[], ${events.payload}::text[]) AS e(t, c, d, p)
              ON CONFLICT (company_id, tender_id) DO NOTHING
              RETURNING 1`
            eventCount = inserted.length
          }
          return { scored: scores.company.length, alerts: alertCount, events: eventCount }
        })
      )
      yield* Effect.logDebug(
        `scoring: ${pairs.length} pairs computed in ${computedAt - scoredAt.getTime()} ms, written in ${(yield* Clock.currentTimeMillis) - computedAt} ms`
      )
      return written
    })

  const scoreBatch = (
    tenderIds: ReadonlyArray<string>,
    isNew: ReadonlySet<string>,
    stats: CorpusStats,
    companyCache: Map<string, LoadedCompany | null>
  ) =>
    Effect.gen(function* () {
      const startedAt = yield* Clock.currentTimeMillis
      const tenders = yield* loadTenders(tenderIds)
      if (tenders.length === 0) return { scored: 0, alerts: 0, events: 0 }
      const cpv = yield* neighbourhood
      const candidates = yield* candidatePairs(tenders, cpv)
      const missing = [...new Set(candidates.map((c) => c.companyId))].filter((id) => !companyCache.has(id))
      const loaded = yield* loadCompanies(missing)
      for (const id of missing) companyCache.set(id, loaded.get(id) ?? null)
      const pairs: Array<{ tender: LoadedTender; company: LoadedCompany }> = []
      for (const { tender, companyId } of candidates) {
        const company = companyCache.get(companyId)
        if (company != null && isCandidate(company.prepared, tender.prepared)) pairs.push({ tender, company })
      }
      yield* Effect.logDebug(
        `scoring: prefilter of ${tenders.length} tenders found ${pairs.length} pairs in ${(yield* Clock.currentTimeMillis) - startedAt} ms`
      )
      const rescored = tenders.map((t) => t.row.id).filter((id) => !isNew.has(id))
      return yield* scoreAndWrite(pairs, stats, isNew, { tenderIds: rescored })
    })

  const scoreTenders = (tenderIds: ReadonlyArray<string>, options: { readonly isNew: ReadonlyArray<string> }) =>
    Effect.gen(function* () {
      const stats = yield* corpus.current
      const isNew = new Set(options.isNew)
      // Profiles are loaded once per call and shared by its batches.
      const companyCache = new Map<string, LoadedCompany | null>()
      const total = { scored: 0, alerts: 0, events: 0 }
      // Two batches in flight: one is scored in this process while PostgreSQL writes the other.
      yield* Effect.forEach(
        chunksOf([...new Set(tenderIds)], SCORING_BATCH_SIZE),
        (batch) =>
          Effect.map(scoreBatch(batch, isNew, stats, companyCache), (result) => {
            total.scored += result.scored
            total.alerts += result.alerts
            total.events += result.events
          }),
        { concurrency: 2, discard: true }
      )
      return total
    }).pipe(Effect.orDie, Effect.withSpan("ScoringService.scoreTenders"))

  /**
   * Rescores one company against every open contract tender (deadline in the future or none),
   * page by page; tenders that are no longer candidates lose their score. Never alerts. Its cost
   * grows with the open tenders, which is what one company's profile change can affect.
   */
  const rescoreCompany = (companyId: string) =>
    Effect.gen(function* () {
      const stats = yield* corpus.current
      const now = new Date(yield* Clock.currentTimeMillis)
      const company = (yield* loadCompanies([companyId])).get(companyId)
      if (company === undefined) {
        yield* sql`DELETE FROM tender_scores s USING tenders t
                   WHERE s.company_id = ${companyId} AND t.id = s.tender_id
                     AND (t.deadline IS NULL OR t.deadline > ${now.toISOString()}::timestamptz)`
        return { scored: 0 }
      }
      const pairs: Array<{ tender: LoadedTender; company: LoadedCompany }> = []
      let afterSeq = "0"
      while (true) {
        const rows = yield* sql<TenderRow>`
          SELECT ${TENDER_COLUMNS} FROM tenders t
          WHERE t.notice_type = 'contract' AND (t.deadline IS NULL OR t.deadline > ${now.toISOString()}::timestamptz)
            AND t.ingest_seq > ${afterSeq}::bigint
          ORDER BY t.ingest_seq LIMIT 2000`
        if (rows.length === 0) break
        afterSeq = rows[rows.length - 1]!.ingest_seq
        for (const row of rows) {
          const tender = toLoadedTender(row)
          if (isCandidate(company.prepared, tender.prepared)) pairs.push({ tender, company })
        }
      }
      const result = yield* scoreAndWrite(pairs, stats, new Set(), { companyId, now })
      return { scored: result.scored }
    }).pipe(Effect.orDie, Effect.withSpan("ScoringService.rescoreCompany"))

  return ScoringService.of({ scoreTenders, rescoreCompany })
})

export const ScoringServiceLive = Layer.effect(ScoringService, makeScoringService)

/**
 * Backfill after a model change: rescores every tender that has scores from another model version,
 * in batches, without alerts or events. Returns the number of pairs rescored.
 */
export const backfillModelVersion: Effect.Effect<number, SqlError.SqlError, ScoringService | SqlClient.SqlClient> =
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const scoring = yield* ScoringService
    let total = 0
    while (true) {
      const rows = yield* sql<{ tender_id: string }>`
        SELECT DISTINCT tender_id FROM tender_scores WHERE model_version <> ${MODEL_VERSION} LIMIT 1000`
      if (rows.length === 0) return total
      const result = yield* scoring.scoreTenders(
        rows.map((r) => r.tender_id),
        { isNew: [] }
      )
      total += result.scored
      // Whatever scoring did not rewrite (e.g. a tender now an award notice) is no longer valid.
      yield* sql`DELETE FROM tender_scores
                 WHERE tender_id = ANY(${rows.map((r) => r.tender_id)}::uuid[]) AND model_version <> ${MODEL_VERSION}`
    }
  })
