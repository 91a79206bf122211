import { makeRandom } from "../src/demo/DemoData.js"
import { ronToEur } from "../src/domain/Currency.js"
import { normalizeRomanianText } from "../src/domain/tenders/RomanianText.js"
import type { CpvLabelRow } from "../src/infra/tenders/CpvTable.js"
import {
  type AuthorityKind,
  type DemoAuthority,
  PURCHASES_BY_KIND,
  SYNTHETIC_AUTHORITIES
} from "./SyntheticAuthorities.js"

/**
 * Synthetic tenders for the soak bench (bench/soak.ts), which needs thousands and a fresh batch per
 * import: phrases built from the real CPV labels, a deterministic function of (CPV table, seed, now).
 * (The demo of `npm start` was made this way until its titles read as nonsense to a Romanian reader;
 * it is now real notices, src/demo.) Its volume, not its wording, is what the bench needs.
 */

export const SYNTHETIC_TENDER_COUNT = 2400
export const SYNTHETIC_SEED = 20_260_101

/** A row of the `cpv_codes` table (the real CPV 2008 labels). */
export type CpvRow = CpvLabelRow

export interface SyntheticTender {
  readonly sourceNoticeId: string
  readonly title: string
  readonly description: string
  readonly mainCpv: string
  readonly additionalCpvs: ReadonlyArray<string>
  readonly authority: DemoAuthority
  readonly deadline: Date
  readonly estimatedValueRon: number
  readonly estimatedValueEur: number
  readonly publishDate: Date
  readonly sourceUrl: string
}

type Random = ReturnType<typeof makeRandom>

const DAY = 86_400_000
/** Publish dates fall in the last PUBLISH_WINDOW_DAYS; deadlines 15-60 days after, so some are past. */
const PUBLISH_WINDOW_DAYS = 120

/** RON values by nature of the purchase, log-uniform between realistic bounds, rounded to 100 RON. */
const VALUE_RANGE_RON: Record<string, readonly [number, number]> = {
  supplies: [15_000, 4_000_000],
  services: [20_000, 6_000_000],
  works: [150_000, 60_000_000]
}

const valueRon = (random: Random, nature: string) => {
  const [low, high] = VALUE_RANGE_RON[nature] ?? VALUE_RANGE_RON.services!
  const value = Math.exp(Math.log(low) + random.next() * (Math.log(high) - Math.log(low)))
  return Math.max(100, Math.round(value / 100) * 100)
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)

const PLACES: Record<AuthorityKind, ReadonlyArray<string>> = {
  municipality: [
    "în municipiu",
    "pe străzile din cartierul Centru",
    "la Școala Gimnazială nr. 5",
    "la sediul primăriei"
  ],
  town: ["în oraș", "pe strada Principală", "la Liceul Teoretic", "la Casa de Cultură"],
  commune: ["în comună", "pe drumurile comunale DC 12 și DC 14", "la Școala Gimnazială", "la Căminul Cultural"],
  county: ["pe drumul județean DJ 107", "în județ", "la sediul Consiliului Județean", "pe DJ 201"],
  hospital: ["pentru secțiile spitalului", "pentru blocul operator", "pentru laboratorul de analize", "pentru UPU"],
  university: [
    "pentru laboratoarele facultății",
    "pentru campusul universitar",
    "pentru biblioteca universității",
    "pentru căminele studențești"
  ],
  water: [
    "în aria de operare",
    "pentru stațiile de tratare",
    "pentru stațiile de epurare",
    "în localitățile din aria de operare"
  ]
}

const title = (random: Random, cpv: CpvRow, authority: DemoAuthority) => {
  const label = normalizeRomanianText(cpv.label_ro)
  const place = random.pick(PLACES[authority.kind])
  const lot = random.next() < 0.15 ? ` – lotul ${random.int(1, 6)}` : ""
  switch (cpv.nature) {
    case "supplies":
      return `${random.pick(["Furnizare", "Achiziție", "Acord-cadru pentru furnizare"])} ${lowerFirst(label)} ${place}${lot}`
    case "works":
      return `${random.pick(["Execuție", "Proiectare și execuție", "Lucrări:"])} ${lowerFirst(label)} ${place}${lot}`
    default:
      return `${label} ${place}${lot}`
  }
}

