import type { FactorName } from "./Model.js"
import type { Verdict } from "./Verdict.js"

/**
 * The Romanian words for a verdict and for each factor, shared by every Romanian place (the browser
 * app and the PDF report), so a consultant reads the same word on the screen and on paper.
 */
export const VERDICT_LABELS_RO: { readonly [verdict in Verdict]: string } = {
  GO: "MERITĂ",
  RESEARCH: "DE ANALIZAT",
  SKIP: "NU MERITĂ"
}

export const FACTOR_LABELS_RO: { readonly [name in FactorName]: string } = {
  semantic: "Potrivire cu descrierea",
  keyword: "Cuvinte cheie",
  cpv: "Coduri CPV",
  value_fit: "Valoare",
  historical: "Istoric de câștiguri"
}
