import * as fs from "node:fs"
import * as path from "node:path"
import { Command, Options } from "@effect/cli"
import { Config, Effect, Option, Redacted } from "effect"
import { AppConfig } from "../infra/config/AppConfig.js"
import { MASTER_KEY_FILE, Secrets, SecretsLive } from "../infra/config/LocalSecrets.js"
import { rotateWebhookSecrets } from "../infra/webhooks/SecretRotation.js"
import { CliFailure, missingSubcommand, printJson } from "./CliSupport.js"

const HEX_KEY = /^[0-9a-fA-F]{64}$/

/**
 * The new key from `--new-key` or, better (a command line is visible to other users of the machine),
 * from the NEW_MASTER_KEY variable.
 */
const newKey = Options.redacted("new-key").pipe(
  Options.withFallbackConfig(Config.redacted("NEW_MASTER_KEY")),
  Options.withDescription("The new MASTER_KEY (64 hex characters); or set NEW_MASTER_KEY")
)

const rotateMasterKey = Command.make("rotate-master-key", { newKey }, ({ newKey }) =>
  Effect.gen(function* () {
    const hex = Redacted.value(newKey).trim()
    if (!HEX_KEY.test(hex)) {
      return yield* new CliFailure({ message: "The new master key must be 64 hexadecimal characters (32 bytes)" })
    }
    // The old key: MASTER_KEY, or the key file under DATA_DIR when it is unset (as the processes read
    // it). Neither there: no key to rotate from (reading would create a random one, under which every
    // secret is unreadable, and a restart with the new key would then break every webhook).
    const config = yield* AppConfig
    const keyFile = path.join(config.dataDir, MASTER_KEY_FILE)
    if (Option.isNone(config.masterKey) && !fs.existsSync(keyFile)) {
      return yield* new CliFailure({
        message: `No current master key: MASTER_KEY is unset and ${keyFile} does not exist; run with the MASTER_KEY (or DATA_DIR) the service runs with`
      })
    }
    const { masterKey } = yield* Effect.provide(Secrets, SecretsLive)
    const next = Buffer.from(hex, "hex")
    if (Redacted.value(masterKey).equals(next)) {
      return yield* new CliFailure({ message: "The new master key is the current one" })
    }
    const result = yield* rotateWebhookSecrets(Redacted.value(masterKey), next)
    yield* printJson(result)
  })
).pipe(
  Command.withDescription(
    "Re-encrypt every webhook secret from the current MASTER_KEY to a new one, in one transaction → {reencrypted, alreadyUnderNewKey, unreadable}"
  )
)

/** `keys rotate-master-key --new-key K` (or NEW_MASTER_KEY=K) → {"reencrypted", "alreadyUnderNewKey", "unreadable"} */
export const keysCommand = Command.make("keys", {}, missingSubcommand("keys", ["rotate-master-key"])).pipe(
  Command.withSubcommands([rotateMasterKey])
)
