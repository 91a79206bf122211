// Builds the bundle of a server entry point (src/bin/<name>.ts) into dist/bin/<name>.mjs: our code plus
// the Effect packages, tree-shaken; other dependencies stay external. Used by src/bin/launch.mjs (npm
// start, npm run api|worker|cli) and by the tests' global setup (the CLI tests run the bundle).
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
// Same depth as src/infra, so src/infra/ProjectFiles.ts still finds the project's files from the bundle.
export const serverBundlePath = (name) => path.join(root, "dist", "bin", `${name}.mjs`)

const newestSource = () => {
  let newest = fs.statSync(path.join(root, "package-lock.json")).mtimeMs
  for (const entry of fs.readdirSync(path.join(root, "src"), { recursive: true, withFileTypes: true })) {
    // The browser app (src/web) is not part of the server bundle; scripts/build-web.mjs builds it.
    if (entry.isFile() && !(entry.parentPath ?? entry.path).startsWith(path.join(root, "src", "web")))
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs)
  }
  return newest
}
const bundleTime = (outfile) => (fs.existsSync(outfile) ? fs.statSync(outfile).mtimeMs : 0)

/** Bundles src/bin/<name>.ts into serverBundlePath(name), unless the bundle is newer than every source; whether it built. */
export const buildServerBundle = async (name) => {
  const outfile = serverBundlePath(name)
  if (bundleTime(outfile) >= newestSource()) return false
  const { build } = await import("esbuild")
  const isEffect = (specifier) => /^(effect|@effect\/[^/]+)(\/|$)/.test(specifier)
  const result = await build({
    entryPoints: [path.join(root, "src", "bin", `${name}.ts`)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // The ESM builds, so unused parts of the Effect barrels are tree-shaken away.
    mainFields: ["module", "main"],
    sourcemap: "linked",
    // Stack traces need only the mappings; the sources' text (11 of the map's 14 MB) made every start
    // read and parse it (~0.1 s), and the files it held are on disk anyway.
    sourcesContent: false,
    logLevel: "error",
    // Kept in memory, then moved into place below: several processes may start at once.
    write: false,
    plugins: [
      {
        name: "only-effect-bundled",
        setup(b) {
          // Bare imports other than the Effect packages stay external (native add-ons, shipped binaries).
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            isEffect(args.path) || args.kind === "entry-point" ? undefined : { path: args.path, external: true }
          )
        }
      }
    ]
  })
  writeAtomically(result.outputFiles, outfile)
  return true
}
/**
 * Each file is written under a name of this process's own and renamed over the old one, the map
 * first and the bundle last: two processes started together on a stale bundle (`npm run worker`
 * twice, say) each replace the whole file, and neither imports one the other is halfway through.
 */
const writeAtomically = (files, outfile) => {
  const ordered = [...files].sort((a, b) => Number(a.path === outfile) - Number(b.path === outfile))
  for (const file of ordered) {
    const staging = `${file.path}.${process.pid}.tmp`
    fs.mkdirSync(path.dirname(file.path), { recursive: true })
    fs.writeFileSync(staging, file.contents)
    fs.renameSync(staging, file.path)
  }
}
