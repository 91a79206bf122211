import { Either } from "effect"
import { type ParsedItem, parsed, parseJson, skipped } from "./ParsedItem.js"

/**
 * Native JSON: an array of records, `{"tenders": [...]}`, or one record object. Records are
 * referenced by position ("record 3", counting from 1); a file that is not JSON at all is one skip.
 */
export const parseNativeJson = (text: string): ReadonlyArray<ParsedItem> => {
  const file = parseJson("file", text)
  if (Either.isLeft(file)) return [file.left]
  const document = file.right
  if (typeof document !== "object" || document === null) {
    return [
      skipped(
        "file",
        `the document is ${document === null ? "null" : `a ${typeof document}`}, not a record, a list of records or {"tenders": [...]}`
      )
    ]
  }
  const records = Array.isArray(document)
    ? document
    : typeof document === "object" && document !== null && Array.isArray((document as { tenders?: unknown }).tenders)
      ? (document as { tenders: Array<unknown> }).tenders
      : [document]
  return records.map((record, index) => parsed(`record ${index + 1}`, record))
}

/** Native JSON-lines: one record per line; blank lines ignored; a line that is not JSON is skipped. */
export const parseNativeJsonLines = (text: string): ReadonlyArray<ParsedItem> => {
  const items: Array<ParsedItem> = []
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return
    const ref = `line ${index + 1}`
    items.push(Either.merge(Either.map(parseJson(ref, line), (record) => parsed(ref, record))))
  })
  return items
}
