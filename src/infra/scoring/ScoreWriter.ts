import { SqlClient, type SqlError } from "@effect/sql"
import { Clock, Context, Effect } from "effect"
import type { CpvAffinity } from "../../domain/scoring/CpvAffinity.js"
import { type TenderMatch, tenderMatchedPayload } from "../../domain/scoring/MatchEvent.js"
import { alertingWatchlists, isCandidate } from "../../domain/scoring/Matching.js"
import { MODEL_VERSION, scorePair } from "../../domain/scoring/Model.js"
import { SCORE_FLOOR } from "../../domain/scoring/ScoreFloor.js"
import type { CorpusStats } from "../../domain/scoring/Semantic.js"
import { type Verdict, verdictRose } from "../../domain/scoring/Verdict.js"
import { arrayLiteral } from "../db/ArrayLiteral.js"
import { Metrics } from "../metrics/Metrics.js"
import { JobQueue } from "../queue/JobQueue.js"
import { MatchSink } from "./MatchSink.js"
import { queueRescores, ScoreTenders } from "./ScoringJobKinds.js"
import { type LoadedCompany, type LoadedTender, makeScoringReads } from "./ScoringReads.js"

/** The floor the writer applies: SCORE_FLOOR, unless a test provides another to pin a pair at it. */
export class StoredScoreFloor extends Context.Reference<StoredScoreFloor>()("StoredScoreFloor", {
  defaultValue: () => SCORE_FLOOR
}) {}

/** A tender and a company it is to be scored for (a candidate by the domain rule). */
export interface ScoringPair {
  readonly tender: LoadedTender
  readonly company: LoadedCompany
}

/**
 * The earlier scores a write replaces: those of the given tenders (a tender batch), or those of a
 * company on the tenders its rescore read (the basis's tenders) that are still open at `now` (a
 * company rescore).
 */
export type StaleScope =
  | { readonly tenderIds: ReadonlyArray<string> }
  | { readonly companyId: string; readonly now: Date }

/** A tender as a write read it: its id and row version (TenderRow.version). */
export interface TenderVersion {
  readonly id: string
  readonly version: string
}

/**
 * What a write was computed from, besides its pairs: every tender in its scope as read, and the
 * revision each company had when the call began (for those whose rows it removes without scoring
 * them). A company or tender that changed since, and whose own rescore may already have written,
 * is queued for scoring again in the write's transaction (see `requeueChanged`).
 */
export interface ScoringBasis {
  readonly tenders: ReadonlyArray<TenderVersion>
  /** Undefined for a company the call did not know: it is rescored whenever the write touched it. */
  readonly revisionAtStart: (companyId: string) => string | undefined
}

/** Which scored pairs may raise alerts and events. */
interface AlertRule {
  readonly mayAlert: (tenderId: string, companyId: string, verdict: Verdict) => boolean
  /** Whether any pair of the tender may alert, whatever its verdict (a new or changed tender). */
  readonly mayEverAlert: (tenderId: string) => boolean
}

/** (company, tender) pairs as two parallel id arrays. */
interface PairKeys {
  readonly company: ReadonlyArray<string>
  readonly tender: ReadonlyArray<string>
}

/** How the score rows are written: a plain INSERT (pairs with no row yet) or an upsert. */
type InsertMode = "insert" | "upsert"

/** The INSERT of `insert` mode met an existing row of the pair (SQLSTATE 23505 on a tender_scores key). */
const isScoreKeyConflict = (error: SqlError.SqlError) => {
  const cause = error.cause as { readonly code?: unknown; readonly table?: unknown } | undefined
  return cause?.code === "23505" && typeof cause.table === "string" && cause.table.startsWith("tender_scores")
}

/**
 * The score rows as column arrays for one INSERT … unnest (numbers travel as numeric arrays, not
 * JSON text). What is the tender's (its id, publication date and ingest sequence) travels once per
 * tender, and each row names its tender by position; factor scores (four decimals) and the
 * confidence (two) travel as integers: parsing ~70,000 rows' uuids, timestamps and floats was a
 * large part of binding a batch.
 */
