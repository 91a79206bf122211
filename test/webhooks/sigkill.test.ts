import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { makeSecretBox, SecretBox } from "../../src/infra/webhooks/SecretBox.js"
import { entryPointArgs, PROJECT_ROOT } from "../foundation/processes.js"
import { startHttpsReceiver } from "../support/HttpsReceiver.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { deliveriesOf, eventually, expectedSignature, newMatchingTenders, tenantWithWebhooks } from "./fixtures.js"

const masterKey = randomBytes(32).toString("hex")
const TestLayer = Layer.mergeAll(
  RepositoriesLive,
  Layer.succeed(SecretBox, makeSecretBox(Buffer.from(masterKey, "hex")))
).pipe(Layer.provideMerge(TestDatabaseLive))

const caFile = (dir: string, ca: string) => {
  const file = path.join(dir, "receiver-ca.pem")
  fs.writeFileSync(file, ca)
  return file
}

/** A real worker process (src/bin/worker.ts, delivery lease 3 s), killed when the test ends. */
const startWorker = (databaseUrl: string, ca: string, dataDir: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, entryPointArgs("worker"), {
        cwd: PROJECT_ROOT,
        stdio: "ignore",
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          MASTER_KEY: masterKey,
          CURSOR_SECRET: randomBytes(32).toString("hex"),
          DATA_DIR: dataDir,
          // The receiver's self-signed certificate, trusted as an operator would trust a private CA.
          NODE_EXTRA_CA_CERTS: caFile(dataDir, ca),
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
          WEBHOOK_DELIVERY_LEASE_SECONDS: "3"
        }
      })
    ),
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )

const killed = (child: ChildProcess) =>
  Effect.promise(
    () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        child.kill("SIGKILL")
      })
  )

describe("a worker killed mid-delivery", () => {
  layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })((it) => {
    it.scoped(
      "SIGKILL while the receiver holds the request: another worker delivers it after the lease, same id and body",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const databaseUrl = yield* TestDatabaseUrl
          const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-worker-"))
          const r = yield* Effect.acquireRelease(
            Effect.promise(() =>
              startHttpsReceiver((_, i) => (i === 0 ? { status: 200, delayMs: 120_000 } : { status: 200 }))
            ),
            (receiver) => Effect.promise(() => receiver.close())
          )
          const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/hook` }] })
          const webhook = t.webhooks[0]!

          const first = yield* startWorker(databaseUrl, r.ca, dataDir)
          yield* newMatchingTenders(1)
          yield* Effect.promise(() => r.waitFor(1, 60_000))
          // The delivery is in flight: its job is held under a lease by the first worker.
          const [claimed] = yield* sql<{ status: string; locked_by: string | null; lease_until: Date }>`
            SELECT d.status, j.locked_by, j.lease_until FROM webhook_deliveries d
            JOIN jobs j ON j.kind = 'webhook.deliver' AND j.payload ->> 'deliveryId' = d.id::text
            WHERE d.webhook_id = ${webhook.id}`
          expect(claimed!.status).toBe("delivering")
          expect(claimed!.locked_by).not.toBeNull()
          yield* killed(first)

          yield* startWorker(databaseUrl, r.ca, dataDir)
          yield* Effect.promise(() => r.waitFor(2, 60_000))
          expect(Date.now()).toBeGreaterThanOrEqual(claimed!.lease_until.getTime())
          const [delivered] = yield* eventually(
            Effect.map(deliveriesOf(webhook.id), (rows) => (rows[0]?.status === "succeeded" ? rows : undefined))
          )
          expect(delivered!.attempt_count).toBe(1)
          const [lost, retried] = r.requests
          expect(retried!.headers["x-svc-delivery"]).toBe(delivered!.id)
          expect(lost!.headers["x-svc-delivery"]).toBe(delivered!.id)
          expect(retried!.body).toBe(lost!.body)
          for (const request of [lost!, retried!]) {
            expect(request.headers["x-svc-signature"]).toBe(
              expectedSignature(webhook.secret, request.headers["x-svc-timestamp"]!, request.body)
            )
          }
          fs.rmSync(dataDir, { recursive: true, force: true })
        })
    )
  })
})
