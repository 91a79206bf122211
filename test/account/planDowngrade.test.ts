import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addDelivery } from "../api/webhookFixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, query, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

/**
 * A tenant that left the Consultant plan: its keys answer 403 PLAN_UPGRADE_REQUIRED (spec 5) but are
 * not revoked, and would work again after an upgrade; its webhooks stay registered. Listing, revoking
 * and deleting them are security actions no plan may block; creating them still needs the plan.
 */
describe("account after a downgrade below Consultant: API keys and webhooks", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  const SECRET = "0123456789abcdef0123456789abcdef"

  const downgraded = async () => {
    const account = await seedAccount(server, "consultant")
    const app = client(server, (await signIn(server, account)).accessToken)
    return { account, app }
  }
  const setPlan = (account: SeededAccount, plan: SeededAccount["plan"]) =>
    query(server, "UPDATE tenants SET plan = $2 WHERE id = $1", [account.tenantId, plan])
  const tenders = (account: SeededAccount, key: string) =>
    request(`${server.baseUrl}/api/v1/tenders?companyId=${account.companyId}`, { token: key })

  it("the tenant still lists and revokes its API keys, and a revoked key stays dead after an upgrade", async () => {
    const { account, app } = await downgraded()
    const created = (await app.post("/api/v1/settings/api-keys", { name: "leaked" })).body.data
    await setPlan(account, "starter")
    // Dormant, not revoked: the plan refuses it.
    expect((await tenders(account, created.key)).body.code).toBe("PLAN_UPGRADE_REQUIRED")
    const listed = await app.get("/api/v1/settings/api-keys")
    expect(listed.status).toBe(200)
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.id, active: true })])
    const revoked = await app.delete(`/api/v1/settings/api-keys/${created.id}`)
    expect(revoked.status).toBe(200)
    expect(revoked.body.data).toMatchObject({ id: created.id, active: false })
    // Creating one still needs the plan.
    const refused = await app.post("/api/v1/settings/api-keys", { name: "new" })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe("PLAN_UPGRADE_REQUIRED")
    await setPlan(account, "consultant")
    const afterUpgrade = await tenders(account, created.key)
    expect(afterUpgrade.status).toBe(401)
    expect(afterUpgrade.body.code).toBe("API_KEY_REVOKED")
  })

  it("the tenant still lists and deletes its webhooks from the app; its pending deliveries end webhook_deleted", async () => {
    const { account, app } = await downgraded()
    const key = (await app.post("/api/v1/settings/api-keys", { name: "hooks" })).body.data.key
    const hook = await request(`${server.baseUrl}/api/v1/webhooks`, {
      method: "POST",
      token: key,
      body: { url: "https://hooks.example.com/", secret: SECRET, events: ["tender.matched"] }
    })
    expect(hook.status).toBe(201)
    const webhookId = hook.body.webhook_id as string
    const pending = await addDelivery(server, account, webhookId, { status: "pending", attempts: 0 })
    await setPlan(account, "activ")
    // The key API stays the Consultant plan's (spec 5): the key cannot delete it.
    const byKey = await request(`${server.baseUrl}/api/v1/webhooks/${webhookId}`, { method: "DELETE", token: key })
    expect(byKey.status).toBe(403)
    expect(byKey.body.code).toBe("PLAN_UPGRADE_REQUIRED")
    const listed = await app.get("/api/v1/settings/webhooks")
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([webhookId])
    const deleted = await app.delete(`/api/v1/settings/webhooks/${webhookId}`)
    expect(deleted.status).toBe(200)
    expect(deleted.body.data).toMatchObject({ id: webhookId, active: false })
    const [row] = await query<{ active: boolean; status: string }>(
      server,
      "SELECT w.active, d.status FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id WHERE d.id = $1",
      [pending]
    )
    expect(row).toEqual({ active: false, status: "webhook_deleted" })
    // Registering one still needs the plan.
    const refused = await app.post("/api/v1/settings/webhooks", {
      url: "https://hooks.example.com/",
      secret: SECRET,
      events: ["tender.matched"]
    })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe("PLAN_UPGRADE_REQUIRED")
  })
})
