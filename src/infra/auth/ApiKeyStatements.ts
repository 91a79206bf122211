import type { Plan } from "../../domain/Plan.js"
import { statement } from "../db/PreparedStatements.js"

/** Who owns a presented key (by its SHA-256); revoked keys are found too. */
export interface ApiKeyOwnerRow {
  readonly id: string
  readonly tenant_id: string
  readonly plan: Plan
  readonly revoked: boolean
  /** Compared again in constant time by the caller. */
  readonly key_hash: Buffer
}

/** The key API's key lookup, a named prepared statement (the measured hot path, db/PreparedStatements). */
export const ApiKeyStatements = {
  /** Run on every key-API request; the index finds the row by the key's hash. */
  apiKeyOwner: statement<readonly [keyHash: Buffer], ApiKeyOwnerRow>(
    "tss_api_key_owner",
    `
  SELECT k.id, k.tenant_id, t.plan, k.revoked_at IS NOT NULL AS revoked, k.key_hash
  FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
  WHERE k.key_hash = $1`
  )
} as const
