import { createHmac, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../../src/infra/config/AppConfig.js"
import { EmailOutboxLive } from "../../src/infra/mail/EmailOutbox.js"
import { type ClaimInput, JobQueue } from "../../src/infra/queue/JobQueue.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { DeliveriesLive } from "../../src/infra/webhooks/Deliveries.js"
import { makeWebhookTransportLayer } from "../../src/infra/webhooks/HttpsWebhookTransport.js"
import { makeSecretBox, SecretBox } from "../../src/infra/webhooks/SecretBox.js"
import { type DispatcherOptions, WebhookDispatcherLive } from "../../src/workers/WebhookDispatcher.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { testConfig } from "../support/TestServer.js"

export const TestSecretBoxLive = Layer.succeed(SecretBox, makeSecretBox(randomBytes(32)))

/** Repositories (scoring), the deliveries, queue, secret box and outbox on a fresh database. */
export const DeliveryInfraLive = Layer.mergeAll(
  DeliveriesLive,
  EmailOutboxLive,
  TestSecretBoxLive,
  RepositoriesLive
).pipe(Layer.provideMerge(TestDatabaseLive))

/** Counts the dispatcher's claims (each one a query), to show it does not poll in a busy loop. */
export interface ClaimCounter {
  claims: number
}

/** The real queue, with each claim counted in `counter`. */
const CountingQueue = (counter: ClaimCounter) =>
  Layer.effect(
    JobQueue,
    Effect.map(JobQueue, (queue) => ({
      ...queue,
      claim: (input: ClaimInput) =>
        Effect.zipRight(
          Effect.sync(() => counter.claims++),
          queue.claim(input)
        )
    }))
  )

/** The dispatcher over the real queue, sending with the service's HTTPS transport trusting `cas`. */
export const DispatcherTestLayer = (
  cas: Array<string>,
  options: DispatcherOptions = {},
  counter: ClaimCounter = { claims: 0 }
) =>
  WebhookDispatcherLive(options).pipe(
    Layer.provide(CountingQueue(counter)),
    Layer.provideMerge(
      Layer.merge(
        DeliveryInfraLive,
        makeWebhookTransportLayer({ extraCaCertificates: cas }).pipe(
          Layer.provide(Layer.succeed(AppConfig, testConfig()))
        )
      )
    )
  )

/** The HMAC of spec 6.2 computed independently of src (node:crypto, written out here). */
export const expectedSignature = (secret: string, timestamp: string, body: string) =>
  `sha256=${createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(Buffer.from(`${timestamp}.${body}`, "utf8"))
    .digest("hex")}`

/** Real-time pause (the TestClock does not move it). */
export const pause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Retries `check` every 50 ms (real time) until it returns a value, for up to `seconds` (15). */
export const eventually = <A, R>(check: Effect.Effect<A | undefined, never, R>, seconds = 15) =>
  check.pipe(
    Effect.flatMap((value) => (value === undefined ? Effect.fail("not yet" as const) : Effect.succeed(value))),
    Effect.tapError(() => pause(50)),
    Effect.retry(Schedule.recurs(seconds * 20)),
    Effect.orDie
  )

let counter = 0

/** A tenant with `users` users, one company watching CPV 39160000-1 at threshold 0, and webhooks. */
export const tenantWithWebhooks = (options: {
  readonly users?: number
  readonly webhooks: ReadonlyArray<{ url: string; active?: boolean; events?: Array<string> }>
  readonly companies?: number
}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox
    const run = `${Date.now()}-${++counter}`
    const [tenant] = yield* sql<{ id: string }>`
      INSERT INTO tenants (name, plan) VALUES (${`T ${run}`}, 'consultant') RETURNING id`
    const tenantId = tenant!.id
    for (let i = 0; i < (options.users ?? 1); i++) {
      yield* sql`INSERT INTO users (tenant_id, email, password_hash) VALUES (${tenantId}, ${`u${i}-${run}@example.test`}, 'x')`
    }
    const companies: Array<string> = []
    for (let i = 0; i < (options.companies ?? 1); i++) {
      const [company] = yield* sql<{ id: string }>`
        INSERT INTO companies (tenant_id, name, description) VALUES (${tenantId}, ${`C${i}`}, 'Mobilier școlar')
        RETURNING id`
      yield* sql`INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, min_score)
                 VALUES (${tenantId}, ${company!.id}, 'W', '{39160000-1}', 0)`
      companies.push(company!.id)
    }
    const webhooks: Array<{ id: string; secret: string; url: string }> = []
    for (const w of options.webhooks) {
      const secret = randomBytes(24).toString("base64url")
      const [row] = yield* sql<{ id: string }>`
        INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events, active)
        VALUES (${tenantId}, ${w.url}, ${box.seal(secret)}, ${w.events ?? ["tender.matched"]}::text[], ${w.active ?? true})
        RETURNING id`
      webhooks.push({ id: row!.id, secret, url: w.url })
    }
    const emails = (yield* sql<{
      email: string
    }>`SELECT email FROM users WHERE tenant_id = ${tenantId} ORDER BY email`).map((r) => r.email)
    return { tenantId, companies, webhooks, emails }
  }).pipe(Effect.orDie)

/** New tenders that every fixture company watches, scored as new (so they raise events). */
export const newMatchingTenders = (count: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const scoring = yield* ScoringService
    const [authority] = yield* sql<{ id: string }>`
      INSERT INTO contracting_authorities (name, normalized_name, fiscal_code)
      VALUES ('Școala 1', ${`scoala ${++counter}`}, ${String(1_000_000 + counter)}) RETURNING id`
    const ids: Array<string> = []
    for (let i = 0; i < count; i++) {
      const [tender] = yield* sql<{ id: string }>`
        INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, publish_date, estimated_value_ron,
                             deadline, source_url)
        VALUES ('test', ${`n-${++counter}-${Math.random()}`}, 'Furnizare mobilier școlar', '39160000-1', ${authority!.id},
                '2026-01-10T00:00:00Z', 250000, '2099-03-01T10:00:00Z', 'https://example.test/notice')
        RETURNING id`
      ids.push(tender!.id)
    }
    const result = yield* scoring.scoreTenders(ids, { isNew: ids })
    return { ids, result }
  }).pipe(Effect.orDie)

export interface DeliveryRow {
  id: string
  status: string
  attempt_count: number
  next_attempt_at: Date | null
  last_status_code: number | null
  body: string
  webhook_id: string
  event_id: string
}

export const deliveriesOf = (webhookId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<DeliveryRow>`
      SELECT id, status, attempt_count, next_attempt_at, last_status_code, body, webhook_id, event_id
      FROM webhook_deliveries WHERE webhook_id = ${webhookId} ORDER BY created_at, id`
  ).pipe(Effect.orDie)

/** What DELETE /webhooks/:id does (the whapi slice): inactive, deleted_at, open deliveries ended. */
export const deleteWebhookAsTheApiDoes = (webhookId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.zipRight(
        sql`UPDATE webhooks SET active = false, deleted_at = now() WHERE id = ${webhookId}`,
        sql`UPDATE webhook_deliveries SET status = 'webhook_deleted'
            WHERE webhook_id = ${webhookId} AND status IN ('pending', 'delivering')`
      )
    )
  ).pipe(Effect.orDie)
