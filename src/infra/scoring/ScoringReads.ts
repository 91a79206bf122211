import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { EUR_RON } from "../../domain/Currency.js"
import { type CpvAffinity, NO_AFFINITY } from "../../domain/scoring/CpvAffinity.js"
import type { FeedbackMark } from "../../domain/scoring/Feedback.js"
import {
  type AwardInput,
  type PreparedCompany,
  type PreparedTender,
  prepareCompany,
  prepareTender,
  type WatchlistInput
} from "../../domain/scoring/Inputs.js"
import { MODEL_VERSION } from "../../domain/scoring/Model.js"
import { explainPair, type FactorReasons, type ReasonLanguage } from "../../domain/scoring/Reasons.js"
import type { CorpusStats } from "../../domain/scoring/Semantic.js"
import { canonicalCounty } from "../../domain/tenders/CountyDistance.js"

/** A contract tender as scoring reads it; values in RON (EUR converted at EUR_RON). */
export interface TenderRow {
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
  /** Romanian label of the main CPV code; "" when the table lacks it. */
  readonly cpv_label: string
  /** The authority's county as stored; null when unknown. */
  readonly county: string | null
  /** Whether a cancellation notice closed the procedure. */
  readonly cancelled: boolean
  /** The row's version as read (its `xmin`): any later change to the tender gives another. */
  readonly version: string
}

/** A tender row with its text prepared once for every company it is scored against. */
export interface LoadedTender {
  readonly row: TenderRow
  readonly prepared: PreparedTender
}

/** An active company's profile, prepared for scoring, and the tenant its alerts belong to. */
export interface LoadedCompany {
  readonly tenantId: string
  readonly prepared: PreparedCompany
  /** The company's `profile_rev` when the profile was read (migration 0020). */
  readonly revision: string
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
    valueRon: row.value_ron,
    cpvLabel: row.cpv_label,
    county: countyOf(row.county)
  })
})

/** A stored county in the scorer's spelling (imports store it so; a name that is no county is null). */
const countyOf = (stored: string | null): string | null => (stored === null ? null : canonicalCounty(stored))

