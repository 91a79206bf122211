import { Data } from "effect"

/** Domain failures, independent of HTTP; the http layer maps each to its status and code. */

export class TenantNotFound extends Data.TaggedError("TenantNotFound")<{ readonly tenantId: string }> {}

export class ApiKeyLimitExceeded extends Data.TaggedError("ApiKeyLimitExceeded")<{ readonly limit: number }> {}

export class ApiKeyNotFound extends Data.TaggedError("ApiKeyNotFound")<{ readonly keyId: string }> {}

export class InsufficientCredits extends Data.TaggedError("InsufficientCredits")<{
  readonly remaining: number
  readonly required: number
  readonly periodEndsAt: string
}> {}

export class EmailTaken extends Data.TaggedError("EmailTaken")<{ readonly email: string }> {}
