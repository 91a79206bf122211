/**
 * The harness's own text handling for its comparison rankings, independent of the service's code
 * (src/domain/scoring), so the full-text ranking is a separate engine and not the service again.
 *
 * - `plainWords`: what a naive matcher does: lower case, split on anything that is not a letter or a
 *   digit; no folding, no stemming, no stop words.
 * - `searchTerms`: what a search engine's Romanian analyzer does (lightly): diacritics folded
 *   (ă â î ș ț, and the legacy cedilla ş ţ), lower case, stop words and one-letter tokens dropped,
 *   plural and definite-article endings stripped, then a final vowel; stems kept at 3+ letters.
 */

/** Lower case, split on non-letters/digits; diacritics kept as typed. */
export const plainWords = (text: string): Array<string> =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)

const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()

/** Common Romanian function words (folded), the usual stop list of a search engine. */
const STOP_WORDS = new Set(
  (
    "a ai al ale alor am ar are as asa asta acea aceasta aceste acest acesta acestei acestor acel acela acele " +
    "acum adica aici al ale alt alta alte altor ca cand care cat catre ce cea cei cel cele celor cu " +
    "da daca de decat deci din dintre doar dupa e ea ei el ele era este eu fara fi fie fiind fost " +
    "iar in inca insa intr intre intru la le li lor lui mai mult ne nici noi nu o ori pe pentru peste " +
    "pana prin sa sau se si sub sunt spre tot toate toti un una unei unor unui unde va vor " +
    "nr str etc"
  ).split(" ")
)

/** Plural and definite-article endings, longest first; then one final vowel (and an "i" left before it). */
const ENDINGS = ["urilor", "urile", "ilor", "elor", "ului", "iile", "ile", "ele", "uri", "lor", "ul", "ii", "ei"]
const MIN_STEM = 3

const stem = (word: string): string => {
  if (/[0-9]/.test(word)) return word
  let w = word
  const ending = ENDINGS.find((e) => w.endsWith(e) && w.length - e.length >= MIN_STEM)
  if (ending !== undefined) w = w.slice(0, -ending.length)
  if (/[aeiu]$/.test(w) && w.length > MIN_STEM) w = w.slice(0, -1)
  if (w.endsWith("i") && w.length > MIN_STEM) w = w.slice(0, -1)
  return w
}

/** Folded, stop words out, lightly stemmed terms (in order, repeats kept). */
export const searchTerms = (text: string): Array<string> =>
  fold(text)
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP_WORDS.has(w))
    .map(stem)
