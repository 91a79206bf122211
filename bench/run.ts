/**
 * Benchmark dispatcher: `npm run bench -- <name>` runs bench/<name>.ts.
 */
const benches: Record<string, () => Promise<unknown>> = {
  scoring: () => import("./scoring.js"),
  api: () => import("./api.js"),
  webhooks: () => import("./webhooks.js")
}

const name = process.argv[2]
const bench = name === undefined ? undefined : benches[name]
if (bench === undefined) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join("|")}>`)
  process.exit(2)
}
await bench()
