import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect } from "vitest"

export const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url))

export interface ProcessResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node <args>` from the project root with extra (or removed: undefined) variables. */
const runProcess = (args: ReadonlyArray<string>, env: Record<string, string | undefined>): Promise<ProcessResult> => {
  const merged: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: PROJECT_ROOT, env: merged, timeout: 90_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
      resolve({ code, stdout, stderr })
    })
  })
}

/**
 * The ops CLI as `npm run cli` runs it: from its bundle (built by the global setup): 1 CPU-second a
 * command where tsx took 5 (a file running a dozen commands hit the test timeout on a busy machine).
 */
export const runBundledCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) =>
  runProcess([...entryPointArgs("cli"), ...args], env)

/**
 * Node's arguments for an entry point of src/bin as `npm start`, `npm run api` … start it: from its
 * bundle (built by the global setup). Under tsx a process took ~5 CPU-seconds to start, and some
 * files start two dozen at once.
 */
export const entryPointArgs = (name: "api" | "worker" | "all-in-one" | "cli") => ["src/bin/launch.mjs", name]

/** A service process run to its exit (a start expected to fail). */
export const runEntryPoint = (
  name: "api" | "worker" | "all-in-one",
  env: Record<string, string | undefined> = {}
): Promise<ProcessResult> => runProcess(entryPointArgs(name), env)

/** The ops CLI against the given database. */
export const runCli = (databaseUrl: string, ...args: ReadonlyArray<string>) =>
  runBundledCli(args, { DATABASE_URL: databaseUrl })

/** Success: exit 0, exactly one JSON object on stdout (one line). */
export const expectJson = (result: ProcessResult): any => {
  expect(result.stderr, "stderr of a successful command").toBe("")
  expect(result.code).toBe(0)
  const lines = result.stdout.trim().split("\n")
  expect(lines).toHaveLength(1)
  const value = JSON.parse(lines[0]!)
  expect(typeof value).toBe("object")
  expect(Array.isArray(value)).toBe(false)
  return value
}

/** Failure: non-zero exit, nothing on stdout, one line on stderr without a stack trace; returns the line. */
export const expectOneLineFailure = (result: ProcessResult): string => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).not.toBe(0)
  expect(result.stdout).toBe("")
  // Exactly one line: a blank line after it is a second line too.
  expect(result.stderr, result.stderr).toMatch(/^[^\n]+\n?$/)
  const lines = result.stderr.trim().split("\n")
  expect(result.stderr).not.toMatch(/\n\s+at /)
  return lines[0]!
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
