/**
 * What the app's forms read from what a consultant types, and how they show a stored value back, so
 * that saving a form nobody changed stores what it showed.
 */

/**
 * An amount in RON as typed: a Romanian "1.234.567,89" (dots group thousands, the comma is the
 * decimal mark) or a plain "1234567.89". Without a comma, dots are thousands only in whole groups of
 * three ("1.234.567"); a single dot otherwise is the decimal point ("1234.5", "0.12"). Empty: null.
 */
export const parseAmount = (text: string): number | null => {
  const compact = text.replace(/\s/g, "")
  if (compact === "") return null
  if (compact.includes(",")) return Number(compact.replace(/\./g, "").replace(",", "."))
  return Number(/^\d{1,3}(\.\d{3})+$/.test(compact) ? compact.replace(/\./g, "") : compact)
}

/** A stored amount as the amount field shows it: decimal comma, no grouping (parseAmount reads it back). */
export const amountInput = (amount: number | null | undefined): string =>
  amount == null ? "" : String(amount).replace(".", ",")

/**
 * Keywords typed comma-separated. A comma between two digits is a decimal comma inside a keyword
 * ("1,5 tone"), not a separator.
 */
export const splitKeywords = (text: string): Array<string> =>
  text
    .split(/(?<!\d),|,(?!\d)/)
    .map((keyword) => keyword.trim())
    .filter((keyword) => keyword !== "")

/** Keywords as the field shows them: splitKeywords reads them back as they are. */
export const keywordsInput = (keywords: ReadonlyArray<string>): string => keywords.join(", ")

/**
 * The fields of an edit form that differ from the stored record it opened with: what a PATCH sends,
 * so a field changed meanwhile elsewhere (another tab, a colleague) and untouched here keeps its
 * new value instead of being written back to the one this form showed.
 */
export const changedFields = <F extends Record<string, unknown>>(
  fields: F,
  stored: { readonly [K in keyof F]?: unknown }
) =>
  Object.fromEntries(
    Object.entries(fields).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(stored[key] ?? null))
  ) as Partial<F>
