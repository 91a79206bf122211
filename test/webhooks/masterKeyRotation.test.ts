import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { makeSecretBox } from "../../src/infra/webhooks/SecretBox.js"
import { rotateWebhookSecrets } from "../../src/infra/webhooks/SecretRotation.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

describe("MASTER_KEY rotation as docs/operations.md describes it", () => {
  layer(TestDatabaseLive)((it) => {
    // Before, the procedure ended at the restart: a webhook an API process registered under the old
    // key between the steps could never be opened again.
    it.effect("a webhook registered between the rotation and the restart is re-encrypted by step 3", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const oldKey = randomBytes(32)
        const newKey = randomBytes(32)
        const [tenant] = yield* sql<{ id: string }>`
          INSERT INTO tenants (name, plan) VALUES ('Rotation', 'consultant') RETURNING id`
        const register = (url: string, sealed: Buffer) =>
          sql`INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events)
              VALUES (${tenant!.id}, ${url}, ${sealed}, ${["tender.matched"]})`
        yield* register(
          "https://example.com/before",
          makeSecretBox(oldKey).seal("secret-registered-before-rotation-0123")
        )
        // 1. rotate-master-key
        yield* rotateWebhookSecrets(oldKey, newKey)
        // An API process not yet restarted registers a webhook under the old key.
        yield* register("https://example.com/gap", makeSecretBox(oldKey).seal("secret-registered-in-the-gap-012345"))
        // 2. every process restarts with the new key; 3. rotate-master-key again.
        expect(yield* rotateWebhookSecrets(oldKey, newKey)).toEqual({
          reencrypted: 1,
          alreadyUnderNewKey: 1,
          unreadable: []
        })
        const rows = yield* sql<{ url: string; secret_ciphertext: Uint8Array }>`
          SELECT url, secret_ciphertext FROM webhooks WHERE tenant_id = ${tenant!.id}`
        const opened = yield* Effect.forEach(rows, (row) =>
          Effect.map(Effect.exit(makeSecretBox(newKey).open(row.secret_ciphertext)), (exit) => [
            row.url,
            Exit.isSuccess(exit)
          ])
        )
        expect(Object.fromEntries(opened)).toEqual({
          "https://example.com/before": true,
          "https://example.com/gap": true
        })
      }).pipe(Effect.orDie)
    )
  })
})
