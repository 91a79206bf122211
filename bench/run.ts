/**
 * Benchmark dispatcher: `npm run bench -- <name> [options]` runs bench/<name>.ts (which reads its
 * options from process.argv, e.g. `soak --duration 90`).
 */
const benches: Record<string, () => Promise<unknown>> = {
  scoring: () => import("./scoring.js"),
  api: () => import("./api.js"),
  webhooks: () => import("./webhooks.js"),
  reports: () => import("./reports.js"),
  soak: () => import("./soak.js"),
  web: () => import("./web.js"),
  ingest: () => import("./ingest.js"),
  country: () => import("./country.js")
}

const name = process.argv[2]
const bench = name === undefined ? undefined : benches[name]
if (bench === undefined) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join("|")}>`)
  process.exit(2)
}
await bench()
