import type { TenderInput } from "../../src/domain/scoring/Inputs.js"

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
