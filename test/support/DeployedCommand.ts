import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url))

/**
 * The node arguments `npm run <script>` starts the service's process with (package.json's `api` and
 * `worker`: `node [V8 options] src/bin/launch.mjs <name>`), so that benches and tests start the
 * process as it is deployed: the launcher's bundle with the script's own options.
 */
export const deployedCommand = (script: "api" | "worker"): ReadonlyArray<string> => {
  const line: string = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")).scripts[script]
  const match = new RegExp(`^node ((?:--\\S+ )*)(src/bin/launch\\.mjs ${script})$`).exec(line)
  if (match === null)
    throw new Error(`package.json's "${script}" script is not \`node [options] src/bin/launch.mjs ${script}\`: ${line}`)
  return [...match[1]!.split(" ").filter(Boolean), ...match[2]!.split(" ")]
}