const emptyScoreColumns = () => ({
  company: [] as Array<string>,
  /** The row's tender id (for the writer's own checks; the INSERT sends `tenderSlot`). */
  tender: [] as Array<string>,
  /** 1-based position of the row's tender in `tenders`. */
  tenderSlot: [] as Array<number>,
  overall: [] as Array<number>,
  /** Hundredths. */
  confidence: [] as Array<number>,
  verdict: [] as Array<string>,
  /** Ten-thousandths, as the five factor scores below. */
  semantic: [] as Array<number>,
  keyword: [] as Array<number>,
  cpv: [] as Array<number>,
  valueFit: [] as Array<number>,
  historical: [] as Array<number>,
  cpvType: [] as Array<string>,
  tenders: { id: [] as Array<string>, publishDate: [] as Array<string>, ingestSeq: [] as Array<string> },
  slotOf: new Map<LoadedTender, number>()
})
type ScoreColumns = ReturnType<typeof emptyScoreColumns>

/** Four decimals as an integer: exact, as the scorer rounds factor scores to four decimals. */
const tenThousandths = (value: number) => Math.round(value * 10_000)

const pushScore = (
  scores: ScoreColumns,
  companyId: string,
  tender: LoadedTender,
  score: ReturnType<typeof scorePair>
) => {
  let slot = scores.slotOf.get(tender)
  if (slot === undefined) {
    slot = scores.tenders.id.push(tender.row.id)
    scores.tenders.publishDate.push(tender.row.publish_date.toISOString())
    scores.tenders.ingestSeq.push(tender.row.ingest_seq)
    scores.slotOf.set(tender, slot)
  }
  scores.company.push(companyId)
  scores.tender.push(tender.row.id)
  scores.tenderSlot.push(slot)
  scores.overall.push(score.overallScore)
  scores.confidence.push(Math.round(score.overallConfidence * 100))
  scores.verdict.push(score.verdict)
  scores.semantic.push(tenThousandths(score.factors.semantic.score))
  scores.keyword.push(tenThousandths(score.factors.keyword.score))
  scores.cpv.push(tenThousandths(score.factors.cpv.score))
  scores.valueFit.push(tenThousandths(score.factors.value_fit.score))
  scores.historical.push(tenThousandths(score.factors.historical.score))
  scores.cpvType.push(score.factors.cpv.cpv_type)
}

/** The tender can still be bid on at `at`: not cancelled, and a deadline after it or none. */
const isOpenAt = (tender: LoadedTender, at: Date) =>
  !tender.row.cancelled && (tender.row.deadline === null || tender.row.deadline > at)

/**
 * The match of a scored pair: the company's watchlists the score reaches and whose filters pass, with
 * its tender.matched event; none when no watchlist does.
 */
const matchOf = (
  company: LoadedCompany,
  tender: LoadedTender,
  score: ReturnType<typeof scorePair>,
  scoredAt: Date
): TenderMatch | undefined => {
  const watchlists = alertingWatchlists(company.prepared, tender.prepared, score)
  if (watchlists.length === 0) return undefined
  const companyId = company.prepared.company.id
  const matched = {
    id: tender.row.id,
    title: tender.row.title,
    cpvCodes: [tender.prepared.tender.mainCpv, ...tender.prepared.tender.additionalCpvs],
    deadline: tender.row.deadline,
    estimatedValueRon: tender.row.value_ron,
    sourceUrl: tender.row.source_url
  }
  return {
    tenantId: company.tenantId,
    companyId,
    tenderId: tender.row.id,
    watchlistIds: watchlists.map(({ watchlist }) => watchlist.id),
    score: score.overallScore,
    verdict: score.verdict,
    event: tenderMatchedPayload(companyId, matched, score, scoredAt)
  }
}

