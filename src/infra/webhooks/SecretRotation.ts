import { SqlClient } from "@effect/sql"
import { Effect, Exit, Redacted, Schema } from "effect"
import { makeSecretBox } from "./SecretBox.js"

/** What a rotation did to the stored webhook secrets. */
export interface RotationResult {
  /** Opened under the old key and sealed again under the new one. */
  readonly reencrypted: number
  /** Already sealed under the new key (a rotation run again): left as they are. */
  readonly alreadyUnderNewKey: number
  /** Opened under neither key: left as they are (their deliveries already fail), listed for the operator. */
  readonly unreadable: ReadonlyArray<string>
}

const SecretRow = Schema.Struct({ id: Schema.String, secret_ciphertext: Schema.Uint8ArrayFromSelf })

/**
 * Re-encrypts every stored webhook secret (deleted webhooks' too: their rows keep the ciphertext)
 * from the old MASTER_KEY to the new one, in one transaction with the rows locked, so processes
 * still on the old key never see a half-rotated table. Run it, restart every process with the new
 * key, then run it again: processes still on the old key kept sealing new registrations under it
 * (docs/operations.md, "Key rotation"). Between the runs, deliveries of a worker whose key is not
 * its secret's fail and are retried.
 */
export const rotateWebhookSecrets = (oldMasterKey: Uint8Array, newMasterKey: Uint8Array) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const oldBox = makeSecretBox(oldMasterKey)
    const newBox = makeSecretBox(newMasterKey)
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* sql`SELECT id::text, secret_ciphertext FROM webhooks ORDER BY id FOR UPDATE`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(SecretRow)))
        )
        let reencrypted = 0
        let alreadyUnderNewKey = 0
        const unreadable: Array<string> = []
        for (const row of rows) {
          const opened = yield* Effect.exit(oldBox.open(row.secret_ciphertext))
          if (Exit.isSuccess(opened)) {
            const sealed = newBox.seal(Redacted.value(opened.value))
            yield* sql`UPDATE webhooks SET secret_ciphertext = ${sealed} WHERE id = ${row.id}`
            reencrypted++
          } else if (Exit.isSuccess(yield* Effect.exit(newBox.open(row.secret_ciphertext)))) {
            alreadyUnderNewKey++
          } else {
            unreadable.push(row.id)
          }
        }
        return { reencrypted, alreadyUnderNewKey, unreadable } satisfies RotationResult
      })
    )
  })
