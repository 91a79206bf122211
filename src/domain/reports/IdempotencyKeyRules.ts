import { Duration } from "effect"

/**
 * `Idempotency-Key` of a report creation (ours; spec 4.3 is silent): a creation repeated with the
 * same key within REPORT_IDEMPOTENCY_WINDOW answers the job the first one created, and holds nothing
 * more; the same key with another request is refused (409). Keys are the tenant's: another tenant's
 * equal key is another key. Apart from IdempotencyKey.ts (which needs node:crypto) so the API
 * definitions, and with them the browser app, can name these rules.
 */

/** 1-255 printable ASCII characters (space to `~`), as Stripe takes them; a UUID is the usual choice. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/

export const isIdempotencyKey = (value: string): boolean => IDEMPOTENCY_KEY_PATTERN.test(value)

/** How long a key stands for its job after the creation that stored it. */
export const REPORT_IDEMPOTENCY_WINDOW = Duration.hours(24)