/**
 * The score rows to store (those at or above the floor), and the matches: new tenders, still open,
 * that reached a watchlist of their company.
 */
const rowsOf = (
  pairs: ReadonlyArray<ScoringPair>,
  stats: CorpusStats,
  affinity: CpvAffinity,
  alerting: AlertRule,
  scoredAt: Date,
  floor: number
) => {
  const scores = emptyScoreColumns()
  const matches: Array<TenderMatch> = []

  for (const { tender, company } of pairs) {
    const score = scorePair(company.prepared, tender.prepared, stats, affinity)
    const companyId = company.prepared.company.id
    // Below the floor the pair is not stored; left out of `scores`, an earlier row of it in the
    // stale scope is removed like that of a pair that stopped being a candidate.
    if (score.overallScore >= floor) pushScore(scores, companyId, tender, score)
    // A tender that can no longer be bid on (an old notice imported late) is stored, never alerted.
    if (!isOpenAt(tender, scoredAt) || !alerting.mayAlert(tender.row.id, companyId, score.verdict)) continue
    const match = matchOf(company, tender, score, scoredAt)
    if (match !== undefined) matches.push(match)
  }
  return { scores, matches }
}

/**
 * Writes scores and removes the scores they replace; hands the matches of new tenders to the
 * MatchSink (alerts, tender.matched events) in the same transaction. `tender_scores` is written
 * from here only.
 */
