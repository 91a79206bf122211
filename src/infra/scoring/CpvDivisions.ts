import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

/**
 * For the candidate prefilter's award branch: the canonical division code (with its check digit,
 * as award notices store it) of a tender code, so awards filed under a whole division are found
 * through the index on `main_cpv`. Empty when the CPV table has no such division.
 */
export interface CpvDivisions {
  readonly divisionCodeOf: (tenderCode: string) => ReadonlyArray<string>
}

const DivisionRow = Schema.Struct({ code_full: Schema.String })

export const loadCpvDivisions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`
    SELECT code_full FROM cpv_codes WHERE substr(code_full, 3, 6) = '000000'`.pipe(
    Effect.flatMap((rows) => Effect.orDie(Schema.decodeUnknown(Schema.Array(DivisionRow))(rows)))
  )
  const divisions = new Map(rows.map(({ code_full }) => [code_full.slice(0, 2), code_full]))
  const divisionsOf: CpvDivisions = {
    divisionCodeOf: (tenderCode) => {
      const code = divisions.get(tenderCode.slice(0, 2))
      return code === undefined ? [] : [code]
    }
  }
  return divisionsOf
})
