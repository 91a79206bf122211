import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../hardening/OwnServers.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { entryPointArgs, PROJECT_ROOT } from "./processes.js"

/** The README's walk-through, exactly as written: the sh block under its heading. */
const readmeWalkThrough = async () => {
  const readme = await fs.readFile(path.join(PROJECT_ROOT, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("### From the API key alone"))
  const block = /```sh\n([\s\S]*?)```/.exec(section)
  if (!block) throw new Error("README: no sh block under the walk-through heading")
  return block[1]!
}

/**
 * Issue 20's "done when": a newcomer following only the README goes from `npm start` to a scored
 * list, a score, a CSV and a PDF with the API key alone. The service runs as `npm start` runs it
 * (all-in-one: API, worker, the PDF renderer) on this file's database; the script is the README's.
 */
describe("the README's walk-through from the API key alone", () => {
  const runtime = ManagedRuntime.make(TestDatabaseLive)
  let child: ReturnType<typeof spawn>
  let stdout = ""
  let baseUrl: string
  let dataDir: string
  let workDir: string

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tss-walk-"))
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), "tss-walk-out-"))
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    child = spawn(process.execPath, entryPointArgs("all-in-one"), {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: await runtime.runPromise(TestDatabaseUrl),
        REDIS_URL: "",
        DATA_DIR: dataDir,
        PORT: String(port),
        PUBLIC_BASE_URL: baseUrl,
        LOG_LEVEL: "warn"
      }
    })
    child.stdout?.on("data", (chunk) => {
      stdout += chunk
    })
    const deadline = Date.now() + 120_000
    while (!/Ingestion: .*\n/.test(stdout) && child.exitCode === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200))
    }
  }, 150_000)

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.on("exit", resolve))
      child.kill("SIGTERM")
      await exited
    }
    await runtime.dispose()
    await fs.rm(dataDir, { recursive: true, force: true })
    await fs.rm(workDir, { recursive: true, force: true })
  })

  it("lists the companies, an open scored list, a breakdown with Romanian reasons, a CSV and a PDF", async () => {
    const key = /API key: {3}(svc_[0-9a-f]{64})/.exec(stdout)?.[1]
    expect(key, stdout).toBeDefined()
    const script = (await readmeWalkThrough())
      .replace(/^BASE=.*$/m, `BASE=${baseUrl}`)
      .replace(/^KEY=.*$/m, `KEY=${key}`)
    expect(script).toContain(`KEY=${key}`)
    const run = await new Promise<{ code: number; out: string; err: string }>((resolve) => {
      execFile("bash", ["-c", `set -euo pipefail\n${script}`], { cwd: workDir, timeout: 150_000 }, (error, out, err) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), out, err })
      )
    })
    expect(run.code, run.err + run.out).toBe(0)
    // Step 1: the three demo companies; step 2: scored lines; step 3: the breakdown, in Romanian.
    expect(run.out).toMatch(/[0-9a-f-]{36} {2}.+SRL/)
    expect(run.out).toMatch(/^\d{1,3} (GO|RESEARCH|SKIP) {2}\S/m)
    const breakdown = JSON.parse(run.out.split("\n").find((line) => line.startsWith("{"))!)
    expect(breakdown.data.scoring_model_version).toBeDefined()
    expect(JSON.stringify(breakdown)).toMatch(/[ăâîșț]/)
    // Step 4: a CSV with the BOM and the header; step 5: a PDF.
    const csv = await fs.readFile(path.join(workDir, "export.csv"), "utf8")
    expect(csv.charCodeAt(0)).toBe(0xfeff)
    expect(csv.split("\n").length).toBeGreaterThan(2)
    const pdf = await fs.readFile(path.join(workDir, "raport.pdf"))
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-")
  }, 200_000)
})
