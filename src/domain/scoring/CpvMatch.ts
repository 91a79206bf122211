/**
 * CPV codes are hierarchical by significant digits: 2 = division, 3 = group, 4 = class, 5+ =
 * category and finer ("45210000-2" has the significant digits "4521", a class).
 */

/** The 8 digits of a code, with or without its "-D" check digit. */
export const digitsOf = (code: string): string => code.slice(0, 8)

/**
 * The CPV class (first 4 digits) of a code: what the historical factor compares, and the unit of
 * feedback marks and of the affinity learned from awards.
 */
export const cpvClassOf = (code: string): string => digitsOf(code).slice(0, 4)

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

/** The depth at which a tender code lies inside the watched code's subtree (see meetingDepth). */
export const INSIDE = -1

/**
 * Codes with their 8 digits and significant digits worked out once: scoring compares a tender's
 * codes with a company's for every candidate pair (millions per scoring run), so neither side is
 * sliced or looked up again per pair.
 */
export interface CodeSet {
  /** As written (with the check digit when given): what a match names. */
  readonly written: ReadonlyArray<string>
  readonly digits: ReadonlyArray<string>
  readonly significant: ReadonlyArray<string>
}

export const codeSetOf = (codes: ReadonlyArray<string>): CodeSet => ({
  written: codes,
  digits: codes.map(digitsOf),
  significant: codes.map(significantDigits)
})

/** meetingDepth over prepared parts: the tender code's 8 digits and significant length, the watched code's significant digits. */
const depthOf = (tender: string, tenderSignificantLength: number, watched: string): number => {
  // Most pairs compared lie in different divisions, settled by the first two digits (a significant
  // part has at least two).
  if (tender.charCodeAt(0) !== watched.charCodeAt(0)) return 0
  if (tender.charCodeAt(1) !== watched.charCodeAt(1)) return 1
  if (tender.startsWith(watched)) return INSIDE
  const limit = Math.min(tenderSignificantLength, watched.length)
  let shared = 0
  while (shared < limit && tender[shared] === watched[shared]) shared++
  return shared
}

/**
 * Where a tender code meets a watched code in the CPV tree: INSIDE when the tender code lies in the
 * watched code's subtree, else the number of leading significant digits they share (below 2: none).
 * The one comparison of two codes: its depth gives both the score (depthScore) and the reason's words.
 */
export const meetingDepth = (tenderCode: string, watchedCode: string): number =>
  depthOf(digitsOf(tenderCode), significantDigits(tenderCode).length, significantDigits(watchedCode))

/**
 * Inside a watched code, each CPV level the tender code lies below it costs INSIDE_LEVEL_STEP, counted
 * down to the category (5 significant digits) (model tsm-1.7.0): a tender of the very code a company
 * watches (or won) scores 1, one in another category of a watched group 1 - 2 × 0.03 = 0.94, one
 * anywhere in a watched division at least 0.91. A broad watched code (a division, a group, as buyers
 * often code a contract) still means "all of it", but the code itself is the closer evidence, as a
 * CPV-prefix search ranks it; three levels cost 0.09, so every match inside stays above the best
 * match outside (DEEPER_SHARED_SCORE, 0.85). A watched category or finer code loses nothing.
 */
export const INSIDE_LEVEL_STEP = 0.03
const GRADED_DOWN_TO = 5

/** Score of a tender code inside a watched code, by their significant lengths (see INSIDE_LEVEL_STEP). */
const insideScore = (tenderSignificantLength: number, watchedSignificantLength: number): number => {
  const levels = Math.min(tenderSignificantLength, GRADED_DOWN_TO) - watchedSignificantLength
  // Rounded: 1 - 3 × 0.03 is 0.9099999… in binary.
  return levels <= 0 ? 1 : Math.round((1 - INSIDE_LEVEL_STEP * levels) * 10_000) / 10_000
}

/**
 * Score of a meeting depth: inside, by how far below the watched code (insideScore); by the depth
 * of the common ancestor otherwise.
 */
const depthScore = (depth: number, tenderSignificantLength: number, watchedSignificantLength: number): number =>
  depth === INSIDE
    ? insideScore(tenderSignificantLength, watchedSignificantLength)
    : depth < 2
      ? 0
      : (SHARED_DEPTH_SCORE[depth] ?? DEEPER_SHARED_SCORE)

/**
 * How well a tender code matches a watched code, 0-1: inside the watched code's subtree 1, less
 * INSIDE_LEVEL_STEP for each level the tender code lies below it (down to the category); otherwise
 * by the depth of their common ancestor (division 0.3, group 0.55, class 0.75, finer 0.85); 0 for
 * different divisions.
 */
