import { Schema } from "effect"

/**
 * What a score advises: GO (bid), RESEARCH (look closer), SKIP. The score thresholds are the
 * model's (`VERDICT_THRESHOLDS` in Model.ts); this is the vocabulary the API, the database rows and
 * the alerts share.
 */
export const Verdict = Schema.Literal("GO", "RESEARCH", "SKIP")
export type Verdict = typeof Verdict.Type

const RANK: Record<Verdict, number> = { SKIP: 0, RESEARCH: 1, GO: 2 }

/** A verdict above the one before (none before counts as below SKIP): a changed tender worth a new look. */
export const verdictRose = (before: Verdict | undefined, after: Verdict): boolean =>
  RANK[after] > (before === undefined ? -1 : RANK[before])
