import { Either } from "effect"
import type { CpvCatalog } from "../Cpv.js"
import { normalizeTenderRecord, type Tender } from "../TenderRecord.js"
import { readCsvHeader } from "./Csv.js"
import { parseEforms } from "./Eforms.js"
import { NATIVE_CSV_REQUIRED_COLUMNS, parseNativeCsv } from "./NativeCsv.js"
import { parseNativeJson, parseNativeJsonLines } from "./NativeJson.js"
import type { ParsedItem } from "./ParsedItem.js"
import { parseSicapDirectAwardsCsv, parseSicapJson, SICAP_DIRECT_AWARDS_HEADER } from "./Sicap.js"
import { parseTedXml } from "./TedXml.js"

export const IMPORT_FORMATS = ["auto", "json", "csv", "ted-xml", "eforms", "sicap"] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]
export type ConcreteFormat = Exclude<ImportFormat, "auto">

const SICAP_KEYS = /"(caNoticeId|noticeNo|contractingAuthorityNameAndFN|caNoticeEdit_New|cNoticeEdit_New)"/

/** Guesses the format from the content: XML root element, SICAP-specific JSON keys, CSV header. */
export const detectFormat = (text: string): ConcreteFormat => {
  const start = text.replace(/^\uFEFF/, "").trimStart()
  if (start.startsWith("<")) return /<([\w-]+:)?TED_EXPORT[\s>]/.test(start.slice(0, 4096)) ? "ted-xml" : "eforms"
  if (start.startsWith("{") || start.startsWith("[")) return SICAP_KEYS.test(start.slice(0, 65_536)) ? "sicap" : "json"
  const header = start.split(/\r?\n/, 1)[0] ?? ""
  return header.includes(SICAP_DIRECT_AWARDS_HEADER) ? "sicap" : "csv"
}

/** JSON-lines: the whole text is not one JSON document, but most of its lines are objects (a bad line is one skip). */
const isJsonLines = (text: string) => {
  try {
    JSON.parse(text)
    return false
  } catch {
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "")
    const objects = lines.filter((line) => line.trim().startsWith("{")).length
    return lines.length > 1 && objects * 2 >= lines.length
  }
}

/** Parses a whole input in the given format ("json" covers JSON-lines; "sicap" covers the direct-awards CSV). */
export const parseInput = (text: string, format: ImportFormat): ReadonlyArray<ParsedItem> => {
  const concrete = format === "auto" ? detectFormat(text) : format
  switch (concrete) {
    case "json":
      return isJsonLines(text) ? parseNativeJsonLines(text) : parseNativeJson(text)
    case "csv":
      return parseNativeCsv(text)
    case "ted-xml":
      return parseTedXml(text)
    case "eforms":
      return parseEforms(text)
    case "sicap":
      return text.trimStart().startsWith("{") || text.trimStart().startsWith("[")
        ? parseSicapJson(text)
        : parseSicapDirectAwardsCsv(text)
  }
}

export interface Skip {
  readonly ref: string
  readonly reason: string
}

/**
 * Parsed and normalised: the tenders to store, those of them whose notice says the procedure was
 * cancelled (their tenders are closed once stored), and every record skipped with its reason.
 */
export const readTenders = (
  text: string,
  format: ImportFormat,
  catalog: CpvCatalog
): {
  readonly tenders: ReadonlyArray<Tender>
  readonly cancelled: ReadonlyArray<Tender>
  readonly skips: ReadonlyArray<Skip>
} => {
  const tenders: Array<Tender> = []
  const cancelled: Array<Tender> = []
  const skips: Array<Skip> = []
  for (const item of parseInput(text, format)) {
    if (item._tag === "Skipped") {
      skips.push({ ref: item.ref, reason: item.reason })
      continue
    }
    const tender = normalizeTenderRecord(catalog, item.record)
    if (Either.isLeft(tender)) {
      skips.push({ ref: item.ref, reason: tender.left })
      continue
    }
    tenders.push(tender.right)
    if (item.cancelled === true) cancelled.push(tender.right)
  }
  return { tenders, cancelled, skips }
}

/**
 * Why a whole file is refused: `format` is the format that was tried (`csv (auto-detected: …)` when
 * detection chose it), `reason` what made the file unreadable in it. Nothing of such a file is stored.
 */
export interface FileRejected {
  readonly format: string
  readonly reason: string
}

/** Why detection chose a format, for the operator reading a refusal. */
const detectedBecause = (format: ConcreteFormat): string => {
  switch (format) {
    case "ted-xml":
      return "XML with a TED_EXPORT root"
    case "eforms":
      return "XML without a TED_EXPORT root"
    case "sicap":
      return "SICAP keys or header"
    case "json":
      return "starts with { or ["
    case "csv":
      return "neither XML nor JSON, so read as CSV"
  }
}

/**
 * The import of a whole file: the tenders and record-level skips, as readTenders gives them, or the
 * refusal of a file no format recognises or that is invalid as a whole: empty; not JSON / not XML
 * in the format named or detected; a CSV whose header lacks the required columns (a text file that
 * is not CSV reads as a header row of one unknown column); XML whose root no format reads; a JSON
 * document that is not a record, a list or `{"tenders": [...]}`. A refused file's message names the
 * format tried and why; record-level skips stay skips.
 */
export const readImport = (
  text: string,
  format: ImportFormat,
  catalog: CpvCatalog
): Either.Either<ReturnType<typeof readTenders>, FileRejected> => {
  const body = text.replace(/^\uFEFF/, "").trim()
  if (body === "")
    return Either.left({ format: format === "auto" ? "auto-detection" : format, reason: "the file is empty" })
  const concrete = format === "auto" ? detectFormat(text) : format
  const tried = format === "auto" ? `${concrete} (auto-detected: ${detectedBecause(concrete)})` : concrete
  const reject = (reason: string) => Either.left({ format: tried, reason })
  if (concrete === "csv") {
    const header = readCsvHeader(text)
    if (typeof header === "string") return reject(header)
    const missing = NATIVE_CSV_REQUIRED_COLUMNS.filter((column) => !header.includes(column))
    if (missing.length > 0) {
      const found = header.slice(0, 5).map((column) => JSON.stringify(column.slice(0, 40)))
      return reject(
        `the header row lacks the column${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (it has ${found.join(", ")}${header.length > 5 ? ", …" : ""})`
      )
    }
  }
  const fileLevel = parseInput(text, format).find((item) => item._tag === "Skipped" && item.ref === "file")
  if (fileLevel !== undefined && fileLevel._tag === "Skipped") return reject(fileLevel.reason)
  return Either.right(readTenders(text, format, catalog))
}
