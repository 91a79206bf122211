/**
 * Romanian text arrives with cedilla letters (ş ţ, legacy encodings), comma-below letters (ș ț,
 * the correct ones) or no diacritics at all (SICAP API). We store the correct comma-below forms and
 * match on a folded form that ignores diacritics and case.
 */

/** The cedilla letters (U+015F, U+0163, U+015E, U+0162) and their comma-below forms (U+0219, U+021B, U+0218, U+021A), in step. */
const CEDILLA_LETTERS = "şţŞŢ"
const COMMA_BELOW_LETTERS = "șțȘȚ"

/** NFC, then every cedilla ş ţ Ş Ţ as the comma-below ș ț Ș Ț Romanian writes; nothing else changes. */
export const commaBelow = (text: string): string =>
  text.normalize("NFC").replace(/[şţŞŢ]/g, (letter) => COMMA_BELOW_LETTERS[CEDILLA_LETTERS.indexOf(letter)]!)

/** Storage form: `commaBelow`, whitespace collapsed, trimmed. */
export const normalizeRomanianText = (text: string): string => commaBelow(text).replace(/\s+/g, " ").trim()

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
