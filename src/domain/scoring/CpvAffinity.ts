import { type CodeSet, cpvClassOf, digitsOf } from "./CpvMatch.js"
import type { PreparedCompany } from "./Inputs.js"

/**
 * CPV affinity learned from awards: how much more often than chance the same suppliers win in two
 * CPV classes (4 digits, as the historical factor counts them). The CPV tree calls publicity
 * services (7934) and promotional supplies (3929) unrelated; the award record says the same firms
 * win both. The measure is normalised PMI over supplier counts, with add-k smoothing of each class's
 * count so that two rare classes sharing their one or two suppliers do not look certain, and a
 * minimum number of common suppliers below which a pair is not learned at all.
 */

/** A pair needs at least this many suppliers winning in both classes. */
export const AFFINITY_MIN_SUPPORT = 3
/** Added to each class's supplier count (add-k smoothing): shrinks pairs of small classes. */
export const AFFINITY_SMOOTHING = 1
/**
 * The cpv factor of a tender reached by affinity alone: strength × this, so even the strongest
 * affinity stays below a match in the same CPV class (0.75) or inside a profile code (1): the
 * tree, when it agrees, says more than the co-award record.
 */
export const AFFINITY_MAX_SCORE = 0.6
/** The strength from which an affinity makes a (company, tender) pair a candidate. */
export const AFFINITY_CANDIDATE_STRENGTH = 0.2

/** One supplier's win in a CPV class (an award notice naming it as a winner). */
export interface ClassWin {
  readonly supplier: string
  readonly cpvClass: string
}

/** The counts behind an affinity: suppliers of each class, of both, and of any class. */
export interface AffinityCounts {
  readonly common: number
  readonly left: number
  readonly right: number
  readonly suppliers: number
}

/**
 * Normalised PMI of two classes, with add-k smoothing of the class counts:
 * ln(common·(N+k) / ((left+k)(right+k))) / -ln(common/N), clamped to 0-1 (0: no more often than
 * chance). Symmetric in left and right. 0 below the minimum support.
 */
export const affinityStrength = ({ common, left, right, suppliers }: AffinityCounts): number => {
  if (common < AFFINITY_MIN_SUPPORT || common >= suppliers) return 0
  const k = AFFINITY_SMOOTHING
  const pmi = Math.log((common * (suppliers + k)) / ((left + k) * (right + k)))
  const npmi = pmi / -Math.log(common / suppliers)
  return Math.min(1, Math.max(0, npmi))
}

/** A learned affinity from the class a company has to another class, with its evidence. */
export interface ClassAffinity {
  /** The class of the company's profile. */
  readonly cpvClass: string
  /** The class of the tender it leads to. */
  readonly otherClass: string
  /** Suppliers that won in both classes. */
  readonly commonSuppliers: number
  /** Suppliers that won in `cpvClass` (the reason's "of 52"). */
  readonly classSuppliers: number
  readonly otherSuppliers: number
  /** Normalised PMI, 0-1. */
  readonly strength: number
}

/**
 * Every affinity the wins support, in both directions (a→b and b→a share their strength), sorted by
 * class then other class: the same wins in any order give the same list.
 */
export const learnAffinity = (wins: Iterable<ClassWin>): Array<ClassAffinity> => {
  const classesBySupplier = new Map<string, Set<string>>()
  for (const { supplier, cpvClass } of wins) {
    const classes = classesBySupplier.get(supplier) ?? new Set<string>()
    classes.add(cpvClass)
    classesBySupplier.set(supplier, classes)
  }
  const suppliersOf = new Map<string, number>()
  const common = new Map<string, number>()
  for (const classes of classesBySupplier.values()) {
    const sorted = [...classes].sort()
    for (let i = 0; i < sorted.length; i++) {
      suppliersOf.set(sorted[i]!, (suppliersOf.get(sorted[i]!) ?? 0) + 1)
      for (let j = i + 1; j < sorted.length; j++) {
        const key = `${sorted[i]} ${sorted[j]}`
        common.set(key, (common.get(key) ?? 0) + 1)
      }
    }
  }
  const suppliers = classesBySupplier.size
  const learned: Array<ClassAffinity> = []
  for (const [key, count] of common) {
    if (count < AFFINITY_MIN_SUPPORT) continue
    const [a, b] = key.split(" ") as [string, string]
    const left = suppliersOf.get(a)!
    const right = suppliersOf.get(b)!
    const strength = affinityStrength({ common: count, left, right, suppliers })
    if (strength <= 0) continue
    const base = { commonSuppliers: count, strength }
    learned.push({ ...base, cpvClass: a, otherClass: b, classSuppliers: left, otherSuppliers: right })
    learned.push({ ...base, cpvClass: b, otherClass: a, classSuppliers: right, otherSuppliers: left })
  }
  return learned.sort((x, y) => x.cpvClass.localeCompare(y.cpvClass) || x.otherClass.localeCompare(y.otherClass))
}