/** What scoring reads from PostgreSQL: contract tenders and company profiles (watchlists, award history). */
export const makeScoringReads = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Measured hot path (`npm run bench -- scoring`, 1.4 M pairs): rows typed, not decoded.

  const TENDER_COLUMNS = sql`
    t.id, t.title, t.description, t.main_cpv, t.additional_cpvs::text[] AS additional_cpvs, t.authority_id,
    coalesce(t.estimated_value_ron, t.estimated_value_eur * ${EUR_RON}::numeric)::float8 AS value_ron,
    t.deadline, t.publish_date, t.ingest_seq::text AS ingest_seq, t.source_url,
    coalesce((SELECT c.label_ro FROM cpv_codes c WHERE c.code_full = t.main_cpv), '') AS cpv_label,
    (SELECT ca.county FROM contracting_authorities ca WHERE ca.id = t.authority_id) AS county,
    t.cancelled_at IS NOT NULL AS cancelled, t.xmin::text AS version`

  /** The contract notices among `ids`, in ingest order (award notices are never scored). */
  const contractTenders = (ids: ReadonlyArray<string>) =>
    sql<TenderRow>`
      SELECT ${TENDER_COLUMNS} FROM tenders t
      WHERE t.id = ANY(${ids}::uuid[]) AND t.notice_type = 'contract'
      ORDER BY t.ingest_seq`.pipe(Effect.map((rows) => rows.map(toLoadedTender)))

  /** One page (2000) of contract tenders still open at `now` (deadline later or none), after `afterSeq`. */
  const openContractTendersAfter = (now: Date, afterSeq: string) =>
    sql<TenderRow>`
      SELECT ${TENDER_COLUMNS} FROM tenders t
      WHERE t.notice_type = 'contract' AND (t.deadline IS NULL OR t.deadline > ${now.toISOString()}::timestamptz)
        AND t.cancelled_at IS NULL AND t.ingest_seq > ${afterSeq}::bigint
      ORDER BY t.ingest_seq LIMIT 2000`.pipe(Effect.map((rows) => rows.map(toLoadedTender)))

  /** Active, not deleted watchlists of the companies, by company, oldest first. */
  const watchlistsOf = (companyIds: ReadonlyArray<string>) =>
    sql<{
      id: string
      company_id: string
      cpv_codes: ReadonlyArray<string>
      keywords: ReadonlyArray<string>
      min_value: number | null
      max_value: number | null
      authority_id: string | null
      min_score: number
      counties: ReadonlyArray<string>
    }>`
      SELECT id, company_id, cpv_codes::text[] AS cpv_codes, keywords, min_value::float8 AS min_value,
             max_value::float8 AS max_value, authority_id, min_score, counties
      FROM watchlists
      WHERE company_id = ANY(${companyIds}::uuid[]) AND deleted_at IS NULL AND active
      ORDER BY created_at, id`.pipe(
      Effect.map((rows) => {
        const byCompany = new Map<string, Array<WatchlistInput>>()
        for (const w of rows) {
          const list = byCompany.get(w.company_id) ?? []
          list.push({
            id: w.id,
            cpvCodes: w.cpv_codes.map((code) => code.trim()),
            keywords: w.keywords,
            minValue: w.min_value,
            maxValue: w.max_value,
            authorityId: w.authority_id,
            minScore: w.min_score,
            counties: w.counties
          })
          byCompany.set(w.company_id, list)
        }
        return byCompany
      })
    )

  /** The award notices naming each company's fiscal code as a winner, by company, in ingest order. */
  const awardHistoryOf = (companyIds: ReadonlyArray<string>) =>
    sql<{
      company_id: string
      authority_id: string
      main_cpv: string
      value_ron: number | null
      title: string
      county: string | null
    }>`
      SELECT c.id AS company_id, a.authority_id, a.main_cpv, a.title, ca.county,
             coalesce(a.estimated_value_ron, a.estimated_value_eur * ${EUR_RON}::numeric)::float8 AS value_ron
      FROM companies c
      JOIN tenders a ON a.notice_type = 'award' AND a.winner_fiscal_codes @> ARRAY[c.fiscal_code]::text[]
      JOIN contracting_authorities ca ON ca.id = a.authority_id
      WHERE c.id = ANY(${companyIds}::uuid[]) AND c.fiscal_code IS NOT NULL
      ORDER BY a.ingest_seq`.pipe(
      Effect.map((rows) => {
        const byCompany = new Map<string, Array<AwardInput>>()
        for (const a of rows) {
          const list = byCompany.get(a.company_id) ?? []
          list.push({
            authorityId: a.authority_id,
            mainCpv: a.main_cpv.trim(),
            valueRon: a.value_ron,
            title: a.title,
            county: countyOf(a.county)
          })
          byCompany.set(a.company_id, list)
        }
        return byCompany
      })
    )

  /** The tenders users marked for each company (tender_feedback), by company: the profile's feedback. */
  const feedbackOf = (companyIds: ReadonlyArray<string>) =>
    sql<{ company_id: string; main_cpv: string; relevant: boolean }>`
      SELECT f.company_id, t.main_cpv, f.relevant
      FROM tender_feedback f JOIN tenders t ON t.id = f.tender_id
      WHERE f.company_id = ANY(${companyIds}::uuid[])
      ORDER BY f.tender_id`.pipe(
      Effect.map((rows) => {
        const byCompany = new Map<string, Array<FeedbackMark>>()
        for (const f of rows) {
          const list = byCompany.get(f.company_id) ?? []
          list.push({ mainCpv: f.main_cpv.trim(), relevant: f.relevant })
          byCompany.set(f.company_id, list)
        }
        return byCompany
      })
    )

  /**
   * Profiles (description, active watchlists, past awards, feedback) of the active companies among
   * `companyIds`. The company rows, with their revision, are read first: the watchlists, awards and
   * marks read after them are at least as new as that revision (CompanyProfileCache relies on it).
   */
  const companyProfiles = (companyIds: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const result = new Map<string, LoadedCompany>()
      if (companyIds.length === 0) return result
      const companies = yield* sql<{
        id: string
        tenant_id: string
        description: string
        fiscal_code: string | null
        counties: ReadonlyArray<string> | null
        profile_rev: string
      }>`
        SELECT id, tenant_id, description, fiscal_code, counties, profile_rev::text AS profile_rev
        FROM companies WHERE id = ANY(${companyIds}::uuid[]) AND active`
      const watchlists = yield* watchlistsOf(companyIds)
      const history = yield* awardHistoryOf(companyIds)
      const feedback = yield* feedbackOf(companyIds)
      for (const c of companies) {
        const prepared = prepareCompany({
          id: c.id,
          description: c.description,
          fiscalCode: c.fiscal_code,
          counties: c.counties,
          watchlists: watchlists.get(c.id) ?? [],
          history: history.get(c.id) ?? [],
          feedback: feedback.get(c.id) ?? []
        })
        result.set(c.id, { tenantId: c.tenant_id, prepared, revision: c.profile_rev })
      }
      return result
    })

  /** Up to 1000 tenders that still have scores from another model version than the current one. */
  const tendersScoredByOtherModels = sql<{ tender_id: string }>`
    SELECT DISTINCT tender_id FROM tender_scores WHERE model_version <> ${MODEL_VERSION} LIMIT 1000`.pipe(
    Effect.map((rows) => rows.map((r) => r.tender_id))
  )

  /** Active companies named as winners by the award notices among `ids`: their history just changed. */
  const winnersOfAwards = (ids: ReadonlyArray<string>) =>
    sql<{ id: string }>`
      SELECT DISTINCT c.id FROM tenders a
      JOIN companies c ON c.fiscal_code = ANY(a.winner_fiscal_codes) AND c.active
      WHERE a.id = ANY(${ids}::uuid[]) AND a.notice_type = 'award'`.pipe(Effect.map((rows) => rows.map((r) => r.id)))

  /**
   * The reason of each factor (domain/scoring/Reasons) for a company's scores on these tenders,
   * from its current profile: what the API's score breakdown and the browser app show. Tenders
   * that are not contract notices, and an inactive or unknown company, give no entry.
   */
  const reasonsFor = (
    companyId: string,
    tenderIds: ReadonlyArray<string>,
    stats: CorpusStats,
    language: ReasonLanguage,
    affinity: CpvAffinity = NO_AFFINITY
  ) =>
    Effect.gen(function* () {
      const result = new Map<string, FactorReasons>()
      const company = (yield* companyProfiles([companyId])).get(companyId)
      if (company === undefined || tenderIds.length === 0) return result
      for (const tender of yield* contractTenders(tenderIds)) {
        result.set(tender.row.id, explainPair(company.prepared, tender.prepared, stats, language, affinity))
      }
      return result
    })

  return {
    contractTenders,
    openContractTendersAfter,
    companyProfiles,
    tendersScoredByOtherModels,
    winnersOfAwards,
    reasonsFor
  }
})

export type ScoringReads = Effect.Effect.Success<typeof makeScoringReads>
