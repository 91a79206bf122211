/**
 * Case 2: companies known only by what a consultant writes about them (one or two sentences, in
 * Romanian, as a client would describe its trade). Each trade names, up front, the CPV families
 * (leading digits of the CPV 2008 tree) that make up the trade, by the meaning of the CPV branches,
 * not by looking at individual notices; a notice is relevant to a profile when its main CPV code
 * lies in one of those families. A notice may belong to no trade, or to more than one.
 */
export interface TradeProfile {
  readonly trade: string
  readonly name: string
  readonly description: string
  /** CPV families of the trade: code prefixes, with what each branch is. */
  readonly families: ReadonlyArray<readonly [prefix: string, label: string]>
}

export const TRADE_PROFILES: ReadonlyArray<TradeProfile> = [
  {
    trade: "advertising",
    name: "Vizual Promo SRL",
    description:
      "Agenție de publicitate care realizează campanii de informare și promovare pentru proiectele cu finanțare europeană: " +
      "panouri, afișe, autocolante, materiale promoționale și anunțuri în presă.",
    families: [
      ["7934", "advertising and marketing services"],
      ["2246", "advertising material, printed"],
      ["224591", "stickers and advertising strips"],
      ["39294", "information and promotion products"],
      ["35261", "information panels"],
      ["924", "news-agency services"]
    ]
  },
  {
    trade: "design",
    name: "Atelier Proiect Construct SRL",
    description:
      "Birou de proiectare în construcții: întocmim studii de fezabilitate, proiecte tehnice și detalii de execuție " +
      "pentru clădiri publice, drumuri și rețele de utilități, inclusiv verificarea proiectelor.",
    families: [
      ["7122", "architectural design services"],
      ["7124", "architectural, engineering and planning services (feasibility, estimates)"],
      ["7132", "engineering design services (incl. verification of designs)"],
      ["7141", "urban planning services"]
    ]
  },
  {
    trade: "engineering-expertise",
    name: "Expert Tehnic Inginerie SRL",
    description:
      "Realizăm expertize tehnice ale clădirilor și structurilor, audituri energetice și certificate de performanță " +
      "energetică, studii geotehnice și ridicări topografice.",
    families: [
      ["7131", "consulting engineering (energy, expertise, advisory)"],
      ["7133", "miscellaneous engineering (geotechnics, technical studies)"],
      ["7135", "scientific and technical services (surveying, cadastre, technical control)"],
      ["7162", "technical analysis and consultancy"],
      ["7163", "technical inspection and testing"]
    ]
  },
  {
    trade: "eu-funds-consulting",
    name: "Fonduri Consult Management SRL",
    description:
      "Firmă de consultanță pentru accesarea fondurilor europene: scriem cereri de finanțare, asigurăm managementul " +
      "proiectelor finanțate și oferim consultanță în achiziții publice.",
    families: [
      ["72224", "project management consultancy"],
      ["794", "business and management consultancy"],
      ["7931", "market and business research (incl. feasibility studies)"],
      ["7322", "development consultancy"],
      ["66171", "financial consultancy"]
    ]
  },
  {
    trade: "site-supervision",
    name: "Diriginte Șantier Expert SRL",
    description:
      "Asigurăm dirigenție de șantier și supravegherea lucrărilor de construcții pentru beneficiari publici, " +
      "cu dirigenți autorizați pe toate domeniile.",
    families: [
      ["71247", "supervision of building work"],
      ["7152", "construction supervision services"],
      ["7153", "construction consultancy"],
      ["7154", "construction management"]
    ]
  },
  {
    trade: "construction-works",
    name: "Renovare Construct Grup SRL",
    description:
      "Antreprenor general de construcții: renovare și reabilitare de clădiri publice, reparații generale, " +
      "anvelopări termice și lucrări de instalații.",
    families: [["45", "construction work (all of division 45)"]]
  },
  {
    trade: "it",
    name: "Digital Integrator Sistem SRL",
    description:
      "Integrator IT: livrăm calculatoare, laptopuri și echipamente de rețea, licențe software și dezvoltăm " +
      "aplicații și platforme informatice pentru instituții publice.",
    families: [
      ["302", "computer equipment and supplies"],
      ["48", "software packages and information systems"],
      ["7221", "programming services"],
      ["7225", "system and support services"],
      ["7226", "software-related services"],
      ["5032", "repair and maintenance of computer equipment"]
    ]
  },
  {
    trade: "school-equipment",
    name: "Dotări Școlare Educativ SRL",
    description:
      "Furnizăm mobilier școlar, material didactic, jucării și echipamente sportive pentru grădinițe, școli și " +
      "cluburi sportive.",
    families: [
      ["391", "furniture, incl. school furniture and educational supplies (3916)"],
      ["37", "musical instruments, sports goods, games, toys"]
    ]
  }
]

export const inTrade = (profile: TradeProfile, cpv: string) => {
  const digits = cpv.replace(/\D/g, "")
  return profile.families.some(([prefix]) => digits.startsWith(prefix))
}
