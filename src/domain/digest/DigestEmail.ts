import { Duration } from "effect"
import { BUCHAREST_TIME_ZONE, bucharestDate } from "../BucharestTime.js"
import { clipped } from "../ClippedText.js"
import { formatRoNumber, romanianCount } from "../RomanianFormat.js"
import { escapeHtml } from "../reports/ReportTemplate.js"
import type { Verdict } from "../scoring/Verdict.js"
import { DIGEST_CLOSING_WITHIN } from "./DigestSchedule.js"

/** A tender as the digest lists it. */
export interface DigestTender {
  readonly title: string
  readonly authority: string
  readonly verdict: Verdict
  readonly score: number
  readonly deadline: Date | null
  readonly estimatedValueRon: number | null
}

/** The first few tenders of a section and how many there are in all. */
export interface DigestSection {
  readonly tenders: ReadonlyArray<DigestTender>
  readonly total: number
}

export interface CompanyDigest {
  readonly companyName: string
  /** Tenders that arrived since the previous digest and are GO for the company, still open. */
  readonly newGo: DigestSection
  /** Open GO and RESEARCH tenders whose deadline falls within DIGEST_CLOSING_WITHIN. */
  readonly closingSoon: DigestSection
}

export interface DigestContent {
  /** The instant the digest is made: deadlines are counted from it. */
  readonly now: Date
  readonly companies: ReadonlyArray<CompanyDigest>
  /** Unread alerts of the account (alerts are read per account, not per user). */
  readonly unreadAlerts: number
  /** Where the app is (PUBLIC_BASE_URL). */
  readonly appUrl: string
}

