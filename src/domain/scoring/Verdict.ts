import { Schema } from "effect"

/**
 * What a score advises: GO (bid), RESEARCH (look closer), SKIP. The score thresholds are the
 * model's (`VERDICT_THRESHOLDS` in Model.ts); this is the vocabulary the API, the database rows and
 * the alerts share.
 */
export const Verdict = Schema.Literal("GO", "RESEARCH", "SKIP")
export type Verdict = typeof Verdict.Type
