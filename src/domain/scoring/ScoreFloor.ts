/**
 * The least overall score a (company, tender) pair is stored with (issue 23). Below it a pair is a
 * candidate the model ranks as irrelevant: it is never in a useful top 10, yet at country scale such
 * pairs are a large share of the rows written, indexed, paged past and retained. Measured on the
 * scoring bench and the eval (BENCHMARKS.md, "Issue 23: score floor"): the value drops the pairs no
 * list needs and no held-out target in any top 10.
 *
 * Alerts do not read it: a watchlist whose threshold is below the floor still alerts (its match is
 * decided on the computed score, stored or not), as it did before the floor.
 */
export const SCORE_FLOOR = 15
