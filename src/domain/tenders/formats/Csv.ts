import { parse } from "csv-parse/sync"
import { errorMessage, type ParsedItem, skipped } from "./ParsedItem.js"

export interface CsvRow {
  /** Line of the file where the record starts (1 = header). */
  readonly line: number
  readonly values: Readonly<Record<string, string>>
}

/**
 * Reads a CSV file with a header row into rows keyed by column name. A malformed record (wrong
 * column count, broken quoting) becomes a skip with its line number instead of failing the file.
 */
export const readCsv = (
  text: string
): { readonly rows: ReadonlyArray<CsvRow>; readonly skips: ReadonlyArray<ParsedItem> } => {
  const skips: Array<ParsedItem> = []
  try {
    const records = parse(text, {
      bom: true,
      columns: true,
      info: true,
      skip_empty_lines: true,
      trim: true,
      skip_records_with_error: true,
      on_skip: (error) => {
        const line = (error as { lines?: number } | undefined)?.lines
        skips.push(skipped(line === undefined ? "record" : `line ${line}`, errorMessage(error)))
        return undefined
      }
    }) as Array<{ info: { lines: number }; record: Record<string, string> }>
    return { rows: records.map(({ info, record }) => ({ line: info.lines, values: record })), skips }
  } catch (error) {
    return { rows: [], skips: [...skips, skipped("file", `not readable as CSV: ${errorMessage(error)}`)] }
  }
}

/** The column names of a CSV text's header row, or why it has none. */
export const readCsvHeader = (text: string): ReadonlyArray<string> | string => {
  try {
    const [header] = parse(text, { bom: true, to_line: 1, trim: true, relax_column_count: true }) as Array<
      Array<string>
    >
    return header === undefined ? "no header row" : header
  } catch (error) {
    return `not readable as CSV: ${errorMessage(error)}`
  }
}

/** "a; b ;c" → ["a", "b", "c"] ("" → []). */
export const splitList = (value: string | undefined): Array<string> =>
  (value ?? "")
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part !== "")

/** "" → null; "1234.5" → 1234.5; anything else stays a string so validation names it. */
export const numberOrNull = (value: string | undefined): number | string | null => {
  const trimmed = (value ?? "").trim()
  if (trimmed === "") return null
  const n = Number(trimmed)
  return Number.isFinite(n) ? n : trimmed
}

export const emptyToNull = (value: string | undefined): string | null => {
  const trimmed = (value ?? "").trim()
  return trimmed === "" ? null : trimmed
}