export interface RenderedDigest {
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** The app's Romanian verdict labels. */
export const VERDICT_LABELS: Record<Verdict, string> = { GO: "MERITĂ", RESEARCH: "DE ANALIZAT", SKIP: "NU MERITĂ" }

const hasNews = (company: CompanyDigest) => company.newGo.total > 0 || company.closingSoon.total > 0

/** Nothing new, nothing closing, nothing unread: such a day sends no e-mail. */
export const isEmptyDigest = (content: DigestContent): boolean =>
  content.unreadAlerts === 0 && !content.companies.some(hasNews)

const dateTime = new Intl.DateTimeFormat("ro-RO", {
  timeZone: BUCHAREST_TIME_ZONE,
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit"
})

/** `25.11.2026`, the Bucharest calendar day. */
export const romanianDate = (at: Date): string => {
  const [year, month, day] = bucharestDate(at.getTime()).split("-")
  return `${day}.${month}.${year}`
}

const DAY_MS = 86_400_000

/** "azi", "mâine", "în 3 zile": Bucharest calendar days from `now` to the deadline. */
const whenDue = (deadline: Date, now: Date) => {
  const days = Math.round(
    (Date.parse(bucharestDate(deadline.getTime())) - Date.parse(bucharestDate(now.getTime()))) / DAY_MS
  )
  return days <= 0 ? "azi" : days === 1 ? "mâine" : `în ${romanianCount(days, "zi", "zile")}`
}

/** The facts of one tender line, in reading order. */
const facts = (tender: DigestTender, now: Date) => [
  `scor ${tender.score}`,
  ...(tender.estimatedValueRon === null ? [] : [`valoare estimată ${formatRoNumber(tender.estimatedValueRon)} lei`]),
  tender.deadline === null
    ? "fără termen-limită"
    : `termen ${dateTime.format(tender.deadline)} (${whenDue(tender.deadline, now)})`
]

const CLOSING_DAYS = Math.round(Duration.toMillis(DIGEST_CLOSING_WITHIN) / DAY_MS)

const sectionTitles = {
  newGo: (n: number) => `Licitații noi care merită (${formatRoNumber(n)})`,
  closingSoon: (n: number) => `Se închid în următoarele ${CLOSING_DAYS} zile (${formatRoNumber(n)})`
}

const more = (section: DigestSection) =>
  section.total > section.tenders.length
    ? `și încă ${formatRoNumber(section.total - section.tenders.length)}`
    : undefined

const subjectOf = (content: DigestContent) => {
  const newGo = content.companies.reduce((n, c) => n + c.newGo.total, 0)
  const closing = content.companies.reduce((n, c) => n + c.closingSoon.total, 0)
  const parts = [
    ...(newGo > 0 ? [`${romanianCount(newGo, "licitație nouă", "licitații noi")} care merită`] : []),
    ...(closing > 0 ? [`${closing === 1 ? "1 se închide" : `${formatRoNumber(closing)} se închid`} curând`] : []),
    ...(content.unreadAlerts > 0 ? [romanianCount(content.unreadAlerts, "alertă necitită", "alerte necitite")] : [])
  ]
  return `Rezumatul zilei ${romanianDate(content.now)}: ${parts.join(", ")}`
}

const FOOTER = "Primiți acest e-mail pentru că ați activat rezumatul zilnic. Îl puteți opri din Setări, în aplicație."

/**
 * A value on one line of the plain-text part: a company name typed with a line break (or a notice's
 * text) must not add lines that read as the digest's own ("== Another company ==").
 */
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

/**
 * The longest title and authority name a digest prints (characters), cut at a word with "…" as the
 * PDF report does: 20 lines of notices with titles of thousands of characters would take the e-mail
 * past Gmail's 102 KB, where it hides the rest (the footer with how to turn the digest off).
 */
export const DIGEST_TITLE_MAX = 300
export const DIGEST_AUTHORITY_MAX = 150

/** A tender's title and authority as the digest prints them: on one line, clipped. */
const titleOf = (tender: DigestTender) => clipped(oneLine(tender.title), DIGEST_TITLE_MAX)
const authorityOf = (tender: DigestTender) => clipped(oneLine(tender.authority), DIGEST_AUTHORITY_MAX)

const textOf = (content: DigestContent) => {
  const lines = [`Bună ziua,`, "", `Rezumatul licitațiilor pentru ${romanianDate(content.now)}.`, ""]
  lines.push(`Alerte necitite: ${formatRoNumber(content.unreadAlerts)}`)
  for (const company of content.companies.filter(hasNews)) {
    lines.push("", `== ${oneLine(company.companyName)} ==`)
    for (const key of ["newGo", "closingSoon"] as const) {
      const section = company[key]
      if (section.total === 0) continue
      lines.push("", `${sectionTitles[key](section.total)}:`)
      for (const tender of section.tenders) {
        const verdict = key === "closingSoon" ? `[${VERDICT_LABELS[tender.verdict]}] ` : ""
        lines.push(
          `  • ${verdict}${titleOf(tender)}`,
          `    ${authorityOf(tender)}; ${facts(tender, content.now).join("; ")}`
        )
      }
      const rest = more(section)
      if (rest !== undefined) lines.push(`  … ${rest}`)
    }
  }
  lines.push("", `Deschideți aplicația: ${content.appUrl}/`, "", "--", FOOTER)
  return lines.join("\n")
}

const htmlOf = (content: DigestContent) => {
  const e = escapeHtml
  const companies = content.companies.filter(hasNews).map((company) => {
    const sections = (["newGo", "closingSoon"] as const)
      .filter((key) => company[key].total > 0)
      .map((key) => {
        const section = company[key]
        const items = section.tenders
          .map(
            (tender) =>
              `<li style="margin:0 0 8px"><strong>${e(titleOf(tender))}</strong>` +
              (key === "closingSoon" ? ` <span style="color:#555">[${e(VERDICT_LABELS[tender.verdict])}]</span>` : "") +
              `<br><span style="color:#555">${e(authorityOf(tender))}; ${e(facts(tender, content.now).join("; "))}</span></li>`
          )
          .join("")
        const rest = more(section)
        return (
          `<h3 style="font-size:15px;margin:12px 0 6px">${e(sectionTitles[key](section.total))}</h3><ul style="padding-left:18px;margin:0">${items}</ul>` +
          (rest === undefined ? "" : `<p style="color:#555;margin:4px 0">… ${e(rest)}</p>`)
        )
      })
      .join("")
    return `<h2 style="font-size:17px;margin:20px 0 4px;border-bottom:1px solid #ddd">${e(company.companyName)}</h2>${sections}`
  })
  return [
    `<!doctype html><html lang="ro"><head><meta charset="utf-8"><title>${e(subjectOf(content))}</title></head>`,
    `<body style="font-family:Arial,Helvetica,sans-serif;color:#222;max-width:680px;margin:0 auto;padding:16px">`,
    `<p>Bună ziua,</p><p>Rezumatul licitațiilor pentru <strong>${e(romanianDate(content.now))}</strong>.</p>`,
    `<p>Alerte necitite: <strong>${e(formatRoNumber(content.unreadAlerts))}</strong></p>`,
    ...companies,
    `<p style="margin-top:24px"><a href="${e(content.appUrl)}/">Deschideți aplicația</a></p>`,
    `<p style="color:#777;font-size:12px">${e(FOOTER)}</p></body></html>`
  ].join("\n")
}

/** The digest e-mail in Romanian: a subject, a plain-text part and its HTML alternative. */
export const renderDigest = (content: DigestContent): RenderedDigest => ({
  subject: subjectOf(content),
  text: textOf(content),
  html: htmlOf(content)
})
