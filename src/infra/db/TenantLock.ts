import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { TenantNotFound } from "../../domain/Errors.js"

/**
 * Locks the tenant's row until the surrounding transaction ends. Per-tenant limits (active API keys,
 * webhooks) count their rows after taking it, so concurrent creations queue here and the count
 * cannot go stale.
 */
export const lockTenant = (sql: SqlClient.SqlClient, tenantId: string) =>
  sql`SELECT id FROM tenants WHERE id = ${tenantId} FOR UPDATE`.pipe(
    Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(new TenantNotFound({ tenantId })) : Effect.void))
  )
