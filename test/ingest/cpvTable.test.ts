import * as fs from "node:fs"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import { Effect } from "effect"
import { commaBelow } from "../../src/domain/tenders/RomanianText.js"
import { projectFile } from "../../src/infra/config/ProjectFiles.js"
import { CPV_CSV, loadCpvCodes, readCpvTable } from "../../src/infra/tenders/CpvTable.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/**
 * The CPV table's Romanian labels as every consumer reads them (the app, the PDF, the scorer): the
 * published CSV writes ş ţ with a cedilla; the loaded table holds the comma-below ș ț only.
 */

/** Cedilla letters, precomposed (U+015F, U+0163, U+015E, U+0162) or as a combining cedilla (U+0327). */
const CEDILLA = /[\u015f\u0163\u015e\u0162]|\u0327/

const csvRows = parse(fs.readFileSync(CPV_CSV, "utf8"), { columns: true, skip_empty_lines: true }) as Array<{
  code_full: string
  label_ro: string
  label_en: string
}>

describe("commaBelow", () => {
  it("turns each cedilla letter into its comma-below letter and leaves every other letter", () => {
    expect(commaBelow("ş ţ Ş Ţ")).toBe("\u0219 \u021b \u0218 \u021a")
    expect(commaBelow("s\u0327 T\u0327")).toBe("\u0219 \u021a")
    expect(commaBelow("Lucrări de construcţii, învăţământ  şi  ÎNTREŢINERE")).toBe(
      "Lucrări de construcții, învățământ  și  ÎNTREȚINERE"
    )
    expect(commaBelow("ç Ç ą")).toBe("ç Ç ą")
  })
})

describe("the CPV table as loaded", () => {
  layer(TestDatabaseLive)((it) => {
    it.effect("holds no cedilla anywhere; every label the CSV spells with one now has comma-below letters", () =>
      Effect.gen(function* () {
        // The published table does use cedillas, so this test checks a real conversion.
        expect(csvRows.filter((row) => CEDILLA.test(row.label_ro)).length).toBeGreaterThan(3000)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ code_full: string; label_ro: string; label_en: string }>`
          SELECT rtrim(code_full) AS code_full, label_ro, label_en FROM cpv_codes`
        expect(rows.length).toBe(csvRows.length)
        expect(rows.filter((row) => CEDILLA.test(row.label_ro) || CEDILLA.test(row.label_en))).toEqual([])
        const loaded = new Map(rows.map((row) => [row.code_full, row.label_ro]))
        for (const row of csvRows) expect(loaded.get(row.code_full)).toBe(commaBelow(row.label_ro))
        expect(loaded.get("45000000-7")).toBe("Lucrări de construcții")
        const table = yield* readCpvTable
        expect(table.some((row) => /[ș]/.test(row.label_ro))).toBe(true)
        expect(table.some((row) => /[ț]/.test(row.label_ro))).toBe(true)
        expect(table.filter((row) => CEDILLA.test(row.label_ro))).toEqual([])
      })
    )

    it.effect("a table filled before the rule is corrected in place by migration 0017; the loader adds nothing", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE cpv_codes SET label_ro = 'Lucrări de construcţii şi ŞANŢURI' WHERE code_full = '45000000-7'`
        yield* sql.unsafe(fs.readFileSync(projectFile("migrations/0017_cpv_comma_below.sql"), "utf8"))
        expect(yield* loadCpvCodes).toBe(0)
        const [row] = yield* sql<{ label_ro: string }>`SELECT label_ro FROM cpv_codes WHERE code_full = '45000000-7'`
        expect(row!.label_ro).toBe("Lucrări de construcții și ȘANȚURI")
      })
    )
  })
})
