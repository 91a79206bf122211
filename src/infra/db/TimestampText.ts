/**
 * SQL expressions that format a timestamptz column as fixed-width ISO 8601 UTC text, so timestamps
 * leave PostgreSQL as the text the wire carries. Fixed width makes the text sort as the instant does.
 */

/** `2026-05-05T08:00:00.000Z`: what the API shows. */
export const isoMillisText = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** `2026-05-05T08:00:00.000000Z`: PostgreSQL's full precision, the exact sort position a cursor resumes from. */
export const isoMicrosText = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
