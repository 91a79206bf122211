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
