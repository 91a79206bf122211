import type { PgClient } from "@effect/sql-pg"
import { Duration, Schedule, Stream } from "effect"

/**
 * One element per NOTIFY on `channel`, on a dedicated connection that is reopened when it drops (the
 * durable queues' wake-ups; polling stays their safety net). `PgClient.listen` (@effect/sql-pg 0.53)
 * silently drops notifications whose payload is empty: notify with a non-empty payload.
 */
export const wakeupsOn = (pg: PgClient.PgClient, channel: string): Stream.Stream<void> =>
  pg.listen(channel).pipe(Stream.retry(Schedule.spaced(Duration.seconds(1))), Stream.orDie, Stream.as(undefined))