/** The learned affinities, by the company's class, then by the tender's class; `revision` names the snapshot. */
export interface CpvAffinity {
  readonly revision: string
  readonly byClass: ReadonlyMap<string, ReadonlyMap<string, ClassAffinity>>
}

export const affinityOf = (revision: string, affinities: Iterable<ClassAffinity>): CpvAffinity => {
  const byClass = new Map<string, Map<string, ClassAffinity>>()
  for (const affinity of affinities) {
    const others = byClass.get(affinity.cpvClass) ?? new Map<string, ClassAffinity>()
    others.set(affinity.otherClass, affinity)
    byClass.set(affinity.cpvClass, others)
  }
  return { revision, byClass }
}

/** Nothing learned (no award notices yet, or a caller without the table): the tree alone. */
export const NO_AFFINITY: CpvAffinity = { revision: "none", byClass: new Map() }

/** The strongest affinity reaching a tender class from the company's profile, and the profile code it starts from. */
export interface AffinityReach {
  readonly affinity: ClassAffinity
  /** The profile code (8 digits) whose class leads there. */
  readonly profileCode: string
}

// Per company and affinity snapshot: tender class → the strongest reach (scoring asks for every pair).
const reaches = new WeakMap<CpvAffinity, WeakMap<PreparedCompany, ReadonlyMap<string, AffinityReach>>>()

/** Every tender class the company's profile classes lead to, each with its strongest affinity. */
const NOWHERE: ReadonlyMap<string, AffinityReach> = new Map()

export const affinityReachOf = (
  company: PreparedCompany,
  affinity: CpvAffinity
): ReadonlyMap<string, AffinityReach> => {
  if (affinity.byClass.size === 0) return NOWHERE
  let byCompany = reaches.get(affinity)
  if (byCompany === undefined) {
    byCompany = new WeakMap()
    reaches.set(affinity, byCompany)
  }
  const cached = byCompany.get(company)
  if (cached !== undefined) return cached
  const reach = new Map<string, AffinityReach>()
  // Profile codes in the profile's order (watched first): a tie goes to the code listed first.
  for (const code of company.profileCodes) {
    const others = affinity.byClass.get(cpvClassOf(code))
    if (others === undefined) continue
    for (const [otherClass, found] of others) {
      const best = reach.get(otherClass)
      if (best === undefined || found.strength > best.affinity.strength)
        reach.set(otherClass, { affinity: found, profileCode: digitsOf(code) })
    }
  }
  byCompany.set(company, reach)
  return reach
}

/** An additional code describes a side of the tender: its affinity counts for a little less (as in CpvMatch). */
const ADDITIONAL_AFFINITY_FACTOR = 0.9

/** The cpv factor's affinity part: the tender code reached, the reach, and its score (0 when none). */
export interface AffinityMatch {
  readonly score: number
  readonly main: boolean
  /** The tender code as written. */
  readonly tenderCode: string
  readonly reach: AffinityReach
}

/** The best affinity of the tender's codes (main first) from the company's profile; null when none. */
export const bestAffinityMatch = (
  tenderCodes: CodeSet,
  company: PreparedCompany,
  affinity: CpvAffinity
): AffinityMatch | null => {
  const reach = affinityReachOf(company, affinity)
  if (reach.size === 0) return null
  let best: AffinityMatch | null = null
  for (let i = 0; i < tenderCodes.written.length; i++) {
    const found = reach.get(tenderCodes.digits[i]!.slice(0, 4))
    if (found === undefined) continue
    const score = AFFINITY_MAX_SCORE * found.affinity.strength * (i === 0 ? 1 : ADDITIONAL_AFFINITY_FACTOR)
    if (best === null || score > best.score)
      best = { score, main: i === 0, tenderCode: tenderCodes.written[i]!, reach: found }
  }
  return best
}
