import { Either } from "effect"
import type { CpvCatalog } from "../Cpv.js"
import { normalizeTenderRecord, type Tender } from "../TenderRecord.js"
import { parseEforms } from "./Eforms.js"
import { parseNativeCsv } from "./NativeCsv.js"
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

/** Parsed and normalised: the tenders to store, and every record skipped with its reason. */
export const readTenders = (
  text: string,
  format: ImportFormat,
  catalog: CpvCatalog
): { readonly tenders: ReadonlyArray<Tender>; readonly skips: ReadonlyArray<Skip> } => {
  const tenders: Array<Tender> = []
  const skips: Array<Skip> = []
  for (const item of parseInput(text, format)) {
    if (item._tag === "Skipped") {
      skips.push({ ref: item.ref, reason: item.reason })
      continue
    }
    const tender = normalizeTenderRecord(catalog, item.record)
    if (Either.isRight(tender)) tenders.push(tender.right)
    else skips.push({ ref: item.ref, reason: tender.left })
  }
  return { tenders, skips }
}
