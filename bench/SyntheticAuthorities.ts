/**
 * The contracting authorities of the synthetic bench tenders (the soak bench; the demo itself is real notices): real kinds of Romanian buyers (town halls, county
 * councils, hospitals, universities, water companies) in several counties. Names follow the forms
 * used on SEAP; the set is illustrative, not a registry extract (no fiscal codes are invented).
 */

/** What an authority typically buys decides which CPV divisions its demo tenders draw from. */
export type AuthorityKind = "municipality" | "town" | "commune" | "county" | "hospital" | "university" | "water"

export interface DemoAuthority {
  readonly name: string
  readonly county: string
  readonly kind: AuthorityKind
}

interface CountyAuthorities {
  readonly county: string
  /** The county seat, a municipality. */
  readonly seat: string
  readonly towns: ReadonlyArray<string>
  readonly communes: ReadonlyArray<string>
  readonly hospital: string
  readonly university: string | null
  readonly water: string
}

const COUNTIES: ReadonlyArray<CountyAuthorities> = [
  {
    county: "Cluj",
    seat: "Cluj-Napoca",
    towns: ["Turda", "Dej"],
    communes: ["Florești", "Apahida"],
    hospital: "Spitalul Clinic Județean de Urgență Cluj",
    university: "Universitatea Babeș-Bolyai",
    water: "Compania de Apă Someș S.A."
  },
  {
    county: "Timiș",
    seat: "Timișoara",
    towns: ["Lugoj", "Sânnicolau Mare"],
    communes: ["Dumbrăvița", "Giroc"],
    hospital: "Spitalul Clinic Județean de Urgență „Pius Brînzeu” Timișoara",
    university: "Universitatea de Vest din Timișoara",
    water: "Aquatim S.A."
  },
  {
    county: "Iași",
    seat: "Iași",
    towns: ["Pașcani", "Hârlău"],
    communes: ["Miroslava", "Valea Lupului"],
    hospital: "Spitalul Clinic Județean de Urgență „Sf. Spiridon” Iași",
    university: "Universitatea „Alexandru Ioan Cuza” din Iași",
    water: "ApaVital S.A."
  },
  {
    county: "Constanța",
    seat: "Constanța",
    towns: ["Mangalia", "Medgidia"],
    communes: ["Valu lui Traian", "Cumpăna"],
    hospital: "Spitalul Clinic Județean de Urgență „Sf. Apostol Andrei” Constanța",
    university: "Universitatea „Ovidius” din Constanța",
    water: "RAJA S.A. Constanța"
  },
  {
    county: "Brașov",
    seat: "Brașov",
    towns: ["Făgăraș", "Râșnov"],
    communes: ["Sânpetru", "Hărman"],
    hospital: "Spitalul Clinic Județean de Urgență Brașov",
    university: "Universitatea Transilvania din Brașov",
    water: "Compania Apa Brașov S.A."
  },
  {
    county: "Bihor",
    seat: "Oradea",
    towns: ["Salonta", "Marghita"],
    communes: ["Sânmartin", "Oșorhei"],
    hospital: "Spitalul Clinic Județean de Urgență Oradea",
    university: "Universitatea din Oradea",
    water: "Compania de Apă Oradea S.A."
  },
  {
    county: "Dolj",
    seat: "Craiova",
    towns: ["Băilești", "Calafat"],
    communes: ["Ișalnița", "Malu Mare"],
    hospital: "Spitalul Clinic Județean de Urgență Craiova",
    university: "Universitatea din Craiova",
    water: "Compania de Apă Oltenia S.A."
  },
  {
    county: "Sibiu",
    seat: "Sibiu",
    towns: ["Mediaș", "Cisnădie"],
    communes: ["Șelimbăr", "Cristian"],
    hospital: "Spitalul Clinic Județean de Urgență Sibiu",
    university: "Universitatea „Lucian Blaga” din Sibiu",
    water: "Apă Canal Sibiu S.A."
  },
  {
    county: "Prahova",
    seat: "Ploiești",
    towns: ["Câmpina", "Sinaia"],
    communes: ["Bărcănești", "Blejoi"],
    hospital: "Spitalul Județean de Urgență Ploiești",
    university: "Universitatea Petrol-Gaze din Ploiești",
    water: "Hidro Prahova S.A."
  },
  {
    county: "Suceava",
    seat: "Suceava",
    towns: ["Fălticeni", "Rădăuți"],
    communes: ["Ipotești", "Șcheia"],
    hospital: "Spitalul Județean de Urgență „Sf. Ioan cel Nou” Suceava",
    university: "Universitatea „Ștefan cel Mare” din Suceava",
    water: "ACET S.A. Suceava"
  },
  {
    county: "Argeș",
    seat: "Pitești",
    towns: ["Mioveni", "Curtea de Argeș"],
    communes: ["Bradu", "Mărăcineni"],
    hospital: "Spitalul Județean de Urgență Pitești",
    university: "Universitatea Națională de Știință și Tehnologie Politehnica București – Centrul Universitar Pitești",
    water: "Apă Canal 2000 S.A. Pitești"
  },
  {
    county: "Mureș",
    seat: "Târgu Mureș",
    towns: ["Reghin", "Sighișoara"],
    communes: ["Sâncraiu de Mureș", "Sângeorgiu de Mureș"],
    hospital: "Spitalul Clinic Județean de Urgență Târgu Mureș",
    university: "Universitatea de Medicină, Farmacie, Științe și Tehnologie „George Emil Palade” din Târgu Mureș",
    water: "Compania Aquaserv S.A."
  },
  {
    county: "Galați",
    seat: "Galați",
    towns: ["Tecuci", "Târgu Bujor"],
    communes: ["Șendreni", "Smârdan"],
    hospital: "Spitalul Clinic Județean de Urgență „Sf. Apostol Andrei” Galați",
    university: "Universitatea „Dunărea de Jos” din Galați",
    water: "Apă Canal S.A. Galați"
  },
  {
    county: "Bacău",
    seat: "Bacău",
    towns: ["Onești", "Moinești"],
    communes: ["Hemeiuș", "Măgura"],
    hospital: "Spitalul Județean de Urgență Bacău",
    university: "Universitatea „Vasile Alecsandri” din Bacău",
    water: "CRAB S.A. Bacău"
  },
  {
    county: "Ilfov",
    seat: "Buftea",
    towns: ["Voluntari", "Otopeni"],
    communes: ["Chiajna", "Corbeanca"],
    hospital: "Spitalul Orășenesc Buftea",
    university: null,
    water: "Apă Canal Ilfov S.A."
  }
]

