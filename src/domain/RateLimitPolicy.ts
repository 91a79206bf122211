import { Duration } from "effect"

/** A named budget of requests per window, counted per subject (a tenant, an e-mail, an address). */
export interface RateLimitPolicy {
  readonly name: string
  readonly limit: number
  readonly window: Duration.Duration
}

export interface RateLimitPolicies {
  /** Key API: tenders (list and score). Spec 8.1: 60 per minute. */
  readonly general: RateLimitPolicy
  /** Key API: export. Spec 8.1: 20 per hour. */
  readonly export: RateLimitPolicy
  /** Key API: PDF report creation. Spec 8.1: 10 per hour. */
  readonly reportCreation: RateLimitPolicy
  /** Failed logins per e-mail address (our choice: 5 per 15 minutes). */
  readonly loginPerEmail: RateLimitPolicy
  /** Failed logins per client address (our choice: 20 per 15 minutes). */
  readonly loginPerAddress: RateLimitPolicy
}

export const defaultRateLimitPolicies: RateLimitPolicies = {
  general: { name: "general", limit: 60, window: Duration.minutes(1) },
  export: { name: "export", limit: 20, window: Duration.hours(1) },
  reportCreation: { name: "report-creation", limit: 10, window: Duration.hours(1) },
  loginPerEmail: { name: "login-email", limit: 5, window: Duration.minutes(15) },
  loginPerAddress: { name: "login-address", limit: 20, window: Duration.minutes(15) }
}

/** Whole seconds a client must wait, as Retry-After and `retry_after_seconds` give it (at least 1). */
export const retryAfterSeconds = (wait: Duration.Duration): number =>
  Math.max(1, Math.ceil(Duration.toMillis(wait) / 1000))

/**
 * The window as the store counts it. The store spaces a window's requests `window / limit` apart,
 * and Redis takes expiry times in whole milliseconds only (a fraction makes every call fail), so
 * that spacing is rounded up: the window grows by less than `limit` milliseconds (7 per minute:
 * 60,004 ms).
 */
export const storeWindow = (policy: RateLimitPolicy): Duration.Duration =>
  Duration.millis(Math.ceil(Duration.toMillis(policy.window) / policy.limit) * policy.limit)
