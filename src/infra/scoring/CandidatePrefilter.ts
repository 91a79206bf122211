import { SqlClient, type SqlError } from "@effect/sql"
import { Effect } from "effect"
import { AFFINITY_CANDIDATE_STRENGTH, type CpvAffinity } from "../../domain/scoring/CpvAffinity.js"
import { significantDigits, tenderCpvKeys } from "../../domain/scoring/CpvMatch.js"
import { type CorpusStats, isSpecific } from "../../domain/scoring/Semantic.js"
import { indexKey } from "../../domain/scoring/Text.js"
import { loadCpvDivisions } from "./CpvDivisions.js"
import type { LoadedTender } from "./ScoringReads.js"

/** The candidate companies of a group of tenders, found once for the group (see makeCandidatePrefilter). */
export interface CandidateIndex {
  /**
   * The candidates of these tenders (all from the group the index was built for), by company: the
   * domain rule and the scorer then take one company's tenders in a row, which keeps that company's
   * profile in the CPU's cache (measured: the rule's ~5.8 M checks of `npm run bench -- scoring` were
   * bound by memory reads when taken tender by tender across 5,000 companies).
   */
  readonly tendersByCompany: (tenders: ReadonlyArray<LoadedTender>) => Map<string, Array<LoadedTender>>
}

const noCandidates: CandidateIndex = { tendersByCompany: () => new Map() }

/**
 * Candidate prefilter, through indexes only: one query for the watchlists whose CPV keys meet the
 * batch's (CpvMatch.tenderCpvKeys: a watched code containing a tender code or sharing its class),
 * whose keyword anchors occur in its text or that target its authorities; one for the award notices
 * of the same CPV group, division code or authority and the companies that won them (and, both,
 * for the classes a tender's class has a learned affinity with, CpvAffinity.ts); one for the
 * companies whose description, and one for the award notices whose title, contain a specific word
 * of the batch ("specific" as Semantic.isSpecific, so common words such as "lucrări" never fan out
 * to every company). Keys are stored columns with GIN indexes (migration 0013). The rows are then
 * mapped to tenders in memory. Constant arrays let PostgreSQL combine the indexes (BitmapOr).
 * The result is a superset of the domain rule (Matching.isCandidate), applied afterwards.
 *
 * The queries run once for a group of tenders (ScoringService: up to SCORING_GROUP_SIZE, several
 * write batches): a batch of 250 tenders already reaches most watchlists and companies (13,000 of
 * 15,000 watchlists, all 5,000 descriptions in `npm run bench -- scoring`), so each batch read and
 * mapped nearly the same rows again (~0.3 s a batch).
 */
