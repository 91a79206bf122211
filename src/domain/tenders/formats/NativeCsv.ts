import { emptyToNull, numberOrNull, readCsv, splitList } from "./Csv.js"
import { type ParsedItem, parsed } from "./ParsedItem.js"

/**
 * The native CSV columns: the native record's fields, with `cpv_codes` and `winner_fiscal_codes`
 * joined by ";" and the authority flattened into three columns.
 */
export const NATIVE_CSV_COLUMNS = [
  "source",
  "source_id",
  "notice_type",
  "title",
  "description",
  "cpv_codes",
  "contracting_authority_name",
  "contracting_authority_fiscal_code",
  "contracting_authority_county",
  "deadline",
  "estimated_value_ron",
  "estimated_value_eur",
  "publish_date",
  "source_url",
  "winner_fiscal_codes"
] as const

/** The columns a native CSV file must have (a record without them cannot be valid). */
export const NATIVE_CSV_REQUIRED_COLUMNS = [
  "source",
  "source_id",
  "title",
  "cpv_codes",
  "contracting_authority_name",
  "publish_date"
] as const

/** Native CSV: one record per row; only `source`, `source_id`, `title`, `cpv_codes`, `contracting_authority_name` and `publish_date` are required. */
export const parseNativeCsv = (text: string): ReadonlyArray<ParsedItem> => {
  const { rows, skips } = readCsv(text)
  const items = rows.map(({ line, values: v }) =>
    parsed(`line ${line}`, {
      source: v.source,
      source_id: v.source_id,
      ...(emptyToNull(v.notice_type) === null ? {} : { notice_type: v.notice_type }),
      title: v.title,
      description: v.description ?? "",
      cpv_codes: splitList(v.cpv_codes),
      contracting_authority: {
        name: v.contracting_authority_name,
        fiscal_code: emptyToNull(v.contracting_authority_fiscal_code),
        county: emptyToNull(v.contracting_authority_county)
      },
      deadline: emptyToNull(v.deadline),
      estimated_value_ron: numberOrNull(v.estimated_value_ron),
      estimated_value_eur: numberOrNull(v.estimated_value_eur),
      publish_date: v.publish_date,
      source_url: v.source_url ?? "",
      winner_fiscal_codes: splitList(v.winner_fiscal_codes)
    })
  )
  return [...skips, ...items].sort(byLine)
}

const lineOf = (item: ParsedItem) => Number(/^line (\d+)$/.exec(item.ref)?.[1] ?? 0)
const byLine = (a: ParsedItem, b: ParsedItem) => lineOf(a) - lineOf(b)
