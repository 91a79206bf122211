import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * For the candidate prefilter: the canonical codes a watchlist may hold for it to match a tender
 * code at class depth or deeper: every code of the tender code's class, plus its group and
 * division codes (a watchlist on a whole group or division contains the tender). Watchlist codes
 * are exact array elements, so the GIN index on watchlists.cpv_codes can answer "&& neighbourhood".
 */
export interface CpvNeighbourhood {
  readonly codesNear: (tenderCode: string) => ReadonlyArray<string>
}

export const loadCpvNeighbourhood = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ code_full: string }>`SELECT code_full FROM cpv_codes ORDER BY code_full`
  const byClass = new Map<string, Array<string>>()
  const canonical = new Map<string, string>()
  for (const { code_full } of rows) {
    canonical.set(code_full.slice(0, 8), code_full)
    const klass = code_full.slice(0, 4)
    const list = byClass.get(klass)
    if (list === undefined) byClass.set(klass, [code_full])
    else list.push(code_full)
  }
  const neighbourhood: CpvNeighbourhood = {
    codesNear: (tenderCode) => {
      const near = new Set(byClass.get(tenderCode.slice(0, 4)) ?? [tenderCode])
      for (const ancestor of [`${tenderCode.slice(0, 3)}00000`, `${tenderCode.slice(0, 2)}000000`]) {
        const code = canonical.get(ancestor)
        if (code !== undefined) near.add(code)
      }
      return [...near]
    }
  }
  return neighbourhood
})
