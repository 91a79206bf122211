import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSecretBox } from "../../src/infra/webhooks/SecretBox.js"
import { expectJson, expectOneLineFailure, runBundledCli } from "../foundation/processes.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"

/** `keys rotate-master-key` as a real CLI process against this file's fresh PostgreSQL database. */
describe("MASTER_KEY rotation of webhook secrets (CLI)", () => {
  const runtime = ManagedRuntime.make(TestDatabaseLive)
  let databaseUrl: string
  const oldKey = randomBytes(32)
  const newKey = randomBytes(32)
  const secrets = ["first-webhook-secret-0123456789abcdef", "second-webhook-secret-0123456789abcdef"]
  const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => runtime.runPromise(Effect.orDie(effect))
  const rotate = (env: Record<string, string | undefined>) =>
    runBundledCli(["keys", "rotate-master-key"], {
      DATABASE_URL: databaseUrl,
      MASTER_KEY: oldKey.toString("hex"),
      ...env
    })
  const stored = () =>
    run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ id: string; secret_ciphertext: Uint8Array }>`
          SELECT id::text, secret_ciphertext FROM webhooks ORDER BY created_at, id`
      )
    )
  const openAll = (key: Buffer) =>
    stored().then((rows) =>
      Promise.all(
        rows.map((row) => Effect.runPromise(makeSecretBox(key).open(row.secret_ciphertext)).then(Redacted.value))
      )
    )

  beforeAll(async () => {
    databaseUrl = await runtime.runPromise(TestDatabaseUrl)
    const box = makeSecretBox(oldKey)
    await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [tenant] = yield* sql<{
          id: string
        }>`INSERT INTO tenants (name, plan) VALUES ('R', 'consultant') RETURNING id`
        for (const [i, secret] of secrets.entries()) {
          yield* sql`
            INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events, created_at)
            VALUES (${tenant!.id}, ${`https://example.com/hook/${i}`}, ${box.seal(secret)}, ${["tender.matched"]},
                    ${new Date(Date.UTC(2026, 0, 1, 0, i))})`
        }
      })
    )
  })
  afterAll(() => runtime.dispose())

  it("re-encrypts every secret under the new key in one go; a second run finds them done", async () => {
    const first = expectJson(await rotate({ NEW_MASTER_KEY: newKey.toString("hex") }))
    expect(first).toEqual({ reencrypted: 2, alreadyUnderNewKey: 0, unreadable: [] })
    expect(await openAll(newKey)).toEqual(secrets)
    await expect(openAll(oldKey)).rejects.toThrow()

    // Run again with the old key still configured (an operator repeating the step): nothing changes.
    const again = expectJson(await rotate({ NEW_MASTER_KEY: newKey.toString("hex") }))
    expect(again).toEqual({ reencrypted: 0, alreadyUnderNewKey: 2, unreadable: [] })
    expect(await openAll(newKey)).toEqual(secrets)
  })

  it("refuses a malformed or unchanged key with one line, touching nothing", async () => {
    const before = await stored()
    expect(expectOneLineFailure(await rotate({ NEW_MASTER_KEY: "abc" }))).toMatch(/64 hexadecimal/)
    expect(
      expectOneLineFailure(await rotate({ MASTER_KEY: newKey.toString("hex"), NEW_MASTER_KEY: newKey.toString("hex") }))
    ).toMatch(/is the current one/)
    // No current key at all (MASTER_KEY unset, no key file under DATA_DIR): refused, and no key invented.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "tss-keys-"))
    try {
      const line = expectOneLineFailure(
        await rotate({ MASTER_KEY: undefined, DATA_DIR: empty, NEW_MASTER_KEY: newKey.toString("hex") })
      )
      expect(line).toMatch(/^No current master key: MASTER_KEY is unset and .*master\.key does not exist/)
      expect(fs.readdirSync(empty)).toEqual([])
    } finally {
      fs.rmSync(empty, { recursive: true, force: true })
    }
    expect(await stored()).toEqual(before)
  })
})
