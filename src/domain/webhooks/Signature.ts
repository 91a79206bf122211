import { createHmac } from "node:crypto"

/**
 * The `X-SVC-Signature` value of spec 6.2: `sha256=` + lowercase hex HMAC-SHA256, keyed with the
 * webhook secret, of `<X-SVC-Timestamp>.<raw body>`. Computed per attempt, with that attempt's
 * timestamp (Unix seconds as text).
 */
export const signDelivery = (secret: string, timestampSeconds: string, body: string): string =>
  `sha256=${createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")}`
