import { existsSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The project's root: the nearest folder above this module with the project's package.json. Found by
 * walking up rather than by a fixed depth, because the module runs both from its source file and
 * from the bundle `npm start` writes to `dist/bin/`.
 */
const projectRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir)
  return dir
})()

/** A file shipped with the project (migrations, the CPV table), by its path from the project root. */
export const projectFile = (relative: string) => path.join(projectRoot, relative)
