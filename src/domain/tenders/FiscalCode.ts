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
