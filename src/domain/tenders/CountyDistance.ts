import { ROMANIAN_COUNTIES } from "./Counties.js"
import { foldForMatching } from "./RomanianText.js"

/**
 * Which of Romania's 41 counties and București share a border: the data behind "how far is this
 * tender from where a company works". Distance is the number of county borders crossed on the
 * shortest path (0 the same county, 1 a neighbour), which follows how far a crew or a supplier
 * travels better than straight-line kilometres between seats would, and needs no coordinates.
 * Each border is written once; the table is made symmetric below (a test checks every name).
 */
const BORDERS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["Alba", ["Arad", "Bihor", "Cluj", "Hunedoara", "Mureș", "Sibiu", "Vâlcea"]],
  ["Arad", ["Bihor", "Hunedoara", "Timiș"]],
  ["Argeș", ["Brașov", "Dâmbovița", "Olt", "Sibiu", "Teleorman", "Vâlcea"]],
  ["Bacău", ["Covasna", "Harghita", "Neamț", "Vaslui", "Vrancea"]],
  ["Bihor", ["Cluj", "Sălaj", "Satu Mare"]],
  ["Bistrița-Năsăud", ["Cluj", "Maramureș", "Mureș", "Suceava"]],
  ["Botoșani", ["Iași", "Suceava"]],
  ["Brașov", ["Buzău", "Covasna", "Dâmbovița", "Harghita", "Mureș", "Prahova", "Sibiu"]],
  ["Brăila", ["Buzău", "Constanța", "Galați", "Ialomița", "Tulcea", "Vrancea"]],
  ["București", ["Ilfov"]],
  ["Buzău", ["Covasna", "Ialomița", "Prahova", "Vrancea"]],
  ["Caraș-Severin", ["Gorj", "Hunedoara", "Mehedinți", "Timiș"]],
  ["Călărași", ["Constanța", "Giurgiu", "Ialomița", "Ilfov"]],
  ["Cluj", ["Maramureș", "Mureș", "Sălaj"]],
  ["Constanța", ["Ialomița", "Tulcea"]],
  ["Covasna", ["Harghita", "Vrancea"]],
  ["Dâmbovița", ["Giurgiu", "Ilfov", "Prahova", "Teleorman"]],
  ["Dolj", ["Gorj", "Mehedinți", "Olt", "Vâlcea"]],
  ["Galați", ["Tulcea", "Vaslui", "Vrancea"]],
  ["Giurgiu", ["Ilfov", "Teleorman"]],
  ["Gorj", ["Hunedoara", "Mehedinți", "Vâlcea"]],
  ["Harghita", ["Mureș", "Neamț", "Suceava"]],
  ["Hunedoara", ["Timiș", "Vâlcea"]],
  ["Ialomița", ["Ilfov", "Prahova"]],
  ["Iași", ["Neamț", "Suceava", "Vaslui"]],
  ["Ilfov", ["Prahova"]],
  ["Maramureș", ["Sălaj", "Satu Mare", "Suceava"]],
  ["Mureș", ["Sibiu", "Suceava"]],
  ["Neamț", ["Suceava", "Vaslui"]],
  ["Olt", ["Teleorman", "Vâlcea"]],
  ["Sălaj", ["Satu Mare"]],
  ["Sibiu", ["Vâlcea"]],
  ["Vaslui", ["Vrancea"]]
]

const byFolded = new Map(ROMANIAN_COUNTIES.map((county) => [foldForMatching(county).replace(/[^a-z]/g, ""), county]))

/** București with one of its six sectors ("Bucuresti Sector 4", "Municipiul București, Sectorul 2"), as addresses write it. */
const BUCHAREST_SECTOR = /^\s*(?:(?:municipiul|mun\.?)\s*)?bucuresti\s*[,-]?\s*sector(?:ul)?\s*[1-6]\s*$/

/**
 * The county's name as stored (`Vâlcea`, `București`) from how people and notices write it
 * (`valcea`, `JUDETUL VALCEA`, `Jud. Vâlcea`, `Municipiul Bucuresti`, `Bucuresti Sector 4`), or null
 * when it names none.
 */
export const canonicalCounty = (text: string): string | null => {
  if (BUCHAREST_SECTOR.test(foldForMatching(text))) return "București"
  const folded = foldForMatching(text)
    .replace(/^\s*(judetul|jud\.?|municipiul|mun\.?)\s+/, "")
    .replace(/[^a-z]/g, "")
  return byFolded.get(folded) ?? null
}

const neighbours = new Map<string, Set<string>>(ROMANIAN_COUNTIES.map((county) => [county, new Set<string>()]))
for (const [county, others] of BORDERS) {
  for (const other of others) {
    neighbours.get(county)!.add(other)
    neighbours.get(other)!.add(county)
  }
}

/** The counties bordering a county (empty for a name that is not a county). */
export const neighboursOf = (county: string): ReadonlySet<string> => neighbours.get(county) ?? new Set()

/** Every county's distance to every other (breadth-first from each; 42 × 42, computed once). */
const distances = new Map<string, Map<string, number>>()
for (const start of ROMANIAN_COUNTIES) {
  const reached = new Map([[start, 0]])
  let frontier = [start]
  while (frontier.length > 0) {
    const next: Array<string> = []
    for (const county of frontier) {
      for (const other of neighbours.get(county)!) {
        if (reached.has(other)) continue
        reached.set(other, reached.get(county)! + 1)
        next.push(other)
      }
    }
    frontier = next
  }
  distances.set(start, reached)
}

/** Borders crossed between two counties (0 the same one); null when either is not a Romanian county. */
export const countyDistance = (from: string, to: string): number | null => distances.get(from)?.get(to) ?? null
