import { createHash } from "node:crypto"
import type { ReportParams } from "./ReportJob.js"

export { isIdempotencyKey, REPORT_IDEMPOTENCY_WINDOW } from "./IdempotencyKeyRules.js"

/**
 * What makes two creations under one idempotency key "the same request": the company and the body
 * as decoded (`min_score` with its default 0, ids lower case), so `{min_score: 0}` and no
 * `min_score` are the same request. A SHA-256 (hex) of those fields in a fixed order.
 */
export const reportRequestFingerprint = (companyId: string, params: ReportParams): string =>
  createHash("sha256")
    .update(
      JSON.stringify([
        companyId.toLowerCase(),
        params.date_from,
        params.date_to,
        params.min_score,
        params.watchlist_id?.toLowerCase() ?? null
      ])
    )
    .digest("hex")
