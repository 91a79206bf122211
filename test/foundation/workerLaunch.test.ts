import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { RescoreCompany } from "../../src/infra/scoring/ScoringJobKinds.js"
import { eventually } from "../hardening/OwnServers.js"
import { deployedCommand } from "../support/DeployedCommand.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { PROJECT_ROOT } from "./processes.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))
const BUNDLE_DIR = path.join(PROJECT_ROOT, "dist", "bin")

interface Launched {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/** `npm run worker` as package.json has it (without npm), stopped with SIGTERM at scope end. */
const launchWorker = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync((): Launched => {
      const child = spawn(process.execPath, deployedCommand("worker"), {
        cwd: PROJECT_ROOT,
        env: { ...process.env, REDIS_URL: "", LOG_LEVEL: "info", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout!.on("data", (chunk) => {
        output += chunk
      })
      child.stderr!.on("data", (chunk) => {
        output += chunk
      })
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      return { child, output: () => output, exited }
    }),
    ({ child, exited }) =>
      Effect.promise(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
        return exited
      })
  )

/** The command lines of a process's children (`ps`; none: an empty list). */
const childrenOf = (pid: number) =>
  spawnSync("ps", ["-o", "args=", "--ppid", String(pid)], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((line) => line.trim() !== "")

describe("npm run worker: the launcher's bundle", () => {
  layer(TestLayer, { excludeTestServices: true, timeout: 180_000 })((it) => {
    it.scoped(
      "two workers started together on a stale bundle both build it, run jobs and stop cleanly on SIGTERM",
      () =>
        Effect.gen(function* () {
          expect(deployedCommand("worker")).toContain("src/bin/launch.mjs")
          // A stale bundle (none at all): both launchers build it at the same moment.
          fs.rmSync(path.join(BUNDLE_DIR, "worker.mjs"), { force: true })
          const env = {
            DATABASE_URL: yield* TestDatabaseUrl,
            DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "tss-launch-"))
          }
          const workers = [yield* launchWorker(env), yield* launchWorker(env)]
          for (const worker of workers) {
            // The last runner a worker starts announces itself after the others.
            yield* Effect.tryPromise({
              try: () => eventually(async () => (worker.output().includes("reports runner") ? true : undefined), 150),
              catch: () => new Error(`the worker did not start:\n${worker.output()}`)
            }).pipe(Effect.orDie)
          }
          // Each stopped the esbuild service its build started: nothing runs beside the worker.
          for (const worker of workers) expect(childrenOf(worker.child.pid!)).toEqual([])
          // Each replaced the bundle whole: no staging file is left behind.
          expect(
            fs.readdirSync(BUNDLE_DIR).filter((file) => file.startsWith("worker.mjs") && file.endsWith(".tmp"))
          ).toEqual([])

          // The bundled workers do the queue's work: a company's rescore is claimed and settled.
          const sql = yield* SqlClient.SqlClient
          const [tenant] = yield* sql<{ id: string }>`
            INSERT INTO tenants (name, plan) VALUES ('Cabinet', 'consultant') RETURNING id`
          const [company] = yield* sql<{ id: string }>`
            INSERT INTO companies (tenant_id, name, description)
            VALUES (${tenant!.id}, 'Drumuri Vest SRL', 'Lucrări de drumuri') RETURNING id`
          const jobId = yield* Effect.flatMap(JobQueue, (queue) =>
            queue.enqueue(RescoreCompany, { companyId: company!.id })
          )
          const status = yield* sql<{ status: string }>`SELECT status FROM jobs WHERE id = ${jobId}`.pipe(
            Effect.map(([row]) => row!.status),
            Effect.filterOrFail(
              (status) => status === "done" || status === "dead",
              (status) => new Error(`the job is ${status}`)
            ),
            Effect.retry(Schedule.spaced("100 millis")),
            Effect.timeout("60 seconds"),
            Effect.orDie
          )
          expect(status, workers.map((w) => w.output()).join("\n---\n")).toBe("done")

          // SIGTERM: each drains and exits 0.
          for (const worker of workers) worker.child.kill("SIGTERM")
          const codes = yield* Effect.promise(() => Promise.all(workers.map((w) => w.exited)))
          expect(codes).toEqual([0, 0])
        }),
      180_000
    )
    it.scoped(
      "a bad lease variable stops the worker with its one line and exit code 1",
      () =>
        Effect.gen(function* () {
          const worker = yield* launchWorker({
            DATABASE_URL: yield* TestDatabaseUrl,
            DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "tss-launch-")),
            JOB_LEASE_SECONDS: "0"
          })
          const code = yield* Effect.promise(() => worker.exited)
          expect(code).toBe(1)
          expect(worker.output().trim().split("\n").at(-1)).toBe(
            "Invalid configuration: JOB_LEASE_SECONDS: Expected a positive integer"
          )
        }),
      120_000
    )
  })
})
