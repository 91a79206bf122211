import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import type { TenderMatch } from "../../domain/scoring/MatchEvent.js"
import { arrayLiteral } from "../db/ArrayLiteral.js"
import { clockNow } from "../db/ClockNow.js"

/** Writes the alerts of new matches: one per watchlist a new tender reached (spec 2.6). */
export class AlertWriter extends Context.Tag("AlertWriter")<
  AlertWriter,
  {
    /** In the caller's transaction (the scores'); an alert already raised stays as it is. How many were new. */
    readonly recordMatches: (matches: ReadonlyArray<TenderMatch>) => Effect.Effect<number>
  }
>() {}

export const AlertWriterLive = Layer.effect(
  AlertWriter,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    recordMatches: (matches) => {
      const rows = matches.flatMap((match) => match.watchlistIds.map((watchlistId) => ({ match, watchlistId })))
      if (rows.length === 0) return Effect.succeed(0)
      // Raised now on the service's Clock (as the webhook deliveries are), not at the column's
      // default, the database transaction's start: tests move it with TestClock. Whole seconds: one
      // scoring pass writes in batches milliseconds apart, and its alerts should read as raised
      // together, so the list's tie-break (score desc) orders them as a consultant expects.
      return Effect.flatMap(
        Effect.map(clockNow, (now) => new Date(now.getTime() - (now.getTime() % 1000))),
        (now) => sql<{ inserted: number }>`
        WITH inserted AS (
          INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, created_at,
                              tender_publish_date)
          SELECT a.*, ${now}::timestamptz, t.publish_date
          FROM unnest(${arrayLiteral(rows.map((r) => r.match.tenantId))}::uuid[],
                      ${arrayLiteral(rows.map((r) => r.match.companyId))}::uuid[],
                      ${arrayLiteral(rows.map((r) => r.watchlistId))}::uuid[],
                      ${arrayLiteral(rows.map((r) => r.match.tenderId))}::uuid[],
                      ${arrayLiteral(rows.map((r) => r.match.score))}::smallint[],
                      ${arrayLiteral(rows.map((r) => r.match.verdict))}::text[])
               AS a(tenant_id, company_id, watchlist_id, tender_id, score, verdict)
          -- The partition key (migration 0029): the tender's publication date as it is now.
          JOIN tenders t ON t.id = a.tender_id
          ON CONFLICT (watchlist_id, tender_id, tender_publish_date) DO NOTHING
          RETURNING 1)
        SELECT count(*)::int AS inserted FROM inserted`
      ).pipe(
        Effect.map((result) => result[0]!.inserted),
        Effect.orDie
      )
    }
  }))
)
