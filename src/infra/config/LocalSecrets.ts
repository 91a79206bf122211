import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig, InvalidConfiguration } from "./AppConfig.js"

/** The two process-wide secrets, as raw 32-byte keys. */
export interface SecretsShape {
  /** Encrypts webhook secrets at rest (AES-256-GCM). */
  readonly masterKey: Redacted.Redacted<Buffer>
  /** Signs pagination cursors (HMAC-SHA256). */
  readonly cursorSecret: Redacted.Redacted<Buffer>
}

export class Secrets extends Context.Tag("Secrets")<Secrets, SecretsShape>() {}

/**
 * Reads `<dataDir>/<file>` or creates it with a fresh random key (mode 0600). The key is written
 * whole to a file of its own and then linked to its name, which fails if the name exists: two
 * processes starting at once agree on one key, and neither reads the other's file half written.
 */
export const readOrCreateKeyFile = (dataDir: string, file: string) =>
  Effect.tryPromise({
    try: async () => {
      await fs.mkdir(dataDir, { recursive: true, mode: 0o755 })
      const target = path.join(dataDir, file)
      const exists = await fs.access(target).then(
        () => true,
        () => false
      )
      if (!exists) {
        const draft = `${target}.${process.pid}.${randomBytes(6).toString("hex")}`
        try {
          await fs.writeFile(draft, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 })
          await fs.link(draft, target)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        } finally {
          await fs.rm(draft, { force: true })
        }
      }
      const hex = (await fs.readFile(target, "utf8")).trim()
      if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${target} does not hold 64 hexadecimal characters`)
      return Buffer.from(hex, "hex")
    },
    // A folder the process cannot use is the operator's to fix: one line naming DATA_DIR, as a bad variable.
    catch: (cause) =>
      new InvalidConfiguration({
        message: `DATA_DIR: cannot read or create the key file ${file} in ${dataDir}: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  })

/** The master key's file under DATA_DIR, used when MASTER_KEY is unset. */
export const MASTER_KEY_FILE = "master.key"

const keyFrom = (configured: Option.Option<Redacted.Redacted>, dataDir: string, file: string) =>
  Option.match(configured, {
    onSome: (hex) => Effect.succeed(Buffer.from(Redacted.value(hex), "hex")),
    onNone: () => readOrCreateKeyFile(dataDir, file)
  }).pipe(Effect.map(Redacted.make))

export const SecretsLive = Layer.effect(
  Secrets,
  Effect.gen(function* () {
    const config = yield* AppConfig
    return {
      masterKey: yield* keyFrom(config.masterKey, config.dataDir, MASTER_KEY_FILE),
      cursorSecret: yield* keyFrom(config.cursorSecret, config.dataDir, "cursor.secret")
    }
  })
)
