/** Romania's NUTS 3 regions are its 41 counties and Bucharest: TED and eForms name them by code. */
const COUNTY_BY_NUTS3: Record<string, string> = {
  RO111: "Bihor",
  RO112: "Bistrița-Năsăud",
  RO113: "Cluj",
  RO114: "Maramureș",
  RO115: "Satu Mare",
  RO116: "Sălaj",
  RO121: "Alba",
  RO122: "Brașov",
  RO123: "Covasna",
  RO124: "Harghita",
  RO125: "Mureș",
  RO126: "Sibiu",
  RO211: "Bacău",
  RO212: "Botoșani",
  RO213: "Iași",
  RO214: "Neamț",
  RO215: "Suceava",
  RO216: "Vaslui",
  RO221: "Brăila",
  RO222: "Buzău",
  RO223: "Constanța",
  RO224: "Galați",
  RO225: "Tulcea",
  RO226: "Vrancea",
  RO311: "Argeș",
  RO312: "Călărași",
  RO313: "Dâmbovița",
  RO314: "Giurgiu",
  RO315: "Ialomița",
  RO316: "Prahova",
  RO317: "Teleorman",
  RO321: "București",
  RO322: "Ilfov",
  RO411: "Dolj",
  RO412: "Gorj",
  RO413: "Mehedinți",
  RO414: "Olt",
  RO415: "Vâlcea",
  RO421: "Arad",
  RO422: "Caraș-Severin",
  RO423: "Hunedoara",
  RO424: "Timiș"
}

/** The 41 counties and București, in Romanian alphabetical order: the app's county filter offers these. */
export const ROMANIAN_COUNTIES: ReadonlyArray<string> = Object.values(COUNTY_BY_NUTS3).sort((a, b) =>
  a.localeCompare(b, "ro")
)

/** The Romanian county of a NUTS code (level 3 or finer), or null (other countries, coarser codes). */
export const countyFromNuts = (code: string | undefined): string | null =>
  code === undefined ? null : (COUNTY_BY_NUTS3[code.trim().toUpperCase().slice(0, 5)] ?? null)