const description = (random: Random, cpv: CpvRow, authority: DemoAuthority, ron: number, months: number) =>
  [
    `${authority.name} (județul ${authority.county}) achiziționează: ${lowerFirst(normalizeRomanianText(cpv.label_ro))}.`,
    `Cod CPV principal ${cpv.code_full}. Valoare estimată ${ron.toLocaleString("ro-RO")} RON fără TVA.`,
    `Durata contractului: ${months} luni. Criteriul de atribuire: ${random.pick(["prețul cel mai scăzut", "cel mai bun raport calitate-preț"])}.`,
    random.pick([
      "Procedură: licitație deschisă.",
      "Procedură: procedură simplificată.",
      "Finanțare: PNRR.",
      "Finanțare: buget local.",
      "Finanțare: fonduri europene nerambursabile."
    ])
  ].join(" ")

/** The catalog codes under each prefix (finer than a division), the division's own code first. */
const codesByPrefix = (catalog: ReadonlyArray<CpvRow>) => {
  const prefixes = new Set(Object.values(PURCHASES_BY_KIND).flat())
  const byPrefix = new Map<string, Array<CpvRow>>()
  for (const row of catalog) {
    if (row.level === "division") continue
    for (const prefix of prefixes) {
      if (row.code_full.startsWith(prefix)) {
        const list = byPrefix.get(prefix) ?? []
        list.push(row)
        byPrefix.set(prefix, list)
      }
    }
  }
  return byPrefix
}

/**
 * `count` tenders over every demo authority: CPV codes from the real table (following what each kind
 * of authority buys), RON values with EUR at the fixed EUR_RON rate, publish dates over the last
 * four months and deadlines both past and future relative to `now`.
 */
export const generateSyntheticTenders = (options: {
  readonly catalog: ReadonlyArray<CpvRow>
  readonly now: number
  readonly seed?: number
  readonly count?: number
}): ReadonlyArray<SyntheticTender> => {
  const random = makeRandom(options.seed ?? SYNTHETIC_SEED)
  const count = options.count ?? SYNTHETIC_TENDER_COUNT
  const byPrefix = codesByPrefix(options.catalog)
  const tenders: Array<SyntheticTender> = []
  for (let i = 0; i < count; i++) {
    const authority = random.pick(SYNTHETIC_AUTHORITIES)
    const candidates = PURCHASES_BY_KIND[authority.kind].filter((prefix) => byPrefix.has(prefix))
    if (candidates.length === 0) throw new Error("the CPV table has none of the demo CPV prefixes")
    const group = byPrefix.get(random.pick(candidates))!
    const cpv = random.pick(group)
    const additional = new Set<string>()
    for (let k = random.int(0, 2); k > 0; k--) {
      const extra = random.pick(group).code_full
      if (extra !== cpv.code_full) additional.add(extra)
    }
    const ron = valueRon(random, cpv.nature)
    // Recent months are busier: squaring the fraction puts more notices near `now`.
    const ageDays = random.next() ** 1.4 * PUBLISH_WINDOW_DAYS
    const publishDate = new Date(Math.floor((options.now - ageDays * DAY) / 60_000) * 60_000)
    const deadline = new Date(publishDate.getTime() + random.int(15, 60) * DAY + random.int(9, 16) * 3_600_000)
    const noticeId = `DEMO-CN${1_100_000 + i}`
    tenders.push({
      sourceNoticeId: noticeId,
      title: title(random, cpv, authority),
      description: description(random, cpv, authority, ron, random.pick([3, 6, 12, 18, 24, 36])),
      mainCpv: cpv.code_full,
      additionalCpvs: [...additional],
      authority,
      deadline,
      estimatedValueRon: ron,
      estimatedValueEur: ronToEur(ron),
      publishDate,
      sourceUrl: `https://bench.licitatii.example/notices/${noticeId}`
    })
  }
  return tenders
}
