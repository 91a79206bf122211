/**
 * CPV codes are hierarchical by significant digits: 2 = division, 3 = group, 4 = class, 5+ =
 * category and finer ("45210000-2" has the significant digits "4521", a class).
 */

/** The 8 digits of a code, with or without its "-D" check digit. */
export const digitsOf = (code: string): string => code.slice(0, 8)

// Memo of significantDigits: scoring calls it for every code pair; the CPV table bounds its size.
const significantMemo = new Map<string, string>()

/** Significant digits: trailing zeros dropped, but never shorter than the division. */
export const significantDigits = (code: string): string => {
  const cached = significantMemo.get(code)
  if (cached !== undefined) return cached
  const digits = digitsOf(code).replace(/0+$/, "")
  const significant = digits.length >= 2 ? digits : digitsOf(code).slice(0, 2)
  if (significantMemo.size < 50_000) significantMemo.set(code, significant)
  return significant
}

/** Score of a match by the number of shared leading digits, when the tender is not inside the watched code. */
const SHARED_DEPTH_SCORE: Record<number, number> = { 2: 0.3, 3: 0.55, 4: 0.75 }
const DEEPER_SHARED_SCORE = 0.85

/**
 * How well a tender code matches a watched code, 0-1: 1 when the tender code lies inside the
 * watched code's subtree; otherwise by the depth of their common ancestor (division 0.3, group
 * 0.55, class 0.75, finer 0.85); 0 for different divisions.
 */
export const codeMatch = (tenderCode: string, watchedCode: string): number => {
  const tender = digitsOf(tenderCode)
  const watched = significantDigits(watchedCode)
  if (tender.startsWith(watched)) return 1
  const limit = Math.min(significantDigits(tenderCode).length, watched.length)
  let shared = 0
  while (shared < limit && tender[shared] === watched[shared]) shared++
  if (shared < 2) return 0
  return SHARED_DEPTH_SCORE[shared] ?? DEEPER_SHARED_SCORE
}

/** An additional code describes a side of the tender; its match counts for a little less. */
export const ADDITIONAL_CODE_FACTOR = 0.9

export type CpvType = "primary" | "additional" | "none"

export interface CpvMatch {
  readonly score: number
  readonly cpvType: CpvType
}

/** Best match of the tender's codes (main first) against the profile's codes; ties go to the main code. */
export const bestCpvMatch = (
  mainCpv: string,
  additionalCpvs: ReadonlyArray<string>,
  profileCodes: ReadonlyArray<string>
): CpvMatch => {
  let best: CpvMatch = { score: 0, cpvType: "none" }
  for (const watched of profileCodes) {
    const score = codeMatch(mainCpv, watched)
    if (score > best.score) best = { score, cpvType: "primary" }
  }
  for (const code of additionalCpvs) {
    for (const watched of profileCodes) {
      const score = codeMatch(code, watched) * ADDITIONAL_CODE_FACTOR
      if (score > best.score) best = { score, cpvType: "additional" }
    }
  }
  return best
}

/** True when the tender code lies inside the watched code's subtree (a watchlist's CPV filter). */
export const withinCode = (tenderCode: string, watchedCode: string): boolean =>
  digitsOf(tenderCode).startsWith(significantDigits(watchedCode))

/**
 * Candidate-index keys of CPV codes (migration 0013 `scoring_cpv_keys` computes the watched side in
 * SQL). A watched code's key is its significant digits cut to the class (4 digits); a tender code's
 * keys are its division, group and class prefixes. They overlap whenever the tender code lies inside
 * the watched code or shares its class with it, i.e. whenever codeMatch reaches the class score
 * (0.75) that makes a pair a candidate (Matching.CANDIDATE_MIN_CPV).
 */
export const watchedCpvKey = (watchedCode: string): string => significantDigits(watchedCode).slice(0, 4)

export const tenderCpvKeys = (tenderCode: string): ReadonlyArray<string> => {
  const digits = digitsOf(tenderCode)
  return [digits.slice(0, 2), digits.slice(0, 3), digits.slice(0, 4)]
}
