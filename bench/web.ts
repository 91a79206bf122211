/**
 * `npm run bench -- web`: the browser app's weight and the time to the first tender list.
 *
 * 1. Builds the app (`scripts/build-web.mjs --force`) and measures the served JS and CSS, raw and
 *    gzipped (level 9; what a gzip-compressing proxy sends).
 * 2. Starts `npm start`'s process (`src/bin/launch.mjs all-in-one`) on a fresh database of the
 *    server of DATABASE_URL (default the local postgres), which seeds the demo data (2,400 tenders).
 * 3. In Chromium (puppeteer-core), RUNS times, each in a fresh browser context (empty cache):
 *    - login → first list: from submitting the login form to the first tender of the first demo
 *      company rendered (login, companies, company, list: four round trips and the renders);
 *    - cold deep link: loading `/companies/<id>/tenders` with a stored session (a reload) until the
 *      first tender is rendered: HTML, bundle download and parse, token refresh, list.
 *    Median and worst are printed and written to BENCHMARKS.md ("## Browser app"). The database is
 *    dropped at the end.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { gzipSync } from "node:zlib"
import { Effect, Option } from "effect"
import puppeteer from "puppeteer-core"
import { buildWeb, WEB_OUT_DIR } from "../scripts/build-web.mjs"
import { DEMO_EMAIL, DEMO_PASSWORD } from "../src/demo/DemoData.js"
import { chromiumLaunchOptions } from "../src/infra/browser/Chromium.js"
import { ADMIN_URL, admin } from "./BenchSupport.js"

const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 7)
const log = (line: string) => console.log(`[bench web] ${line}`)

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

// 1. Bundle size.
const { script, style } = await buildWeb({ force: true, log })
const js = fs.readFileSync(path.join(WEB_OUT_DIR, script))
const css = fs.readFileSync(path.join(WEB_OUT_DIR, style))
const sizes = {
  js: js.length,
  jsGzip: gzipSync(js, { level: 9 }).length,
  css: css.length,
  cssGzip: gzipSync(css, { level: 9 }).length
}
log(`bundle: JS ${kb(sizes.js)} (${kb(sizes.jsGzip)} gzipped), CSS ${kb(sizes.css)} (${kb(sizes.cssGzip)} gzipped)`)

// 2. The all-in-one process on a fresh database, seeding the demo.
const database = `tss_bench_web_${process.pid}`
await admin(`CREATE DATABASE "${database}"`)
const databaseUrl = (() => {
  const url = new URL(ADMIN_URL)
  url.pathname = `/${database}`
  return url.toString()
})()
const port = await freePort()
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-bench-web-"))
const started = Date.now()
const child = spawn(process.execPath, ["src/bin/launch.mjs", "all-in-one"], {
  env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "warn" },
  stdio: ["ignore", "pipe", "inherit"],
  detached: true
})
const baseUrl = `http://127.0.0.1:${port}`
await new Promise<void>((resolve, reject) => {
  let out = ""
  child.stdout!.on("data", (chunk) => {
    out += chunk
    if (out.includes("Tender Scoring Service is running")) resolve()
  })
  child.once("exit", (code) => reject(new Error(`all-in-one exited with ${code}`)))
})
log(`all-in-one up with the demo data in ${Date.now() - started} ms`)

const cleanup = async () => {
  try {
    process.kill(-child.pid!, "SIGTERM")
  } catch {}
  await new Promise((resolve) => setTimeout(resolve, 1500))
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
  fs.rmSync(dataDir, { recursive: true, force: true })
}

try {
  const browser = await puppeteer.launch(
    await Effect.runPromise(chromiumLaunchOptions(Option.fromNullable(process.env.CHROMIUM_PATH || undefined)))
  )
  const loginToList: Array<number> = []
  const deepLink: Array<number> = []
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await page.setViewport({ width: 1280, height: 900 })
    await page.goto(`${baseUrl}/`)
    await page.waitForSelector("[data-testid=login-form]")
    await page.type("input[name=email]", DEMO_EMAIL)
    await page.type("input[name=password]", DEMO_PASSWORD)
    const t0 = performance.now()
    await page.click("button[type=submit]")
    await page.waitForSelector("[data-testid=company-tenders]")
    await page.click("[data-testid=company-tenders]")
    await page.waitForSelector("[data-testid=tender]")
    loginToList.push(performance.now() - t0)

    // The same deep link, loaded cold in a new page of the same context (the session in sessionStorage
    // is per page: copy it, as a reload keeps it).
    const url = page.url()
    const stored = await page.evaluate(() => (globalThis as any).sessionStorage.getItem("tss.refreshToken"))
    const cold = await context.newPage()
    await cold.setCacheEnabled(false)
    await cold.evaluateOnNewDocument((token) => {
      if (token) (globalThis as any).sessionStorage.setItem("tss.refreshToken", token)
    }, stored)
    const t1 = performance.now()
    await cold.goto(url)
    await cold.waitForSelector("[data-testid=tender]")
    deepLink.push(performance.now() - t1)
    await context.close()
  }
  await browser.close()
  const figures = {
    loginMedian: median(loginToList),
    loginWorst: Math.max(...loginToList),
    deepMedian: median(deepLink),
    deepWorst: Math.max(...deepLink)
  }
  log(`login -> first list: median ${figures.loginMedian.toFixed(0)} ms, worst ${figures.loginWorst.toFixed(0)} ms`)
  log(
    `cold deep link -> first list: median ${figures.deepMedian.toFixed(0)} ms, worst ${figures.deepWorst.toFixed(0)} ms`
  )

  const section = `## Browser app

Measured by \`npm run bench -- web\` (bench/web.ts) on ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}, headless Chromium from \`@sparticuz/chromium\`, the server on loopback (no network latency), the demo data (2,400 tenders).

| What | Figure |
|---|---|
| JS bundle (minified) | ${kb(sizes.js)}, **${kb(sizes.jsGzip)} gzipped** |
| CSS | ${kb(sizes.css)}, ${kb(sizes.cssGzip)} gzipped |
| Login submitted → first tender list rendered (${RUNS} runs) | median **${figures.loginMedian.toFixed(0)} ms**, worst ${figures.loginWorst.toFixed(0)} ms |
| Cold deep link \`/companies/<id>/tenders\` with a stored session, cache off → first tender rendered | median **${figures.deepMedian.toFixed(0)} ms**, worst ${figures.deepWorst.toFixed(0)} ms |

The bundle is mostly the Effect runtime and Schema (~460 KB minified) that \`HttpApiClient.make(Api)\`
needs to encode requests and decode every answer by the server's own schemas, and react-dom (~180 KB).
The server sends it uncompressed (no compression in the API process); behind a gzip-compressing proxy
the gzipped figure is what travels, once: its name carries its hash and it is cached for a year.
`
  const file = path.join(process.cwd(), "BENCHMARKS.md")
  const text = fs.readFileSync(file, "utf8")
  const start = text.indexOf("## Browser app")
  const next = start === -1 ? -1 : text.indexOf("\n## ", start + 1)
  const updated =
    start === -1
      ? `${text.trimEnd()}\n\n${section}`
      : `${text.slice(0, start)}${section}${next === -1 ? "" : text.slice(next)}`
  fs.writeFileSync(file, updated)
  log("BENCHMARKS.md updated")
} finally {
  await cleanup()
}
