import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { CompaniesRepo } from "../../src/infra/accounts/CompaniesRepo.js"
import { TenantsRepo } from "../../src/infra/accounts/TenantsRepo.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { WebhooksRepo } from "../../src/infra/webhooks/WebhooksRepo.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

/** A tenant with a company, one webhook and one failed delivery of it (attempts exhausted). */
const fixture = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tenant = yield* (yield* TenantsRepo).create({ name: "Hooks SRL", plan: "consultant" })
  const company = yield* (yield* CompaniesRepo).create({
    tenantId: tenant.id,
    name: "Hooks",
    description: "",
    fiscalCode: null
  })
  const webhook = yield* (yield* WebhooksRepo).create({
    tenantId: tenant.id,
    url: "https://hooks.example.com/",
    events: ["tender.matched"],
    secretCiphertext: new Uint8Array([1, 2, 3])
  })
  const [authority] = yield* sql<{ id: string }>`
    INSERT INTO contracting_authorities (name, normalized_name) VALUES ('A', ${webhook.id}) RETURNING id`
  const [tender] = yield* sql<{ id: string }>`
    INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, publish_date)
    VALUES ('test', ${webhook.id}, 'T', '45233140-2', ${authority!.id}, now()) RETURNING id`
  const [event] = yield* sql<{ id: string }>`
    INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date)
    VALUES (${tenant.id}, ${company.id}, ${tender!.id}, '{}', (SELECT publish_date FROM tenders WHERE id = ${tender!.id}))
    RETURNING id`
  const [delivery] = yield* sql<{ id: string }>`
    INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, attempt_count)
    VALUES (${webhook.id}, ${event!.id}, ${tenant.id}, '{}', 'failed', 4) RETURNING id`
  return { tenantId: tenant.id, webhook, deliveryId: delivery!.id }
})

describe("webhooks repository: every time comes from Effect's Clock", () => {
  layer(TestLayer)((it) => {
    it.effect("created_at, the retry's next_attempt_at and deleted_at are the TestClock's instants", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* WebhooksRepo
        yield* TestClock.setTime(Date.parse("2030-01-02T03:04:05.678Z"))
        const { tenantId, webhook, deliveryId } = yield* fixture
        expect(webhook.createdAt.toISOString()).toBe("2030-01-02T03:04:05.678Z")

        yield* TestClock.adjust("90 minutes")
        const retried = yield* repo.retryDelivery({ tenantId, deliveryId })
        expect(retried.status).toBe("pending")
        const [row] = yield* sql<{ next_attempt_at: Date; attempts_allowed: number; status: string }>`
          SELECT next_attempt_at, attempts_allowed, status FROM webhook_deliveries WHERE id = ${deliveryId}`
        expect(row!.next_attempt_at.toISOString()).toBe("2030-01-02T04:34:05.678Z")
        expect(row!.attempts_allowed).toBe(5)

        yield* TestClock.adjust("1 day")
        const removed = yield* repo.remove({ tenantId, id: webhook.id })
        expect(removed.deletedAt?.toISOString()).toBe("2030-01-03T04:34:05.678Z")
        const [after] = yield* sql<{ status: string; updated_at: Date }>`
          SELECT status, updated_at FROM webhook_deliveries WHERE id = ${deliveryId}`
        expect(after).toEqual({ status: "webhook_deleted", updated_at: new Date("2030-01-03T04:34:05.678Z") })
      })
    )

    it.effect("a second delete and another tenant's delete fail with WebhookNotFound", () =>
      Effect.gen(function* () {
        const repo = yield* WebhooksRepo
        const { tenantId, webhook } = yield* fixture
        const other = yield* (yield* TenantsRepo).create({ name: "Other SRL", plan: "consultant" })
        const foreign = yield* Effect.flip(repo.remove({ tenantId: other.id, id: webhook.id }))
        expect(foreign._tag).toBe("WebhookNotFound")
        yield* repo.remove({ tenantId, id: webhook.id })
        const again = yield* Effect.flip(repo.remove({ tenantId, id: webhook.id }))
        expect(again._tag).toBe("WebhookNotFound")
      })
    )
  })
})
