import { SqlClient, type SqlError } from "@effect/sql"
import { Effect } from "effect"
import type { LoadedCompany, ScoringReads } from "./ScoringReads.js"

/** The profiles one scoring call reads: cached ones only at the revision its company had at the call's start. */
export interface ProfileView {
  /** The profiles of the active companies among `companyIds`. */
  readonly profilesOf: (
    companyIds: ReadonlyArray<string>
  ) => Effect.Effect<Map<string, LoadedCompany>, SqlError.SqlError>
  /** The revision an active company had at the call's start; undefined for one created or activated since. */
  readonly revisionAtStart: (companyId: string) => string | undefined
}

/**
 * Prepared company profiles kept between scoring calls in this process (issue 19: reading and
 * preparing ~5,000 profiles took 2-3 s of every `tenders.score` job, one job per polled page).
 *
 * Triggers (migration 0020) give a company a new `profile_rev` in the same transaction as any change
 * to its row, its watchlists or the award notices naming it as a winner. A call reads every active
 * company's revision first (`begin`) and reuses a cached profile only at that revision; any other is
 * read again. `ScoringReads.companyProfiles` reads the revision before the watchlists and awards, so
 * a cached profile is never older than its revision says. A profile does not depend on the corpus
 * snapshot (only the candidate rule's memo does, keyed by the snapshot).
 */
export const makeCompanyProfileCache = (reads: ScoringReads) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = new Map<string, LoadedCompany>()
    // One load at a time: two batches in flight (or two jobs) asking for the same uncached profiles
    // would each read and prepare all of them; the second waits and finds them cached.
    const loading = yield* Effect.makeSemaphore(1)

    const begin = Effect.gen(function* () {
      const revisions = new Map<string, string>()
      for (const row of yield* sql<{ id: string; profile_rev: string }>`
        SELECT id, profile_rev::text AS profile_rev FROM companies WHERE active`) {
        revisions.set(row.id, row.profile_rev)
      }
      // Changed, deactivated or deleted companies: their profiles are of no use to any later call.
      for (const [id, company] of cache) if (revisions.get(id) !== company.revision) cache.delete(id)

      const profilesOf = (companyIds: ReadonlyArray<string>) =>
        loading.withPermits(1)(
          Effect.gen(function* () {
            const isCurrent = (id: string) => cache.get(id)?.revision === revisions.get(id)
            const stale = companyIds.filter((id) => !revisions.has(id) || !isCurrent(id))
            const loaded = yield* reads.companyProfiles(stale)
            for (const [id, company] of loaded) cache.set(id, company)
            const result = new Map<string, LoadedCompany>()
            for (const id of companyIds) {
              const company = loaded.get(id) ?? (isCurrent(id) ? cache.get(id) : undefined)
              if (company !== undefined) result.set(id, company)
            }
            return result
          })
        )
      return { profilesOf, revisionAtStart: (id) => revisions.get(id) } satisfies ProfileView
    })

    return { begin }
  })
