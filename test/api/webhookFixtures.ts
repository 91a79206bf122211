import { addTender, query } from "../account/fixtures.js"
import type { TestServer } from "../support/TestServer.js"

/** A delivery row as the delivery fan-out would write it (an event of the tenant's company first). */
export const addDelivery = async (
  server: TestServer,
  account: { readonly tenantId: string; readonly companyId: string },
  webhookId: string,
  options: { readonly status: string; readonly attempts: number; readonly createdAt?: Date }
): Promise<string> => {
  const tenderId = await addTender(server)
  const [event] = await query<{ id: string }>(
    server,
    `INSERT INTO match_events (tenant_id, company_id, tender_id, payload, tender_publish_date)
     VALUES ($1, $2, $3, '{}', (SELECT publish_date FROM tenders WHERE id = $3)) RETURNING id`,
    [account.tenantId, account.companyId, tenderId]
  )
  const [delivery] = await query<{ id: string }>(
    server,
    `INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, attempt_count, created_at,
                                     next_attempt_at)
     VALUES ($1, $2, $3, '{"event":"tender.matched"}', $4, $5, $6, $6) RETURNING id`,
    [webhookId, event!.id, account.tenantId, options.status, options.attempts, options.createdAt ?? new Date()]
  )
  return delivery!.id
}
