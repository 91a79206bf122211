import type { ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import pg from "pg"

/** What every bench that makes databases or starts processes needs, once. */

/** The server the benches create their databases on: DATABASE_URL, else the machine's PostgreSQL. */
export const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** The URL of database `name` on the admin server. */
export const databaseUrl = (name: string) => {
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs one statement (CREATE / DROP DATABASE …) on its own admin connection. */
export const admin = async (statement: string) => {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/**
 * Stops a process started `detached` (its own group): SIGTERM to the group, SIGKILL after `graceMs`
 * if it has not exited by then; resolves once it has.
 */
export const stopProcessGroup = (child: ChildProcess, graceMs = 10_000) =>
  new Promise<void>((resolve) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return resolve()
    const force = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {}
    }, graceMs)
    child.once("exit", () => {
      clearTimeout(force)
      resolve()
    })
    try {
      process.kill(-child.pid, "SIGTERM")
    } catch {
      clearTimeout(force)
      resolve()
    }
  })

/** A TCP port free on 127.0.0.1 right now (for a server the bench starts). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
