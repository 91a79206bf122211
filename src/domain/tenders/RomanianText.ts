/**
 * Romanian text arrives with cedilla letters (ş ţ, legacy encodings), comma-below letters (ș ț,
 * the correct ones) or no diacritics at all (SICAP API). We store the correct comma-below forms and
 * match on a folded form that ignores diacritics and case.
 */

const CEDILLA_TO_COMMA: Record<string, string> = { ş: "ș", ţ: "ț", Ş: "Ș", Ţ: "Ț" }

/** Storage form: NFC, cedilla ş ţ Ş Ţ replaced by comma-below ș ț Ș Ț, whitespace collapsed, trimmed. */
export const normalizeRomanianText = (text: string): string =>
  text
    .normalize("NFC")
    .replace(/[şţŞŢ]/g, (letter) => CEDILLA_TO_COMMA[letter]!)
    .replace(/\s+/g, " ")
    .trim()

/** Matching form: every diacritic stripped (ă â î ș ț ş ţ → a a i s t s t), lower-cased. */
export const foldForMatching = (text: string): string =>
  text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()

/** Dedup key of an authority without a fiscal code: folded, punctuation collapsed to single spaces. */
export const normalizeAuthorityName = (name: string): string =>
  foldForMatching(name)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
