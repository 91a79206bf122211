import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { LoadedCompany, ScoringReads } from "./ScoringReads.js"

/**
 * Prepared company profiles kept between scoring calls in this process (issue 19: reading and
 * preparing ~5,000 profiles took 2-3 s of every `tenders.score` job, one job per polled page).
 *
 * A profile is reused only while its company's `profile_rev` is the one it was read at. Triggers
 * (migration 0020) give a company a new revision in the same transaction as any change to its row,
 * its watchlists or the award notices naming it as a winner. `ScoringReads.companyProfiles` reads
 * the revision before the watchlists and awards, so a cached profile is never older than its
 * revision says. A profile does not depend on the corpus snapshot (only the candidate rule's memo
 * does, keyed by the snapshot).
 */
export const makeCompanyProfileCache = (reads: ScoringReads) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = new Map<string, LoadedCompany>()

    /**
     * Drops every profile whose company changed, became inactive or was deleted since it was read.
     * Call it once at the start of a scoring call: the call then sees the profiles as of its start.
     */
    const revalidate = Effect.gen(function* () {
      if (cache.size === 0) return
      const current = new Map<string, string>()
      for (const row of yield* sql<{ id: string; profile_rev: string }>`
        SELECT id, profile_rev::text AS profile_rev FROM companies WHERE active`) {
        current.set(row.id, row.profile_rev)
      }
      for (const [id, company] of cache) if (current.get(id) !== company.revision) cache.delete(id)
    })

    /** The profiles of the active companies among `companyIds`, read for those not cached. */
    const profilesOf = (companyIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const missing = companyIds.filter((id) => !cache.has(id))
        for (const [id, company] of yield* reads.companyProfiles(missing)) cache.set(id, company)
        const result = new Map<string, LoadedCompany>()
        for (const id of companyIds) {
          const company = cache.get(id)
          if (company !== undefined) result.set(id, company)
        }
        return result
      })

    return { revalidate, profilesOf }
  })