export const makeScoreWriter = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const sink = yield* MatchSink
  const jobs = yield* JobQueue
  const reads = yield* makeScoringReads

  /**
   * Removes a company's scores on the tenders its rescore read that are still open at `now`, except
   * the pairs in `keep`, which the caller rewrites in place. Only the tenders read: one closed when
   * the rescore read and reopened since (an erratum) was not scored by it, and may already carry the
   * score its own job gave it.
   */
  const removeOpenScoresOf = (companyId: string, now: Date, read: ReadonlyArray<TenderVersion>, keep: PairKeys) =>
    sql`
      DELETE FROM tender_scores s USING tenders t, unnest(${arrayLiteral(read.map((tender) => tender.id))}::uuid[]) AS r(id)
      WHERE s.company_id = ${companyId} AND t.id = s.tender_id AND r.id = s.tender_id
        AND (t.deadline IS NULL OR t.deadline > ${now.toISOString()}::timestamptz) AND t.cancelled_at IS NULL
        AND ${notIn(keep)}`

  /** `s` (a tender_scores row) is none of the pairs in `keep`. */
  const notIn = (keep: PairKeys) =>
    keep.company.length === 0
      ? sql`true`
      : sql`NOT EXISTS (SELECT 1 FROM unnest(${arrayLiteral(keep.company)}::uuid[], ${arrayLiteral(keep.tender)}::uuid[]) AS k(company_id, tender_id)
                        WHERE k.company_id = s.company_id AND k.tender_id = s.tender_id)`

  /**
   * Removes the rows of the tenders written whose publish date is no longer the tender's (a change
   * notice moved it): the publish date is part of the partitioned key (migration 0024), so the upsert
   * would add a second row of the pair in another month instead of updating it. The rows go as
   * removed versions, so a cursor of before keeps them and the rewritten pair appears once. The
   * tenders table's date is compared too, so a row written from a stale read is healed by the next
   * write of the tender. A deactivated company's rows are not rewritten (its scores stay as they were
   * until it is reactivated): they are moved to the tender's date instead, as removed versions and
   * rows written anew like the others. A tender batch looks at every tender it rescored, also one
   * with no row written (its date as written is then unknown: NULL).
   */
  const removeMovedScores = (
    scores: ScoreColumns,
    scope: { readonly companyId: string } | { readonly tenderIds: ReadonlyArray<string> }
  ) => {
    const dates = new Map<string, string | null>()
    if ("tenderIds" in scope) for (const tenderId of scope.tenderIds) dates.set(tenderId, null)
    scores.tenders.id.forEach((tenderId, i) => {
      if ("companyId" in scope || dates.has(tenderId)) dates.set(tenderId, scores.tenders.publishDate[i]!)
    })
    if (dates.size === 0) return Effect.void
    const companyId = "companyId" in scope ? scope.companyId : undefined
    return sql`
      WITH moved AS (
        DELETE FROM tender_scores s
        USING unnest(${arrayLiteral([...dates.keys()])}::uuid[], ${arrayLiteral([...dates.values()].map((date) => date ?? "NULL"))}::timestamptz[])
                AS k(tender_id, publish_date), tenders t, companies c
        WHERE s.tender_id = k.tender_id AND t.id = k.tender_id AND c.id = s.company_id
          AND ${companyId === undefined ? sql`true` : sql`s.company_id = ${companyId}`}
          AND (s.tender_publish_date <> t.publish_date OR (c.active AND s.tender_publish_date <> k.publish_date))
        RETURNING s.*, c.active, t.publish_date AS moved_to)
      INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, model_version,
                                 scored_at, tender_publish_date, tender_ingest_seq, score_semantic, score_keyword,
                                 score_cpv, score_value_fit, score_historical, cpv_type)
      SELECT company_id, tender_id, overall_score, overall_confidence, verdict, model_version, scored_at, moved_to,
             tender_ingest_seq, score_semantic, score_keyword, score_cpv, score_value_fit, score_historical, cpv_type
      FROM moved WHERE NOT active
      ON CONFLICT DO NOTHING`
  }

  /**
   * Writes the score rows: `upsert` updates a pair's row in place; `insert` is for pairs that have
   * none (new tenders), and fails on the key if one exists after all.
   */
  const insertScores = (scores: ScoreColumns, scoredAt: Date, mode: InsertMode) =>
    sql`
      INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict,
                                 score_semantic, score_keyword, score_cpv, score_value_fit, score_historical,
                                 cpv_type, model_version, scored_at, tender_publish_date, tender_ingest_seq)
      -- Integers back to the reals the scorer computed: float4 division is correctly rounded, so
      -- 8234 / 10000 is the same real as the text 0.8234 was.
      SELECT s.company_id, t.id, s.overall_score, s.confidence::real / 100::real, s.verdict,
             s.semantic::real / 10000::real, s.keyword::real / 10000::real, s.cpv::real / 10000::real,
             s.value_fit::real / 10000::real, s.historical::real / 10000::real, s.cpv_type, ${MODEL_VERSION},
             ${scoredAt.toISOString()}::timestamptz, t.publish_date, t.ingest_seq
      FROM unnest(${arrayLiteral(scores.company)}::uuid[], ${arrayLiteral(scores.tenderSlot)}::int[],
                  ${arrayLiteral(scores.overall)}::smallint[], ${arrayLiteral(scores.confidence)}::smallint[],
                  ${arrayLiteral(scores.verdict)}::text[], ${arrayLiteral(scores.semantic)}::smallint[],
                  ${arrayLiteral(scores.keyword)}::smallint[], ${arrayLiteral(scores.cpv)}::smallint[],
                  ${arrayLiteral(scores.valueFit)}::smallint[], ${arrayLiteral(scores.historical)}::smallint[],
                  ${arrayLiteral(scores.cpvType)}::text[])
        AS s(company_id, tender_slot, overall_score, confidence, verdict, semantic, keyword, cpv,
             value_fit, historical, cpv_type)
      JOIN unnest(${arrayLiteral(scores.tenders.id)}::uuid[], ${arrayLiteral(scores.tenders.publishDate)}::timestamptz[],
                  ${arrayLiteral(scores.tenders.ingestSeq)}::bigint[]) WITH ORDINALITY
        AS t(id, publish_date, ingest_seq, slot) ON t.slot = s.tender_slot
      ORDER BY s.company_id, t.id
      ${
        mode === "insert"
          ? sql``
          : sql`ON CONFLICT (tender_id, company_id, tender_publish_date) DO UPDATE SET
        overall_score = EXCLUDED.overall_score, overall_confidence = EXCLUDED.overall_confidence,
        verdict = EXCLUDED.verdict, score_semantic = EXCLUDED.score_semantic,
        score_keyword = EXCLUDED.score_keyword, score_cpv = EXCLUDED.score_cpv,
        score_value_fit = EXCLUDED.score_value_fit, score_historical = EXCLUDED.score_historical,
        cpv_type = EXCLUDED.cpv_type, model_version = EXCLUDED.model_version,
        scored_at = EXCLUDED.scored_at, tender_ingest_seq = EXCLUDED.tender_ingest_seq`
      }`

  /**
   * Removes the rows of these tenders that are none of the pairs in `keep` (the tender batch's stale
   * scope), of active companies only: a deactivated company is not scored, and its scores stay as
   * they were until it is reactivated. Returns the companies whose rows it removed.
   */
  const removeStaleScoresOf = (tenderIds: ReadonlyArray<string>, keep: PairKeys) =>
    sql<{ company_id: string }>`
      WITH removed AS (
        DELETE FROM tender_scores s WHERE s.tender_id = ANY(${tenderIds}::uuid[]) AND ${notIn(keep)}
          AND EXISTS (SELECT 1 FROM companies c WHERE c.id = s.company_id AND c.active)
        RETURNING s.company_id)
      SELECT DISTINCT company_id FROM removed`.pipe(Effect.map((rows) => rows.map((row) => row.company_id)))

  /**
   * The companies the write scored or removed rows of whose profile revision is no longer the one it
   * used: changed since (a description, a watchlist edited, deleted or moved), or deactivated.
   */
  const companiesChangedSince = (revisions: ReadonlyMap<string, string | undefined>) => {
    const companyIds = [...revisions.keys()]
    return companyIds.length === 0
      ? Effect.succeed([])
      : sql<{ id: string; active: boolean }>`
          SELECT u.id, c.active FROM unnest(${arrayLiteral(companyIds)}::uuid[],
                                            ${arrayLiteral(companyIds.map((id) => revisions.get(id) ?? "-1"))}::bigint[]) AS u(id, rev)
          JOIN companies c ON c.id = u.id
          WHERE c.profile_rev <> u.rev`
  }

  /**
   * The matches to record. Those of companies whose profile the write computed from is still current
   * pass. A changed company's pairs that may alert (new or changed tenders, still open) are matched
   * again from its profile of now, as a job started after the change would: a watchlist deleted,
   * moved to another company or edited (codes, keywords, value range, min_score, counties) while the job
   * computed alerts by what it says now, and a deactivated company raises nothing. Dropping them
   * instead would lose alerts the company still wants: the rescore the change queued never alerts.
   * Nothing is locked (a share lock in every batch cost ~10% of the scoring bench): a change committed
   * during the write itself, about a second, may still see one alert of it.
   */
  const currentMatches = (
    written: { readonly pairs: ReadonlyArray<ScoringPair>; readonly matches: ReadonlyArray<TenderMatch> },
    changed: ReadonlyArray<{ readonly id: string }>,
    rescoring: { readonly stats: CorpusStats; readonly affinity: CpvAffinity },
    alerting: AlertRule,
    scoredAt: Date
  ) =>
    Effect.gen(function* () {
      const changedIds = new Set(changed.map(({ id }) => id))
      const unchanged = written.matches.filter((match) => !changedIds.has(match.companyId))
      const recheck = written.pairs.filter(
        ({ tender, company }) =>
          changedIds.has(company.prepared.company.id) &&
          isOpenAt(tender, scoredAt) &&
          alerting.mayEverAlert(tender.row.id)
      )
      if (recheck.length === 0) return unchanged
      const { stats, affinity } = rescoring
      const profiles = yield* reads.companyProfiles([
        ...new Set(recheck.map(({ company }) => company.prepared.company.id))
      ])
      const rechecked = recheck.flatMap(({ tender, company }) => {
        const now = profiles.get(company.prepared.company.id)
        if (now === undefined || !isCandidate(now.prepared, tender.prepared, stats, affinity)) return []
        const score = scorePair(now.prepared, tender.prepared, stats, affinity)
        if (!alerting.mayAlert(tender.row.id, now.prepared.company.id, score.verdict)) return []
        return matchOf(now, tender, score, scoredAt) ?? []
      })
      return [...unchanged, ...rechecked]
    })

  /**
   * The last step of a write: the changed companies (`companiesChangedSince`) still active, and the
   * tenders of its scope changed since it read them, are queued for scoring again. Their own rescore
   * (queued by the change) may have run and committed while this write computed from the older
   * profile or tender, and would then be overwritten by it; the queued job comes after this commit
   * and writes from what is current. (A change that commits after this check queues a rescore that
   * reads after this write, or waits on its rows.)
   */
  const requeueChanged = (
    changed: ReadonlyArray<{ readonly id: string; readonly active: boolean }>,
    tenders: ReadonlyArray<TenderVersion>
  ) =>
    Effect.gen(function* () {
      const changedTenders =
        tenders.length === 0
          ? []
          : yield* sql<{ id: string }>`
              SELECT u.id FROM unnest(${arrayLiteral(tenders.map((t) => t.id))}::uuid[],
                                      ${arrayLiteral(tenders.map((t) => t.version))}::text[]) AS u(id, version)
              JOIN tenders t ON t.id = u.id
              WHERE t.xmin::text <> u.version`
      // One statement per company (rarely more than one): a rescore of it still queued stands for this one.
      yield* queueRescores(
        jobs,
        changed.filter((company) => company.active).map(({ id }) => id)
      )
      if (changedTenders.length > 0) {
        yield* jobs.enqueue(ScoreTenders, { tenderIds: changedTenders.map(({ id }) => id), isNew: [] })
      }
    })

  /** The verdicts these tenders have now, per (company, tender). */
  const verdictsOf = (tenderIds: ReadonlyArray<string>) =>
    sql<{ company_id: string; tender_id: string; verdict: Verdict }>`
      SELECT company_id, tender_id, verdict FROM tender_scores WHERE tender_id = ANY(${tenderIds}::uuid[])`.pipe(
      Effect.map((rows) => new Map(rows.map((row) => [`${row.company_id}\u0000${row.tender_id}`, row.verdict])))
    )

  /** Removes the scores of these tenders that are still from another model version. */
  const removeOutdatedScores = (tenderIds: ReadonlyArray<string>) =>
    sql`DELETE FROM tender_scores
        WHERE tender_id = ANY(${tenderIds}::uuid[]) AND model_version <> ${MODEL_VERSION}`

  /**
   * Scores the given pairs and writes them in one transaction: score upserts, removal of the
   * earlier scores in `staleScope` (so pairs that are no longer candidates disappear), and the
   * matches of new tenders (their alerts and events), and the first-scored time of the `arrived`
   * ones. A `changed` tender (a change notice updated it) alerts only for the pairs whose verdict rose
   * above the one they had.
   */
  const scoreAndWrite = (
    pairs: ReadonlyArray<ScoringPair>,
    stats: CorpusStats,
    affinity: CpvAffinity,
    isNew: ReadonlySet<string>,
    staleScope: StaleScope,
    basis: ScoringBasis,
    changed: ReadonlySet<string> = new Set(),
    /** The batch's new tenders (whether or not a pair of theirs is stored): scored for the first time. */
    arrived: ReadonlyArray<string> = []
  ) =>
    Effect.gen(function* () {
      ;(yield* Metrics).scoringPairs.inc(pairs.length)
      const scoredAt = new Date(yield* Clock.currentTimeMillis)
      const before = changed.size === 0 ? new Map<string, Verdict>() : yield* verdictsOf([...changed])
      const alerting: AlertRule = {
        mayAlert: (tenderId, companyId, verdict) =>
          isNew.has(tenderId) ||
          (changed.has(tenderId) && verdictRose(before.get(`${companyId}\u0000${tenderId}`), verdict)),
        mayEverAlert: (tenderId) => isNew.has(tenderId) || changed.has(tenderId)
      }
      const { scores, matches } = rowsOf(pairs, stats, affinity, alerting, scoredAt, yield* StoredScoreFloor)
      const computedAt = yield* Clock.currentTimeMillis
      // A batch of new tenders has no score rows yet: a plain INSERT skips the upsert's speculative
      // insertion (~11% of the insert, measured). If a row exists after all (the job ran before and
      // its acknowledgement was lost, or a company rescore wrote the pair meanwhile), the key
      // refuses the INSERT and the whole write runs again as an upsert.
      const allNew = scores.tender.every((tenderId) => isNew.has(tenderId))
      const write = (mode: InsertMode) =>
        sql.withTransaction(
          Effect.gen(function* () {
            // Earlier scores in scope that are not rewritten below are removed, so pairs that stopped
            // being candidates disappear and a list never shows a score computed from an outdated
            // profile or tender. Rewritten pairs are updated in place (the upsert), not deleted and
            // re-inserted: a cursor's snapshot then keeps their earlier version (migration 0012). The
            // profile revision behind each company's rows written or removed here goes to requeueChanged.
            const revisions = new Map<string, string | undefined>()
            for (const { company } of pairs) revisions.set(company.prepared.company.id, company.revision)
            if ("tenderIds" in staleScope) {
              if (staleScope.tenderIds.length > 0) {
                for (const companyId of yield* removeStaleScoresOf(staleScope.tenderIds, scores)) {
                  if (!revisions.has(companyId)) revisions.set(companyId, basis.revisionAtStart(companyId))
                }
              }
            } else {
              yield* removeOpenScoresOf(staleScope.companyId, staleScope.now, basis.tenders, scores)
              if (!revisions.has(staleScope.companyId)) {
                revisions.set(staleScope.companyId, basis.revisionAtStart(staleScope.companyId))
              }
            }
            // New tenders have no rows yet: only the rescored ones can have moved.
            if ("tenderIds" in staleScope) yield* removeMovedScores(scores, { tenderIds: staleScope.tenderIds })
            if (scores.company.length > 0) {
              if ("companyId" in staleScope) yield* removeMovedScores(scores, { companyId: staleScope.companyId })
              yield* insertScores(scores, scoredAt, mode)
            }
            // New tenders' first scoring: the digest's "new" counts from here (migration 0034).
            if (arrived.length > 0) {
              yield* sql`INSERT INTO tender_first_scores (tender_id, scored_at)
                         SELECT id, ${scoredAt} FROM unnest(${arrived}::uuid[]) AS id ON CONFLICT DO NOTHING`
            }
            const changed = yield* companiesChangedSince(revisions)
            const { alerts, events } = yield* sink.record(
              yield* currentMatches({ pairs, matches }, changed, { stats, affinity }, alerting, scoredAt)
            )
            yield* requeueChanged(changed, basis.tenders)
            return { scored: scores.company.length, alerts, events }
          })
        )
      const written = yield* allNew
        ? write("insert").pipe(Effect.catchIf(isScoreKeyConflict, () => write("upsert")))
        : write("upsert")
      yield* Effect.logDebug(
        `scoring: ${pairs.length} pairs computed in ${computedAt - scoredAt.getTime()} ms, written in ${(yield* Clock.currentTimeMillis) - computedAt} ms`
      )
      return written
    })

  return { scoreAndWrite, removeOutdatedScores }
})

export type ScoreWriter = Effect.Effect.Success<typeof makeScoreWriter>
