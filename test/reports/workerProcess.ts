import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { entryPointArgs, PROJECT_ROOT } from "../foundation/processes.js"

/** A real worker process (src/bin/worker.ts: jobs, webhooks, mail, reports) on the given database. */
export const startWorker = (databaseUrl: string, env: Record<string, string> = {}): ChildProcess => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-report-worker-"))
  const child = spawn(process.execPath, entryPointArgs("worker"), {
    cwd: PROJECT_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      MASTER_KEY: randomBytes(32).toString("hex"),
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      ...env
    }
  })
  child.once("exit", () => fs.rmSync(dataDir, { recursive: true, force: true }))
  return child
}

/** SIGKILL, resolved once the process is gone. */
export const killHard = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

/** Polls `probe` until it returns a value (not undefined), or fails after `timeoutMs`. */
export const eventually = async <A>(probe: () => Promise<A | undefined>, timeoutMs = 180_000): Promise<A> => {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error("condition not reached in time")
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
