import { Data } from "effect"

/**
 * Domain failures, independent of HTTP: what went wrong, raised by repositories and services.
 * The http layer answers each with a code of the API's vocabulary (ApiErrors.ts).
 */

export class TenantNotFound extends Data.TaggedError("TenantNotFound")<{ readonly tenantId: string }> {}

export class ApiKeyLimitExceeded extends Data.TaggedError("ApiKeyLimitExceeded")<{ readonly limit: number }> {}

export class ApiKeyNotFound extends Data.TaggedError("ApiKeyNotFound")<{ readonly keyId: string }> {}

export class InsufficientCredits extends Data.TaggedError("InsufficientCredits")<{
  readonly remaining: number
  readonly required: number
  readonly periodEndsAt: string
}> {}

export class EmailTaken extends Data.TaggedError("EmailTaken")<{ readonly email: string }> {}

/** One field a watchlist cannot have as given (the same shape as an error's `details` entry). */
export interface FieldProblem {
  readonly path: string
  readonly message: string
}

export class WatchlistInvalid extends Data.TaggedError("WatchlistInvalid")<{
  readonly problems: ReadonlyArray<FieldProblem>
}> {}

export class WatchlistLimitReached extends Data.TaggedError("WatchlistLimitReached")<{ readonly limit: number }> {}

export class WatchlistNotFound extends Data.TaggedError("WatchlistNotFound")<{ readonly id: string }> {}

/**
 * A report creation's idempotency key already stands for a job (created within the key's window,
 * maybe by a concurrent request): the job and the fingerprint of the request that created it.
 */
export class IdempotencyKeyTaken extends Data.TaggedError("IdempotencyKeyTaken")<{
  readonly jobId: string
  readonly fingerprint: string
}> {}

export class AlertNotFound extends Data.TaggedError("AlertNotFound")<{ readonly id: string }> {}

export class CompanyNotFound extends Data.TaggedError("CompanyNotFound")<{ readonly id: string }> {}

/** Why a refresh was refused; `reused` has already revoked the whole session (token family). */
export class RefreshRejected extends Data.TaggedError("RefreshRejected")<{
  readonly reason: "invalid" | "expired" | "reused" | "revoked"
}> {}

export class AccessTokenRejected extends Data.TaggedError("AccessTokenRejected")<{
  readonly reason: "invalid" | "expired" | "revoked"
}> {}

/** The request was over its policy's budget; the client may retry after this many seconds. */
export class RateLimitHit extends Data.TaggedError("RateLimitHit")<{
  readonly policy: string
  readonly retryAfterSeconds: number
}> {}

export class WebhookLimitExceeded extends Data.TaggedError("WebhookLimitExceeded")<{ readonly limit: number }> {}

/** No such webhook, or not the tenant's, or already deleted. */
export class WebhookNotFound extends Data.TaggedError("WebhookNotFound")<{ readonly id: string }> {}

/** No such delivery, or not the tenant's. */
export class DeliveryNotFound extends Data.TaggedError("DeliveryNotFound")<{ readonly id: string }> {}

/** A manual retry of a delivery in another state than `failed`. */
export class DeliveryNotRetryable extends Data.TaggedError("DeliveryNotRetryable")<{
  readonly id: string
  readonly status: string
}> {}

/** Feedback on a tender the company has no score for, or a company of another account (or unknown). */
export class FeedbackTargetNotFound extends Data.TaggedError("FeedbackTargetNotFound")<{
  readonly companyId: string
  readonly tenderId: string
}> {}
