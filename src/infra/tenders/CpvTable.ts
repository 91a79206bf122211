import * as fs from "node:fs/promises"
import { SqlClient } from "@effect/sql"
import { parse } from "csv-parse/sync"
import { Effect, Schema } from "effect"
import { commaBelow } from "../../domain/tenders/RomanianText.js"
import { projectFile } from "../config/ProjectFiles.js"

/** The project's copy of the CPV 2008 table (Apache-2.0, licence beside it). */
export const CPV_CSV = projectFile("data/cpv/cpv2008_ro_en.csv")

interface CpvCsvRow {
  readonly code: string
  readonly code_full: string
  readonly level: string
  readonly nature: string
  readonly label_ro: string
  readonly label_en: string
}

/** A row of the `cpv_codes` table with its Romanian label. */
const CpvLabelRow = Schema.Struct({
  code_full: Schema.String,
  level: Schema.String,
  nature: Schema.String,
  label_ro: Schema.String
})
export type CpvLabelRow = typeof CpvLabelRow.Type

/** The whole CPV table in code order, with levels, natures and Romanian labels. */
export const readCpvTable = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`SELECT code_full, level, nature, label_ro FROM cpv_codes ORDER BY code`.pipe(
    Effect.flatMap((rows) => Effect.orDie(Schema.decodeUnknown(Schema.Array(CpvLabelRow))(rows)))
  )
)

/** `count(*)` of a table: always one row. */
const CountRow = Schema.Tuple(Schema.Struct({ count: Schema.Number }))

/**
 * Fills `cpv_codes` from the CSV in one statement when the table is empty. The published table
 * writes ş ţ with a cedilla (3,833 labels); every label is stored with the comma-below ș ț Romanian
 * uses, so the app, the PDF and the scorer's CPV text all read the right letters (a table filled
 * before that rule was corrected once, by migration 0017).
 */
export const loadCpvCodes = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [{ count }] = yield* sql`SELECT count(*)::int AS count FROM cpv_codes`.pipe(
    Effect.flatMap((rows) => Effect.orDie(Schema.decodeUnknown(CountRow)(rows)))
  )
  if (count > 0) return 0
  const text = yield* Effect.promise(() => fs.readFile(CPV_CSV, "utf8"))
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as Array<CpvCsvRow>
  const column = (key: keyof CpvCsvRow) => rows.map((row) => row[key])
  const label = (key: "label_ro" | "label_en") => rows.map((row) => commaBelow(row[key]))
  yield* sql`
    INSERT INTO cpv_codes (code, code_full, level, nature, label_ro, label_en)
    SELECT * FROM unnest(
      ${column("code")}::text[], ${column("code_full")}::text[], ${column("level")}::text[],
      ${column("nature")}::text[], ${label("label_ro")}::text[], ${label("label_en")}::text[]
    )`
  return rows.length
})