export const makeCandidatePrefilter = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Measured hot path (`npm run bench -- scoring`, 1.4 M pairs): rows typed, not decoded.
  // The CPV table is static reference data: read it on first use, then keep it.
  const divisions = yield* Effect.cached(loadCpvDivisions.pipe(Effect.provideService(SqlClient.SqlClient, sql)))

  const candidateIndex = (
    tenders: ReadonlyArray<LoadedTender>,
    stats: CorpusStats,
    affinity: CpvAffinity
  ): Effect.Effect<CandidateIndex, SqlError.SqlError> =>
    Effect.gen(function* () {
      // A call of award notices only (a polled page of them) has no contract tender to look up.
      if (tenders.length === 0) return noCandidates
      const cpv = yield* divisions
      const codesOf = (t: LoadedTender) => [t.prepared.tender.mainCpv, ...t.prepared.tender.additionalCpvs]
      // The classes whose winners or watchers a tender's classes reach by affinity (it is symmetric,
      // so the tender's class's own list names them), strong enough for the candidate rule.
      const affineClasses = new Map(
        tenders.map((t) => [
          t,
          new Set(
            codesOf(t).flatMap((code) =>
              [...(affinity.byClass.get(code.slice(0, 4))?.values() ?? [])]
                .filter((a) => a.strength >= AFFINITY_CANDIDATE_STRENGTH)
                .map((a) => a.otherClass)
            )
          )
        ])
      )
      const allAffine = [...new Set(tenders.flatMap((t) => [...affineClasses.get(t)!]))]
      // A class as a watched code's key (CpvMatch.watchedCpvKey: significant digits, cut to the class).
      const classKey = (cpvClass: string) => significantDigits(`${cpvClass}0000`).slice(0, 4)
      const cpvKeys = new Map(tenders.map((t) => [t, new Set(codesOf(t).flatMap(tenderCpvKeys))]))
      const allCpvKeys = [...new Set([...tenders.flatMap((t) => [...cpvKeys.get(t)!]), ...allAffine.map(classKey)])]
      const allKeys = [...new Set(tenders.flatMap((t) => [...t.prepared.indexKeys]))]
      const allAuthorities = [...new Set(tenders.map((t) => t.row.authority_id))]
      const allGroups = [...new Set(tenders.flatMap((t) => codesOf(t).map((code) => code.slice(0, 3))))]
      // The affine classes exactly (their group narrows the index scan; the class filters it).
      const affineGroups = [...new Set(allAffine.map((c) => c.slice(0, 3)))]
      const allDivisionCodes = [...new Set(tenders.flatMap((t) => codesOf(t).flatMap(cpv.divisionCodeOf)))]
      const textKeys = new Map(
        tenders.map((t) => [
          t,
          new Set([...t.prepared.termFrequencies.keys()].filter((term) => isSpecific(stats, term)).map(indexKey))
        ])
      )
      const allTextKeys = [...new Set(tenders.flatMap((t) => [...textKeys.get(t)!]))]

      const watchlists = yield* sql<{
        company_id: string
        cpv_keys: ReadonlyArray<string>
        anchors: ReadonlyArray<string>
        authority_id: string | null
      }>`
        SELECT company_id, cpv_keys, keyword_anchors AS anchors, authority_id
        FROM watchlists
        WHERE deleted_at IS NULL AND active
          AND (cpv_keys && ${allCpvKeys}::text[]
               OR keyword_anchors && ${allKeys}::text[]
               OR authority_id = ANY(${allAuthorities}::uuid[]))`
      const awards = yield* sql<{ company_id: string; main_cpv: string; authority_id: string }>`
        SELECT c.id AS company_id, a.main_cpv::text AS main_cpv, a.authority_id
        FROM tenders a
        JOIN companies c ON c.fiscal_code = ANY(a.winner_fiscal_codes) AND c.active
        WHERE a.notice_type = 'award'
          AND (left(a.main_cpv, 3) = ANY(${allGroups}::text[])
               OR (left(a.main_cpv, 3) = ANY(${affineGroups}::text[]) AND left(a.main_cpv, 4) = ANY(${allAffine}::text[]))
               OR a.main_cpv = ANY(${allDivisionCodes}::char(10)[])
               OR a.authority_id = ANY(${allAuthorities}::uuid[]))`

      const described = yield* sql<{ company_id: string; keys: ReadonlyArray<string> }>`
        SELECT id AS company_id, description_keys AS keys
        FROM companies
        WHERE active AND description_keys && ${allTextKeys}::text[]`
      const wonTexts = yield* sql<{ company_id: string; keys: ReadonlyArray<string> }>`
        SELECT c.id AS company_id, a.award_title_keys AS keys
        FROM tenders a
        JOIN companies c ON c.fiscal_code = ANY(a.winner_fiscal_codes) AND c.active
        WHERE a.notice_type = 'award' AND a.award_title_keys && ${allTextKeys}::text[]`

      // Inverted maps: key → companies; a tender's candidates are the union over its keys.
      const byCpvKey = new Map<string, Set<string>>()
      const byAnchor = new Map<string, Set<string>>()
      const byAuthority = new Map<string, Set<string>>()
      const add = (map: Map<string, Set<string>>, key: string, companyId: string) => {
        const set = map.get(key)
        if (set === undefined) map.set(key, new Set([companyId]))
        else set.add(companyId)
      }
      for (const w of watchlists) {
        for (const key of w.cpv_keys) add(byCpvKey, key, w.company_id)
        for (const anchor of w.anchors) add(byAnchor, anchor, w.company_id)
        if (w.authority_id !== null) add(byAuthority, w.authority_id, w.company_id)
      }
      const byAwardGroup = new Map<string, Set<string>>()
      const byAwardClass = new Map<string, Set<string>>()
      const byAwardDivision = new Map<string, Set<string>>()
      for (const a of awards) {
        add(byAwardGroup, a.main_cpv.slice(0, 3), a.company_id)
        add(byAwardClass, a.main_cpv.slice(0, 4), a.company_id)
        if (a.main_cpv.slice(2, 8) === "000000") add(byAwardDivision, a.main_cpv.slice(0, 2), a.company_id)
        add(byAuthority, a.authority_id, a.company_id)
      }

      const byTextKey = new Map<string, Set<string>>()
      for (const row of [...described, ...wonTexts]) for (const key of row.keys) add(byTextKey, key, row.company_id)

      const tendersByCompany = (batch: ReadonlyArray<LoadedTender>) => {
        const byCompany = new Map<string, Array<LoadedTender>>()
        for (const tender of batch) {
          // A company reached through several keys is a candidate of the tender once: tenders are
          // taken one after the other, so one already reached has this tender last in its list.
          const collect = (set: Set<string> | undefined) => {
            if (set === undefined) return
            for (const id of set) {
              const tenders = byCompany.get(id)
              if (tenders === undefined) byCompany.set(id, [tender])
              else if (tenders[tenders.length - 1] !== tender) tenders.push(tender)
            }
          }
          for (const key of cpvKeys.get(tender)!) collect(byCpvKey.get(key))
          for (const key of tender.prepared.indexKeys) collect(byAnchor.get(key))
          collect(byAuthority.get(tender.row.authority_id))
          for (const code of codesOf(tender)) {
            collect(byAwardGroup.get(code.slice(0, 3)))
            collect(byAwardDivision.get(code.slice(0, 2)))
          }
          for (const cpvClass of affineClasses.get(tender)!) {
            collect(byAwardClass.get(cpvClass))
            collect(byCpvKey.get(classKey(cpvClass)))
          }
          for (const key of textKeys.get(tender)!) collect(byTextKey.get(key))
        }
        return byCompany
      }
      return { tendersByCompany }
    })

  return { candidateIndex }
})

export type CandidatePrefilter = Effect.Effect.Success<typeof makeCandidatePrefilter>
