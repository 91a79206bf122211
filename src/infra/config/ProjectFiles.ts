import { fileURLToPath } from "node:url"

/**
 * A file shipped with the project (migrations, the CPV table), by its path from the project root.
 * Resolved here, two levels below the root, and nowhere else: `npm start` runs a bundle written to
 * `dist/bin/`, also two levels deep, so one relative path serves both the sources and the bundle.
 */
export const projectFile = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url))
