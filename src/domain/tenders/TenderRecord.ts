import { Either, ParseResult, Schema } from "effect"
import { eurToRon, ronToEur } from "../Currency.js"
import { canonicalCounty } from "./CountyDistance.js"
import { type CpvCatalog, normalizeCpvCode } from "./Cpv.js"
import { romanianFiscalCodeOfNotice } from "./FiscalCode.js"
import { bucharestLocalToIso, END_OF_DAY, isCalendarDay } from "./LocalTime.js"
import { normalizeAuthorityName, normalizeRomanianText } from "./RomanianText.js"
import { storedSourceUrl } from "./SourceUrl.js"

/**
 * The most CPV codes a tender keeps (the main one and 99 more, as listed). Real notices list a few
 * (the sample files at most 12); a notice listing the whole table would be a candidate of every
 * company and score a row for each.
 */
export const MAX_CPV_CODES = 100

/** Far below numeric(18, 2)'s limit even after conversion to RON; no real tender comes near it. */
const MAX_VALUE = 1e15

const Money = Schema.Number.pipe(Schema.finite(), Schema.between(0, MAX_VALUE))

/**
 * An ISO 8601 instant as a source or a spreadsheet writes it. With an offset or Z it is kept; without
 * one it is Bucharest wall-clock time (`new Date` would read it in the machine's zone, UTC in
 * production); a bare day is that Bucharest day's start, or for a deadline its end: a tender due
 * "2026-03-15" takes bids through that day.
 */
const SourceInstant = (dayMeans: "start" | "end") =>
  Schema.transformOrFail(Schema.String, Schema.DateFromSelf, {
    strict: true,
    decode: (input, _, ast) => {
      const text = input.trim()
      const local = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{1,2}:\d{2}(?::\d{2})?)(?:\.\d+)?)?$/.exec(text)
      const iso =
        local === null
          ? text
          : bucharestLocalToIso(local[1]!, local[2] ?? (dayMeans === "end" ? END_OF_DAY : undefined))
      const date = iso === null ? null : new Date(iso)
      // `Date` reads "2026-02-29T12:00:00+02:00" as 1 March: the day written must exist.
      const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(text)
      const dayExists = day === null || isCalendarDay(Number(day[1]), Number(day[2]), Number(day[3]))
      return date === null || Number.isNaN(date.getTime()) || !dayExists
        ? ParseResult.fail(new ParseResult.Type(ast, input, `Expected a date, got "${input}"`))
        : ParseResult.succeed(date)
    },
    encode: (date) => ParseResult.succeed(date.toISOString())
  })
const Instant = SourceInstant("start")
const Deadline = SourceInstant("end")
const Text = Schema.String.pipe(Schema.filter((s) => s.trim().length > 0, { message: () => "must not be empty" }))

/**
 * The native tender record: what every format is parsed into, and what the JSON / JSON-lines / CSV
 * import formats carry as is. Dates are ISO 8601 strings (SourceInstant); values are plain numbers.
 */
export const TenderRecord = Schema.Struct({
  source: Text,
  source_id: Text,
  notice_type: Schema.optional(Schema.Literal("contract", "award")),
  title: Text,
  description: Schema.optional(Schema.NullOr(Schema.String)),
  /** The main code first. */
  cpv_codes: Schema.NonEmptyArray(Schema.String),
  contracting_authority: Schema.Struct({
    name: Text,
    fiscal_code: Schema.optional(Schema.NullOr(Schema.String)),
    county: Schema.optional(Schema.NullOr(Schema.String))
  }),
  deadline: Schema.optional(Schema.NullOr(Deadline)),
  estimated_value_ron: Schema.optional(Schema.NullOr(Money)),
  estimated_value_eur: Schema.optional(Schema.NullOr(Money)),
  publish_date: Instant,
  /**
   * When the source issued this version of the notice (eForms' issue date and time). A change
   * notice keeps its notice's source id; with it, an older version arriving later changes nothing.
   */
  issued_at: Schema.optional(Schema.NullOr(Instant)),
  /**
   * This version's own id when it is not the source id (an eForms change notice's UUID): a later
   * change that names this version, not the original, still finds the tender by it.
   */
  version_id: Schema.optional(Schema.NullOr(Schema.String)),
  /** Kept when it is an absolute http(s) URL, else stored as "" (SourceUrl.ts). */
  source_url: Schema.optional(Schema.NullOr(Schema.String)),
  /** Award notices: the winners' fiscal codes. */
  winner_fiscal_codes: Schema.optional(Schema.Array(Schema.String))
})
export type TenderRecordInput = typeof TenderRecord.Encoded

/**
 * A source's amount as the record's value fields: a positive amount in RON or EUR goes to its
 * field; another currency, or an amount that is not a positive number, gives no value.
 */
