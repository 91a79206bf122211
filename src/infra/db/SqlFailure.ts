import { SqlError } from "@effect/sql"

/** The driver's own reason under a SqlError (PostgreSQL's `relation "tenants" already exists`). */
export const driverReason = (error: SqlError.SqlError): string | undefined => {
  let cause = error.cause
  while (cause instanceof SqlError.SqlError) cause = cause.cause
  if (cause === undefined) return undefined
  return cause instanceof Error ? cause.message : String(cause)
}

/**
 * A SqlError as the one line an operator reads, from a process that cannot start and from the CLI:
 * @effect/sql's own messages ("Failed to execute statement") say nothing of why, so the driver's
 * reason is added to them; ours (a migration's, DATABASE_URL's) already carry it.
 */
export const sqlFailureLine = (error: SqlError.SqlError): string => {
  const reason = driverReason(error)
  if (reason === undefined || reason === "") return error.message || "Database error"
  if (error.message === "") return reason
  return error.message.startsWith("Failed to ") ? `${error.message}: ${reason}` : error.message
}
