import { countyDistance } from "../tenders/CountyDistance.js"

/**
 * Where a company works, and how near a tender is to it. The counties are the company's own when
 * it set them, else inferred from its award history: a county counts when at least
 * INFERRED_MIN_SHARE of its awards (with a known county) came from there, or INFERRED_MIN_AWARDS
 * of them did. A share, so one stray contract far away does not make a firm "work there"; a
 * count, so a big firm's second region is not lost among its many awards at home.
 */
export const INFERRED_MIN_SHARE = 0.2
export const INFERRED_MIN_AWARDS = 3

/** How near a tender's county is, by borders crossed: same county 1, neighbour 0.6, two away 0.3, else 0. */
export const PROXIMITY_BY_DISTANCE: ReadonlyArray<number> = [1, 0.6, 0.3]

/** The company's counties and where they come from: set by the user, or inferred from its awards. */
export interface CompanyCounties {
  readonly counties: ReadonlyArray<string>
  readonly source: "set" | "awards"
}

/** Counties of the awards as the rule above infers them; the most awards first (ties: alphabetical). */
export const inferCounties = (history: ReadonlyArray<{ readonly county?: string | null }>): ReadonlyArray<string> => {
  const counts = new Map<string, number>()
  let known = 0
  for (const award of history) {
    if (award.county == null) continue
    known++
    counts.set(award.county, (counts.get(award.county) ?? 0) + 1)
  }
  return [...counts]
    .filter(([, count]) => count >= INFERRED_MIN_AWARDS || count >= INFERRED_MIN_SHARE * known)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b, "ro"))
    .map(([county]) => county)
}

/** The counties a company works in: its own when it set any, else inferred from its awards. */
export const companyCountiesOf = (company: {
  readonly counties?: ReadonlyArray<string> | null
  readonly history: ReadonlyArray<{ readonly county?: string | null }>
}): CompanyCounties =>
  company.counties != null && company.counties.length > 0
    ? { counties: company.counties, source: "set" }
    : { counties: inferCounties(company.history), source: "awards" }

/** The nearest of the company's counties to a tender's county, with its distance; null when unknown. */
export interface Nearest {
  readonly distance: number
  readonly proximity: number
}

export const nearestCounty = (tenderCounty: string | null, counties: ReadonlyArray<string>): Nearest | null => {
  if (tenderCounty === null) return null
  let best: number | null = null
  for (const county of counties) {
    const distance = countyDistance(tenderCounty, county)
    if (distance !== null && (best === null || distance < best)) best = distance
  }
  return best === null ? null : { distance: best, proximity: PROXIMITY_BY_DISTANCE[best] ?? 0 }
}
