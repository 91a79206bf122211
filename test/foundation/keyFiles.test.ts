import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { readOrCreateKeyFile } from "../../src/infra/config/LocalSecrets.js"

// Every file write takes a while between creating its file and filling it, as a write on a busy
// machine may: another process starting at that moment must not read the key half written.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>()
  const slowWriteFile = async (file: string, data: string, options: { flag?: string; mode?: number }) => {
    const handle = await actual.open(file, options.flag ?? "w", options.mode)
    try {
      await new Promise((resolve) => setTimeout(resolve, 30))
      await handle.writeFile(data)
    } finally {
      await handle.close()
    }
  }
  return { ...actual, writeFile: slowWriteFile, default: { ...actual, writeFile: slowWriteFile } }
})

/**
 * The key files under DATA_DIR (`master.key`, `cursor.secret`) as processes starting together
 * create them: `npm start`'s API and worker, two workers started at once.
 */
describe("key files under DATA_DIR", () => {
  const dirs: Array<string> = []
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true })
  })

  it("readers starting at once on an empty folder all get the one key, none a file half written", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tss-keys-"))
    dirs.push(dir)
    const keys = await Promise.all(
      Array.from({ length: 20 }, () => Effect.runPromise(Effect.either(readOrCreateKeyFile(dir, "master.key"))))
    )
    const failures = keys.flatMap((key) => (key._tag === "Left" ? [key.left.message] : []))
    expect(failures).toEqual([])
    const distinct = new Set(keys.flatMap((key) => (key._tag === "Right" ? [key.right.toString("hex")] : [])))
    expect(distinct.size).toBe(1)
    // Only the key file is left, readable by its owner alone.
    expect(await fs.readdir(dir)).toEqual(["master.key"])
    expect((await fs.stat(path.join(dir, "master.key"))).mode & 0o777).toBe(0o600)
  })
})
