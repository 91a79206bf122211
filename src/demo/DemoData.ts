import { ronToEur } from "../domain/Currency.js"
import type { WatchlistFields } from "../infra/accounts/WatchlistsRepo.js"
import type { DemoNotice } from "./DemoNotices.js"

/**
 * The demo data set as plain values: the real notices of `data/demo/notices.json` (see
 * DemoNotices.ts) with their dates moved to `now`, a deterministic function of (notices, seed, now).
 * Writing it to the database is `seedDemo.ts`'s job.
 */

export const DEMO_SOURCE = "demo"
export const DEMO_SEED = 20_260_101

export const DEMO_TENANT_NAME = "Demo Consultanță Achiziții SRL"
export const DEMO_EMAIL = "demo@licitatii.example"
export const DEMO_PASSWORD = "demo-licitatii-2026"

export interface DemoTender {
  readonly sourceNoticeId: string
  readonly title: string
  readonly description: string
  readonly mainCpv: string
  readonly additionalCpvs: ReadonlyArray<string>
  readonly authority: { readonly name: string; readonly fiscalCode: string | null; readonly county: string | null }
  readonly deadline: Date
  readonly estimatedValueRon: number | null
  readonly estimatedValueEur: number | null
  readonly publishDate: Date
  readonly sourceUrl: string
}

/** A watchlist's fields, without an authority, for the company it is listed under. */
export type DemoWatchlist = Omit<WatchlistFields, "authorityId" | "companyId">

export interface DemoCompany {
  readonly name: string
  readonly fiscalCode: string
  readonly description: string
  readonly watchlists: ReadonlyArray<DemoWatchlist>
}

/**
 * The consultant's three client companies (fictitious), each in a trade the real notices buy a lot
 * of: design and site supervision for the PNRR renovations (CPV 71), consultancy for funding
 * applications and project management (72224, 794), and school equipment (30, 32, 37, 39, 48).
 */
export const DEMO_COMPANIES: ReadonlyArray<DemoCompany> = [
  {
    name: "Proiect Expert Inginerie SRL",
    fiscalCode: "31457820",
    description:
      "Birou de proiectare și inginerie pentru autorități locale: proiectare tehnică (SF, DALI, DTAC, PT), verificare tehnică a proiectelor, expertiză tehnică, audit energetic și dirigenție de șantier pentru renovarea energetică a școlilor, dispensarelor și blocurilor.",
    watchlists: [
      {
        name: "Proiectare și verificare tehnică",
        cpvCodes: ["71320000-7", "71328000-3", "71319000-7"],
        keywords: ["proiectare", "verificare tehnică", "expertiză tehnică"],
        minValue: 5_000,
        maxValue: 600_000,
        minScore: 50
      },
      {
        name: "Audit energetic și dirigenție de șantier",
        cpvCodes: ["71314300-5", "71520000-9"],
        keywords: ["audit energetic", "dirigenție de șantier", "renovare energetică"],
        minValue: 3_000,
        maxValue: 400_000,
        minScore: 50
      }
    ]
  },
  {
    name: "Fonduri și Proiecte Consult SRL",
    fiscalCode: "40128835",
    description:
      "Consultanță pentru accesarea fondurilor europene și PNRR: elaborarea cererilor de finanțare, managementul proiectelor, consultanță în achiziții publice, servicii de informare și publicitate pentru proiectele finanțate.",
    watchlists: [
      {
        name: "Cereri de finanțare și management de proiect",
        cpvCodes: ["72224000-1", "79400000-8"],
        keywords: ["cerere de finanțare", "managementul proiectului", "consultanță"],
        minValue: 5_000,
        maxValue: 300_000,
        minScore: 50
      },
      {
        name: "Achiziții publice și publicitate",
        cpvCodes: ["79418000-7", "79341000-6"],
        keywords: ["achiziții", "publicitate", "informare"],
        minValue: 1_000,
        maxValue: 150_000,
        minScore: 50
      }
    ]
  },
  {
    name: "Dotări Școlare Digitale SRL",
    fiscalCode: "42768315",
    description:
      "Furnizor de dotări pentru unitățile de învățământ și instituții: echipamente IT și digitale (laptopuri, tablete, table interactive), software educațional, mobilier școlar, materiale didactice, echipamente sportive și sisteme de supraveghere video.",
    watchlists: [
      {
        name: "Echipamente IT și digitale",
        cpvCodes: ["30200000-1", "32323500-8", "48000000-8"],
        keywords: ["echipamente digitale", "laptop", "tablete", "supraveghere video"],
        minValue: 5_000,
        maxValue: 2_000_000,
        minScore: 50
      },
      {
        name: "Mobilier, materiale didactice și sport",
        cpvCodes: ["39160000-1", "39162000-5", "37400000-2"],
        keywords: ["mobilier", "materiale didactice", "echipamente sportive"],
        minValue: 5_000,
        maxValue: 1_000_000,
        minScore: 50
      }
    ]
  }
]

/** mulberry32: a small, fast, seedable PRNG (the same seed always yields the same sequence). */
export const makeRandom = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
  }
}

type Random = ReturnType<typeof makeRandom>

const DAY = 86_400_000
const HOUR = 3_600_000
/** Publication days are spread over the last PUBLISH_WINDOW_DAYS, in the notices' real order. */
const PUBLISH_WINDOW_DAYS = 45
/** Every deadline lies 2-60 days after `now`, so the whole demo is open when it is seeded. */
const DEADLINE_DAYS = [2, 60] as const

/** A deadline at a Bucharest office hour (09:00-16:00, i.e. 07:00-14:00 UTC in winter) on a day after `now`. */
const deadlineAfter = (random: Random, now: number) => {
  const day = Math.floor(now / DAY) + random.int(DEADLINE_DAYS[0], DEADLINE_DAYS[1])
  return new Date(day * DAY + random.int(7, 14) * HOUR)
}

/**
 * The demo tenders: every notice once, as a contract notice of the `demo` source under its own
 * notice id, with its real title, CPV codes, authority, county and value (EUR at the fixed EUR_RON
 * rate). Only the dates are the demo's: publication over the last weeks in the notices' real order
 * (the oldest first), deadlines 2-60 days ahead of `now`; no winners (they are open calls here).
 */
export const demoTenders = (options: {
  readonly notices: ReadonlyArray<DemoNotice>
  readonly now: number
  readonly seed?: number
}): ReadonlyArray<DemoTender> => {
  const random = makeRandom(options.seed ?? DEMO_SEED)
  const ordered = [...options.notices].sort(
    (a, b) => a.publishedOn.localeCompare(b.publishedOn) || a.noticeId.localeCompare(b.noticeId)
  )
  const last = Math.max(1, ordered.length - 1)
  return ordered.map((notice, rank) => {
    const ageDays = 1 + ((last - rank) / last) * (PUBLISH_WINDOW_DAYS - 1)
    const publishDate = new Date(Math.floor((options.now - ageDays * DAY) / 60_000) * 60_000)
    return {
      sourceNoticeId: notice.noticeId,
      title: notice.title,
      description: notice.description,
      mainCpv: notice.mainCpv,
      additionalCpvs: notice.additionalCpvs,
      authority: { name: notice.authorityName, fiscalCode: notice.authorityFiscalCode, county: notice.county },
      deadline: deadlineAfter(random, options.now),
      estimatedValueRon: notice.valueRon,
      estimatedValueEur: notice.valueRon === null ? null : ronToEur(notice.valueRon),
      publishDate,
      sourceUrl: notice.sourceUrl
    }
  })
}
