/**
 * Whether a failure means PostgreSQL cannot be reached or is shutting down / starting up (a
 * restart, a failover), or did not answer a request's statement in time (the request pool's limits:
 * a lock held elsewhere, a statement too slow, no answer at all), rather than a fault of a statement:
 * the API answers these with 503 SERVICE_UNAVAILABLE, and the pool reconnects by itself once the
 * server is back. Follows the `cause` chain (SqlError wraps the driver's error).
 */
export const isDatabaseUnavailable = (error: unknown): boolean => {
  let current: unknown = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown }
    if (typeof code === "string" && (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true
    if (typeof message === "string" && DRIVER_MESSAGES.some((m) => message.includes(m))) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/** Node socket errors on connect or mid-query. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN"
])

/**
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (admin or crash shutdown, cannot connect
 * now: starting up or shutting down), 53300 (too many connections), 55P03 (lock_timeout reached) and
 * 57014 (statement_timeout reached, or a cancel).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300|55P03|57014)$/

/** What `pg` says when the connection is lost or cannot be made (these errors carry no code). */
const DRIVER_MESSAGES = [
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "timeout exceeded when trying to connect",
  "Connection timed out",
  // query_timeout (the request pool's REQUEST_READ_TIMEOUT): no answer to a statement.
  "Query read timeout"
]
