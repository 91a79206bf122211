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
import type { FakeTed } from "../support/FakeTed.js"
import { type HttpsReceiver, startHttpsReceiver } from "../support/HttpsReceiver.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { eventually, expectedSignature, tenantWithWebhooks } from "../webhooks/fixtures.js"
import { FakeTedLive, publishTed, Ted } from "./ingestFixtures.js"

const masterKey = randomBytes(32).toString("hex")
const TestLayer = Layer.mergeAll(
  RepositoriesLive,
  FakeTedLive,
  Layer.succeed(SecretBox, makeSecretBox(Buffer.from(masterKey, "hex")))
).pipe(Layer.provideMerge(TestDatabaseLive))

const POLL_SECONDS = 2

/** A real worker process polling the fake TED every 2 s, killed when the test ends. */
const startWorker = (ted: FakeTed, receiver: HttpsReceiver, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const databaseUrl = yield* TestDatabaseUrl
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-ingest-"))
    const caFile = path.join(dataDir, "receiver-ca.pem")
    fs.writeFileSync(caFile, receiver.ca)
    return yield* Effect.acquireRelease(
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
            NODE_EXTRA_CA_CERTS: caFile,
            WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
            // A killed worker's jobs go back to the queue after 3 s, not 5 minutes.
            JOB_LEASE_SECONDS: "3",
            WEBHOOK_DELIVERY_LEASE_SECONDS: "3",
            INGEST_SOURCES: "ted",
            TED_API_URL: ted.url,
            INGEST_POLL_SECONDS: String(POLL_SECONDS),
            TED_REQUEST_SPACING_MS: "0",
            ...env
          }
        })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
  })

const killed = (child: ChildProcess) =>
  Effect.promise(
    () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        child.kill("SIGKILL")
      })
  )

const receiver = Effect.acquireRelease(
  Effect.promise(() => startHttpsReceiver(() => ({ status: 200 }))),
  (r) => Effect.promise(() => r.close())
)

/** Notices a fixture company watches (CPV 39160000-1, threshold 0). */
const schoolFurniture = (ted: FakeTed) =>
  publishTed(ted, { title: "Furnizare mobilier școlar pentru liceul teoretic", cpv: "39160000" })

const tenderIdOf = (noticeId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string }>`SELECT id FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${noticeId}`.pipe(
      Effect.map((rows) => rows[0]?.id),
      Effect.orDie
    )
  )

describe("live ingestion, end to end (a real worker process, the fake TED, a real HTTPS receiver)", () => {
  layer(TestLayer, { excludeTestServices: true, timeout: 180_000 })((it) => {
    it.scoped(
      "a notice published at TED is scored in the list, alerts and arrives as a signed webhook, once, within the poll interval + 10 s",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const ted = yield* Ted
          const r = yield* receiver
          const tenant = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/hook` }] })
          yield* startWorker(ted, r)
          // The worker is up and polling (its first poll marked the source enabled).
          yield* eventually(
            sql<{
              n: number
            }>`SELECT count(*)::int AS n FROM ingest_sources WHERE name = 'ted' AND last_success_at IS NOT NULL`.pipe(
              Effect.map(([row]) => (row!.n === 1 ? true : undefined)),
              Effect.orDie
            )
          )

          const published = Date.now()
          const notice = schoolFurniture(ted)
          const [request] = yield* Effect.promise(() => r.waitFor(1, 60_000))
          const elapsed = Date.now() - published
          expect(elapsed).toBeLessThan((POLL_SECONDS + 10) * 1000)

          const tenderId = yield* tenderIdOf(notice.noticeId)
          expect(tenderId).toBeDefined()
          const body = JSON.parse(request!.body) as { tender: { id: string } }
          expect(JSON.stringify(body)).toContain(tenderId!)
          expect(request!.headers["x-svc-signature"]).toBe(
            expectedSignature(tenant.webhooks[0]!.secret, request!.headers["x-svc-timestamp"]!, request!.body)
          )
          const scores =
            yield* sql`SELECT verdict FROM tender_scores WHERE tender_id = ${tenderId!} AND company_id = ${tenant.companies[0]!}`
          expect(scores).toHaveLength(1)

          // Polled again (and again): the same notice raises no second alert nor webhook.
          yield* Effect.sleep(`${POLL_SECONDS * 2 + 1} seconds`)
          expect(r.requests).toHaveLength(1)
          const alerts = yield* sql`SELECT id FROM alerts WHERE tender_id = ${tenderId!}`
          expect(alerts).toHaveLength(1)
        })
    )

    it.scoped(
      "SIGKILL in the middle of paging: the next worker resumes; every notice once, one alert and one webhook delivery each",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const ted = yield* Ted
          const r = yield* receiver
          const tenant = yield* tenantWithWebhooks({ webhooks: [{ url: `${r.origin}/hook` }] })
          const notices = [1, 2, 3, 4, 5, 6].map(() => schoolFurniture(ted))
          const slow = { INGEST_PAGE_SIZE: "2", TED_REQUEST_SPACING_MS: "700" }
          const first = yield* startWorker(ted, r, slow)
          // The first page is in (two of these notices read): kill the worker mid-poll.
          yield* eventually(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM ingested_notices
                             WHERE notice_ref = ANY(${notices.map((n) => n.publicationNumber)}::text[])`.pipe(
              Effect.map(([row]) => (row!.n >= 2 && row!.n < 6 ? true : undefined)),
              Effect.orDie
            )
          )
          yield* killed(first)
          const [cursor] = yield* sql<{
            cursor: { token: string | null } | null
          }>`SELECT cursor FROM ingest_sources WHERE name = 'ted'`
          expect(cursor?.cursor?.token).toEqual(expect.any(String))

          yield* startWorker(ted, r, slow)
          yield* Effect.promise(() => r.waitFor(6, 90_000))
          yield* Effect.sleep(`${POLL_SECONDS * 2 + 1} seconds`)
          const ids = yield* Effect.forEach(notices, (notice) => tenderIdOf(notice.noticeId))
          expect(ids.every((id) => id !== undefined)).toBe(true)
          // Sending is at least once: a webhook on the wire when the first worker died is sent again
          // under the same X-SVC-Delivery id (receivers dedupe by it). Each tender has one delivery.
          const deliveryOf = new Map<string, string>()
          for (const request of r.requests) {
            const tenderId = (JSON.parse(request.body) as { tender: { id: string } }).tender.id
            const deliveryId = request.headers["x-svc-delivery"]!
            if (deliveryOf.has(deliveryId)) expect(deliveryOf.get(deliveryId)).toBe(tenderId)
            deliveryOf.set(deliveryId, tenderId)
          }
          const delivered = [...deliveryOf.values()].filter((id) => ids.includes(id))
          expect(delivered.sort()).toEqual([...ids].sort())
          const alerts = yield* sql<{
            tender_id: string
          }>`SELECT tender_id FROM alerts
                                                     WHERE tender_id = ANY(${ids}::uuid[]) AND company_id = ${tenant.companies[0]!}`
          expect(alerts.map((a) => a.tender_id).sort()).toEqual([...ids].sort() as Array<string>)
        })
    )
  })
})
