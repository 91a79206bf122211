/**
 * An amount as SEAP's exports and spreadsheets write it: Romanian "1.234.567,89", English
 * "1,234,567.89", plain "1234567.89" or "1234567,89", spaced "1 234 567,89". The last separator is
 * the decimal one when both kinds appear, or when it is followed by other than exactly 3 digits; a
 * separator that repeats, or is followed by exactly 3 digits, groups thousands ("1.234" is 1234:
 * money is written with 2 decimals). Undefined when the text is no such number. (The app's form
 * fields read what a consultant types with web/FormInputs.parseAmount.)
 */
export const parseExportedAmount = (text: string): number | undefined => {
  const compact = text.replace(/[\s\u00a0\u202f']/g, "")
  if (!/^[0-9][0-9.,]*$/.test(compact)) return undefined
  const last = Math.max(compact.lastIndexOf("."), compact.lastIndexOf(","))
  if (last === -1) return Number(compact)
  const separator = compact[last]!
  const bothKinds = compact.includes(".") && compact.includes(",")
  const repeats = compact.indexOf(separator) !== last
  const decimals = compact.length - last - 1
  const isDecimal = bothKinds || (!repeats && decimals !== 3)
  const whole = isDecimal ? compact.slice(0, last) : compact
  const groups = whole.split(/[.,]/)
  // Thousands groups are 3 digits each after the first (1 to 3): "1.2.3" is no amount.
  if (
    groups.slice(1).some((g) => g.length !== 3) ||
    groups[0]!.length === 0 ||
    (groups.length > 1 && groups[0]!.length > 3)
  ) {
    return undefined
  }
  if (isDecimal && decimals === 0) return undefined
  const amount = Number(`${groups.join("")}${isDecimal ? `.${compact.slice(last + 1)}` : ""}`)
  return Number.isFinite(amount) ? amount : undefined
}
