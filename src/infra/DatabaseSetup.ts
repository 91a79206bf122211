import { applyMigrations } from "./db/Migrator.js"
import { loadCpvCodes } from "./tenders/CpvTable.js"

/** The schema brought up to date and the reference tables loaded, in one transaction (db/Migrator). */
export const migrate = applyMigrations(loadCpvCodes)