const BUCHAREST: ReadonlyArray<DemoAuthority> = [
  { name: "Primăria Municipiului București", county: "București", kind: "municipality" },
  { name: "Primăria Sectorului 1 București", county: "București", kind: "municipality" },
  { name: "Primăria Sectorului 3 București", county: "București", kind: "municipality" },
  { name: "Primăria Sectorului 6 București", county: "București", kind: "municipality" },
  { name: "Spitalul Clinic de Urgență București", county: "București", kind: "hospital" },
  { name: "Institutul Clinic Fundeni", county: "București", kind: "hospital" },
  { name: "Universitatea din București", county: "București", kind: "university" },
  {
    name: "Universitatea Națională de Știință și Tehnologie Politehnica București",
    county: "București",
    kind: "university"
  },
  { name: "Administrația Străzilor București", county: "București", kind: "county" }
]

const authoritiesOf = (c: CountyAuthorities): ReadonlyArray<DemoAuthority> => [
  { name: `Primăria Municipiului ${c.seat}`, county: c.county, kind: "municipality" },
  ...c.towns.map((town) => ({ name: `Primăria Orașului ${town}`, county: c.county, kind: "town" as const })),
  ...c.communes.map((commune) => ({
    name: `Primăria Comunei ${commune}`,
    county: c.county,
    kind: "commune" as const
  })),
  { name: `Consiliul Județean ${c.county}`, county: c.county, kind: "county" },
  { name: c.hospital, county: c.county, kind: "hospital" },
  ...(c.university === null ? [] : [{ name: c.university, county: c.county, kind: "university" as const }]),
  { name: c.water, county: c.county, kind: "water" }
]

export const SYNTHETIC_AUTHORITIES: ReadonlyArray<DemoAuthority> = [...BUCHAREST, ...COUNTIES.flatMap(authoritiesOf)]

/**
 * CPV prefixes each kind of authority buys from (weighted by repetition). Roads, buildings and
 * networks for local government; medical supplies for hospitals; IT and research for universities.
 */
export const PURCHASES_BY_KIND: Record<AuthorityKind, ReadonlyArray<string>> = {
  municipality: [
    "4523",
    "4523",
    "4521",
    "4526",
    "4531",
    "4545",
    "3414",
    "3916",
    "9091",
    "9051",
    "7131",
    "7132",
    "7222",
    "48",
    "302",
    "3913",
    "7934",
    "4511",
    "4533",
    "5011"
  ],
  town: ["4523", "4523", "4521", "4526", "4545", "4531", "9051", "3916", "7131", "302", "0913", "4511", "4533"],
  commune: ["4523", "4523", "4523", "4521", "4533", "4526", "0913", "3411", "9051", "7131", "4545"],
  county: ["4523", "4522", "4521", "7131", "7132", "7124", "7941", "7934", "48", "7222", "302", "4526", "5023"],
  hospital: ["3314", "3314", "331", "3311", "3312", "3319", "336", "3369", "158", "9091", "5042", "337", "4521", "302"],
  university: [
    "302",
    "3021",
    "48",
    "7222",
    "7226",
    "3843",
    "391",
    "3916",
    "4521",
    "4545",
    "80",
    "7953",
    "9091",
    "5532"
  ],
  water: ["4523", "4524", "4525", "4416", "4461", "3842", "4212", "904", "9041", "905", "7131", "5051", "0913"]
}