export const recordValueFields = (amount: number | undefined, currency: string | undefined) => {
  const known = amount !== undefined && Number.isFinite(amount) && amount > 0
  return {
    estimated_value_ron: known && currency === "RON" ? amount : null,
    estimated_value_eur: known && currency === "EUR" ? amount : null
  }
}

/** A contracting authority as stored: dedup key is the fiscal code, else the normalised name. */
export interface Authority {
  readonly name: string
  readonly normalizedName: string
  readonly fiscalCode: string | null
  readonly county: string | null
}

/** A tender ready to be stored: validated and normalised. */
export interface Tender {
  readonly source: string
  readonly sourceNoticeId: string
  readonly noticeType: "contract" | "award"
  readonly title: string
  readonly description: string
  readonly mainCpv: string
  readonly additionalCpvs: ReadonlyArray<string>
  readonly authority: Authority
  readonly deadline: Date | null
  readonly estimatedValueRon: number | null
  readonly estimatedValueEur: number | null
  readonly publishDate: Date
  /** When the source issued this version of the notice; null when the source does not say. */
  readonly issuedAt?: Date | null
  /** This version's own id when it is not `sourceNoticeId` (an eForms change notice's UUID). */
  readonly versionId?: string | null
  readonly sourceUrl: string
  /** Digits only, no RO prefix. */
  readonly winnerFiscalCodes: ReadonlyArray<string>
}

/** Both values, the missing one derived from the other at the fixed EUR_RON rate. */
export const completeValues = (ron: number | null, eur: number | null) => ({
  ron: ron ?? (eur === null ? null : eurToRon(eur)),
  eur: eur ?? (ron === null ? null : ronToEur(ron))
})

const formatParseError = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ")

/**
 * Validates a native record and normalises it for storage: Romanian text, CPV codes by catalog
 * lookup (main first, duplicates removed, the first MAX_CPV_CODES kept; any invalid code rejects the
 * record), fiscal codes (digits
 * only; unreadable ones dropped), the missing currency value, the link (only an http(s) URL is kept).
 * Left is the reason the record is skipped.
 */
export const normalizeTenderRecord = (catalog: CpvCatalog, input: unknown): Either.Either<Tender, string> =>
  Either.flatMap(
    Either.mapLeft(Schema.decodeUnknownEither(TenderRecord)(input, { errors: "all" }), formatParseError),
    (record) => {
      const kept = new Set<string>()
      for (const raw of record.cpv_codes) {
        const code = normalizeCpvCode(catalog, raw)
        if (Either.isLeft(code)) return Either.left(`cpv_codes: ${code.left}`)
        if (kept.size < MAX_CPV_CODES) kept.add(code.right)
      }
      const cpvs = [...kept]
      const authority = record.contracting_authority
      // Identifiers that are not Romanian fiscal codes (EU bodies, foreign national ids, "not available",
      // registry numbers) are dropped rather than the record: the authority is then deduplicated by name.
      const fiscalCode = romanianFiscalCodeOfNotice(authority.fiscal_code ?? "")
      const winners = [
        ...new Set(
          (record.winner_fiscal_codes ?? []).map(romanianFiscalCodeOfNotice).filter((c): c is string => c !== null)
        )
      ]
      const name = normalizeRomanianText(authority.name)
      if (normalizeAuthorityName(name) === "") {
        return Either.left(`contracting_authority.name: no letters or digits in "${authority.name}"`)
      }
      // One spelling per county whatever the source writes ("Constanta", "JUDETUL CONSTANTA", NUTS RO223):
      // the app shows and filters what is stored. A name that is no county is kept as written.
      const county = canonicalCounty(authority.county ?? "") ?? normalizeRomanianText(authority.county ?? "")
      const values = completeValues(record.estimated_value_ron ?? null, record.estimated_value_eur ?? null)
      return Either.right({
        source: record.source.trim(),
        sourceNoticeId: record.source_id.trim(),
        noticeType: record.notice_type ?? (winners.length > 0 ? "award" : "contract"),
        title: normalizeRomanianText(record.title),
        description: normalizeRomanianText(record.description ?? ""),
        mainCpv: cpvs[0]!,
        additionalCpvs: cpvs.slice(1),
        authority: { name, normalizedName: normalizeAuthorityName(name), fiscalCode, county: county || null },
        deadline: record.deadline ?? null,
        estimatedValueRon: values.ron,
        estimatedValueEur: values.eur,
        publishDate: record.publish_date,
        issuedAt: record.issued_at ?? null,
        versionId: record.version_id?.trim() || null,
        sourceUrl: storedSourceUrl(record.source_url),
        winnerFiscalCodes: winners
      })
    }
  )