export const codeMatch = (tenderCode: string, watchedCode: string): number =>
  depthScore(
    meetingDepth(tenderCode, watchedCode),
    significantDigits(tenderCode).length,
    significantDigits(watchedCode).length
  )

/**
 * The kind of contract a CPV code names, by its division: works (45), supplies (03-44 and 48,
 * software packages) or services (50-98), the CPV's own split of the three contract types.
 */
export type ContractKind = "works" | "supplies" | "services"
export const contractKindOf = (code: string): ContractKind => {
  const division = Number(code.slice(0, 2))
  return division === 45 ? "works" : division < 45 || division === 48 ? "supplies" : "services"
}

/** An additional code describes a side of the tender; its match counts for a little less. */
export const ADDITIONAL_CODE_FACTOR = 0.9

export type CpvType = "primary" | "additional" | "none"

/**
 * The CPV factor and its evidence: which tender code (as written) met which profile code at which
 * depth. Recorded as the best match is found, so the reason names the pair that gave the score.
 */
export interface CpvMatch {
  readonly score: number
  readonly cpvType: CpvType
  /** null when no code of the tender is near a profile code (score 0). */
  readonly tenderCode: string | null
  readonly profileCode: string | null
  /** meetingDepth of the two codes; 0 when nothing matched. */
  readonly depth: number
}

/**
 * Best match of the tender's codes (main first) against the profile's codes; ties go to the main
 * code, then to the profile code listed first (PreparedCompany.profileCodes lists watched codes first).
 */
export const bestCpvMatch = (
  mainCpv: string,
  additionalCpvs: ReadonlyArray<string>,
  profileCodes: ReadonlyArray<string>
): CpvMatch => bestCpvMatchOf(codeSetOf([mainCpv, ...additionalCpvs]), codeSetOf(profileCodes))

/** bestCpvMatch over prepared codes (PreparedTender.cpv, main first; PreparedCompany.profileCpv). */
export const bestCpvMatchOf = (tenderCodes: CodeSet, profile: CodeSet): CpvMatch => {
  let score = 0
  let cpvType: CpvType = "none"
  let tenderCode: string | null = null
  let profileCode: string | null = null
  let depth = 0
  // Index 0 is the main code, then the additional ones.
  for (let i = 0; i < tenderCodes.written.length; i++) {
    const digits = tenderCodes.digits[i]!
    const significantLength = tenderCodes.significant[i]!.length
    for (let j = 0; j < profile.written.length; j++) {
      const watched = profile.significant[j]!
      const meeting = depthOf(digits, significantLength, watched)
      const match = depthScore(meeting, significantLength, watched.length)
      const codeScore = i === 0 ? match : match * ADDITIONAL_CODE_FACTOR
      if (codeScore > score) {
        score = codeScore
        cpvType = i === 0 ? "primary" : "additional"
        tenderCode = tenderCodes.written[i]!
        profileCode = profile.written[j]!
        depth = meeting
      }
    }
  }
  return { score, cpvType, tenderCode, profileCode, depth }
}

/**
 * Whether some tender code matches some profile code with at least `minimum` (the score
 * bestCpvMatchOf would find reaches it): the candidate rule asks only this, for every pair the
 * prefilter returns, and most of them answer yes at their first code.
 */
export const cpvMatchReaches = (tenderCodes: CodeSet, profile: CodeSet, minimum: number): boolean => {
  for (let i = 0; i < tenderCodes.written.length; i++) {
    const digits = tenderCodes.digits[i]!
    const significantLength = tenderCodes.significant[i]!.length
    for (let j = 0; j < profile.written.length; j++) {
      const watched = profile.significant[j]!
      const score = depthScore(depthOf(digits, significantLength, watched), significantLength, watched.length)
      if ((i === 0 ? score : score * ADDITIONAL_CODE_FACTOR) >= minimum) return true
    }
  }
  return false
}

/**
 * The CPV node where a tender code and a profile code meet at `depth` (meetingDepth): the profile
 * code's significant digits when the tender code lies inside it, else the leading digits they share.
 */
export const meetingNode = (tenderCode: string, profileCode: string, depth: number): string =>
  depth === INSIDE ? significantDigits(profileCode) : digitsOf(tenderCode).slice(0, depth)

/** CPV levels by their number of significant digits: 2 division, 3 group, 4 class, 5 category, finer 6+. */
export type CpvLevel = "division" | "group" | "class" | "category" | "subcategory"
const CPV_LEVELS: Record<number, CpvLevel> = { 2: "division", 3: "group", 4: "class", 5: "category" }
export const cpvLevelOf = (significant: string): CpvLevel => CPV_LEVELS[significant.length] ?? "subcategory"

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
