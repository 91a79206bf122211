/**
 * Romanian fiscal code (CUI/CIF) as stored: digits only, without the `RO` VAT prefix, 2-10 digits.
 * Accepts "RO 22505268", "ro22505268", "22505268", "22.505.268", "111 222 333", "R16445706"; anything
 * else is `null`. The one rule for every way a fiscal code comes in: imports, `company create`.
 */
export const normalizeFiscalCode = (input: string): string | null => {
  const digits = input
    .trim()
    // "RO" is the VAT prefix; SEAP data also has it mistyped as a bare "R".
    .replace(/^RO?/i, "")
    .replace(/[\s.-]/g, "")
  return /^[0-9]{2,10}$/.test(digits) ? digits : null
}

/** The CUI's control digit: the digits before it, padded to 9, weighted 7 5 3 2 1 7 5 3 2; ×10 mod 11 (10 → 0). */
const CONTROL_WEIGHTS = [7, 5, 3, 2, 1, 7, 5, 3, 2]

export const hasCuiControlDigit = (digits: string): boolean => {
  const body = digits.slice(0, -1).padStart(9, "0")
  let sum = 0
  for (let i = 0; i < 9; i++) sum += Number(body[i]) * CONTROL_WEIGHTS[i]!
  return ((sum * 10) % 11) % 10 === Number(digits[digits.length - 1])
}

/**
 * A fiscal code read from a notice: normalised, and kept only when it is a Romanian CUI (its control
 * digit holds). Foreign buyers' and winners' national ids ("123 456 789" of a Scottish buyer, a Danish
 * CVR), registry numbers and CPV codes typed into the field would otherwise pass as CUIs: authorities
 * are merged by fiscal code and award history is matched by it.
 */
export const romanianFiscalCodeOfNotice = (input: string): string | null => {
  const digits = normalizeFiscalCode(input)
  return digits !== null && hasCuiControlDigit(digits) ? digits : null
}
