import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { parse } from "csv-parse/sync"
import { makeCpvCatalog } from "../../src/domain/tenders/Cpv.js"
import { CPV_CSV } from "../../src/infra/tenders/CpvTable.js"

/** The project's CPV table, read from its CSV (the same rows the migrator loads into cpv_codes). */
export const cpvCatalog = makeCpvCatalog(
  parse(fs.readFileSync(CPV_CSV, "utf8"), { columns: true }) as Array<{ code_full: string }>
)

export const fixturePath = (relative: string) => fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url))
export const fixture = (relative: string) => fs.readFileSync(fixturePath(relative), "utf8")
export const fixtureFiles = (folder: string) =>
  fs
    .readdirSync(fixturePath(folder))
    .filter((name) => name !== "LICENSE")
    .map((name) => `${folder}/${name}`)

/**
 * Romanian text as Windows-1250 bytes (what Excel on a Romanian Windows saves), written byte by byte:
 * Node encodes no single-byte charset. The code page has only the cedilla ş ţ, so ș ț are written as
 * them; a character outside this map throws, so a test never writes a byte it did not mean.
 */
const WINDOWS_1250: Readonly<Record<string, number>> = {
  ă: 0xe3,
  â: 0xe2,
  î: 0xee,
  ș: 0xba,
  ş: 0xba,
  ț: 0xfe,
  ţ: 0xfe,
  Ă: 0xc3,
  Â: 0xc2,
  Î: 0xce,
  Ș: 0xaa,
  Ş: 0xaa,
  Ț: 0xde,
  Ţ: 0xde,
  "„": 0x84,
  "”": 0x94
}
export const toWindows1250 = (text: string): Buffer =>
  Buffer.from(
    Array.from(text, (character) => {
      const code = character.codePointAt(0)!
      if (code < 0x80) return code
      const byte = WINDOWS_1250[character]
      if (byte === undefined) throw new Error(`no Windows-1250 byte for ${JSON.stringify(character)} in this map`)
      return byte
    })
  )
