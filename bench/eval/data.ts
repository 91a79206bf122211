/**
 * The real SEAP direct awards (bench/data, 358 rows, 2021-03 to 2024-03) as the harness reads them,
 * and the files the eval imports through the CLI: award notices as SEAP's own CSV export (the
 * `sicap` importer), open notices as native JSON-lines records (notice type `contract`, no winner,
 * a deadline in the future, so they count as open).
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { parse } from "csv-parse/sync"
import type { Notice } from "./rankers.js"

export const CSV_PATH = fileURLToPath(new URL("../data/sicap_pnrr_direct_awards_until_2024-03.csv", import.meta.url))

export interface Award extends Notice {
  /** SEAP's notice number (DAN…): the award notice's id, and the key of its open twin. */
  readonly noticeNo: string
  readonly date: string
  readonly winner: string
  readonly winnerName: string
  readonly authorityName: string
  readonly authorityFiscalCode: string
  readonly authorityCounty: string
  readonly valueRon: number | null
  /** The CSV row as read, to write the award-notice file in SEAP's own format. */
  readonly row: Record<string, string>
}

const raw = fs.readFileSync(CSV_PATH, "utf8")
const rows = parse(raw, { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>
export const CSV_HEADER = Object.keys(rows[0]!)

/** Every award with a CPV code and a winner, oldest first (date, then SEAP id). */
export const awards: ReadonlyArray<Award> = rows
  .map((row) => {
    const cpv = /^([0-9]{8}-[0-9])/.exec(row["item.cpvCode"] ?? "")
    const value = Number(row["item.awardedValue"])
    return {
      key: row["item.noticeNo"]!,
      noticeNo: row["item.noticeNo"]!,
      title: row["item.contractObject"] ?? "",
      description: "",
      mainCpv: cpv?.[1] ?? "",
      date: row["item.publicationDate"]!,
      winner: (row["details.noticeEntityAddress.fiscalNumber"] ?? "").replace(/\D/g, ""),
      winnerName: row["details.noticeEntityAddress.organization"] ?? "",
      authorityName: row["authority.entityName"] ?? "",
      authorityFiscalCode: row["authority.fiscalNumber"] ?? "",
      authorityCounty: row["authority.county"] ?? "",
      valueRon: Number.isFinite(value) && value > 0 ? value : null,
      row
    }
  })
  .filter((a) => a.mainCpv !== "" && a.winner !== "" && a.noticeNo !== "")
  .sort((a, b) => a.date.localeCompare(b.date) || a.noticeNo.localeCompare(b.noticeNo))

/** Awards by winner, oldest first. */
export const awardsByWinner = (): Map<string, Array<Award>> => {
  const byWinner = new Map<string, Array<Award>>()
  for (const award of awards) byWinner.set(award.winner, [...(byWinner.get(award.winner) ?? []), award])
  return byWinner
}

const csvField = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value)

/** SEAP's direct-awards CSV (same header and columns as the source file) for these awards. */
export const awardNoticesCsv = (list: ReadonlyArray<Award>) =>
  [CSV_HEADER, ...list.map((a) => CSV_HEADER.map((h) => a.row[h] ?? ""))]
    .map((fields) => fields.map(csvField).join(","))
    .join("\n")

/** Source of the open notices; their id is the award's notice number with CN- in front. */
export const OPEN_SOURCE = "eval-open"
export const openNoticeId = (a: Award) => `CN-${a.noticeNo}`

/** Native JSON-lines records: open contract notices, deadline `deadline` (ISO), no winner. */
export const openNoticesJsonl = (list: ReadonlyArray<Award>, deadline: string) =>
  list
    .map((a) =>
      JSON.stringify({
        source: OPEN_SOURCE,
        source_id: openNoticeId(a),
        notice_type: "contract",
        title: a.title,
        description: a.description,
        cpv_codes: [a.mainCpv],
        contracting_authority: {
          name: a.authorityName,
          fiscal_code: a.authorityFiscalCode === "" ? null : a.authorityFiscalCode,
          county: a.authorityCounty === "" ? null : a.authorityCounty
        },
        deadline,
        estimated_value_ron: a.valueRon,
        publish_date: `${a.date}T09:00:00+02:00`,
        source_url: `https://e-licitatie.ro/pub/notices/eval/${a.noticeNo}`
      })
    )
    .join("\n")

/**
 * The Romanian label of each CPV code (the service's own reference table, data/cpv), for the
 * "BM25 + CPV label" reference ranking of case 2: what a search portal would give if it indexed the
 * label of each notice's code beside its text, as the service's scorer does.
 */
const CPV_TABLE = fileURLToPath(new URL("../../data/cpv/cpv2008_ro_en.csv", import.meta.url))
const cpvRows = parse(fs.readFileSync(CPV_TABLE, "utf8"), { columns: true }) as Array<Record<string, string>>
const cpvLabels = new Map(cpvRows.map((row) => [row.code_full ?? "", row.label_ro ?? ""]))
export const cpvLabelOf = (code: string): string => cpvLabels.get(code) ?? ""
