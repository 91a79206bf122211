import { Effect } from "effect"
import type { CpvType } from "../../domain/scoring/CpvMatch.js"
import { factorBreakdown, MODEL_WEIGHTS } from "../../domain/scoring/Model.js"

/**
 * What a stored score keeps of its breakdown (migration 0006): the five factor scores (0-1, four
 * decimals), the kind of CPV match and the model version; weights and contributions follow from it.
 */
export interface StoredFactors {
  readonly score_semantic: number
  readonly score_keyword: number
  readonly score_cpv: number
  readonly score_value_fit: number
  readonly score_historical: number
  readonly cpv_type: CpvType
  readonly model_version: string
}

/**
 * The full breakdown of a stored score under its model version's weights. A version without known
 * weights is our defect (see MODEL_WEIGHTS): it dies, before anything is charged.
 */
export const storedBreakdown = (row: StoredFactors) => {
  const weights = MODEL_WEIGHTS[row.model_version]
  if (weights === undefined) return Effect.dieMessage(`No weights for model ${row.model_version}`)
  return Effect.succeed(
    factorBreakdown(
      {
        semantic: row.score_semantic,
        keyword: row.score_keyword,
        cpv: row.score_cpv,
        value_fit: row.score_value_fit,
        historical: row.score_historical,
        cpvType: row.cpv_type
      },
      weights
    )
  )
}
