import type { TenderInput, WatchlistInput } from "../../src/domain/scoring/Inputs.js"

/**
 * A contract notice for the scorer's unit tests, by id, title and main CPV code: no description, no
 * additional codes, an authority of its own and 50,000 RON unless `overrides` say otherwise.
 */
export const notice = (
  id: string,
  title: string,
  mainCpv: string,
  overrides: Partial<TenderInput> = {}
): TenderInput => ({
  id,
  title,
  description: "",
  mainCpv,
  additionalCpvs: [],
  authorityId: `auth-${id}`,
  valueRon: 50_000,
  ...overrides
})

/** A watchlist for the scorer's unit tests: no codes, keywords, value range or authority, minimum score 50, unless `overrides` say otherwise. */
export const watchlist = (overrides: Partial<WatchlistInput> = {}): WatchlistInput => ({
  id: "w1",
  cpvCodes: [],
  keywords: [],
  minValue: null,
  maxValue: null,
  authorityId: null,
  minScore: 50,
  ...overrides
})
