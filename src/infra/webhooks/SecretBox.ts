import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"
import { Context, Effect, Layer, Redacted } from "effect"
import { Secrets } from "../config/LocalSecrets.js"

/**
 * Webhook secrets at rest: AES-256-GCM under a key derived from MASTER_KEY (HKDF, its own purpose
 * label, so the access-token key and this one never coincide). Stored as iv (12) || tag (16) ||
 * ciphertext; a fresh iv per secret. The plaintext exists only in memory, to sign a delivery.
 */
export interface SecretBoxShape {
  readonly seal: (secret: string) => Buffer
  /** Dies when the stored value was not sealed under this MASTER_KEY (a configuration fault). */
  readonly open: (sealed: Uint8Array) => Effect.Effect<Redacted.Redacted<string>>
}

export class SecretBox extends Context.Tag("SecretBox")<SecretBox, SecretBoxShape>() {}

const IV_BYTES = 12
const TAG_BYTES = 16

export const makeSecretBox = (masterKey: Uint8Array): SecretBoxShape => {
  const key = Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), "tss webhook-secret v1", 32))
  return {
    seal: (secret) => {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv("aes-256-gcm", key, iv)
      const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), data])
    },
    open: (sealed) =>
      Effect.sync(() => {
        const bytes = Buffer.from(sealed)
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES))
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
        const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()])
        return Redacted.make(plain.toString("utf8"))
      })
  }
}

export const SecretBoxLive = Layer.effect(
  SecretBox,
  Effect.map(Secrets, ({ masterKey }) => makeSecretBox(Redacted.value(masterKey)))
)
