import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { AlertNotFound } from "../../domain/Errors.js"
import type { Verdict } from "../../domain/scoring/Verdict.js"

/** Alerts of a tenant: a tender reached a watchlist's threshold. The browser app reads and marks them. */

export interface Alert {
  readonly id: string
  readonly tenderId: string
  readonly tenderTitle: string
  readonly score: number
  readonly verdict: Verdict
  readonly watchlistId: string
  /** Also for deleted watchlists: their alerts are kept. */
  readonly watchlistName: string
  readonly read: boolean
  readonly createdAt: Date
}

export interface AlertFilters {
  /** true: unread only; false: read only; absent: both. */
  readonly unread?: boolean
  readonly watchlistId?: string
  readonly verdict?: Verdict
  /** Alerts created strictly after this instant. */
  readonly createdAfter?: Date
}

export class AlertsRepo extends Context.Tag("AlertsRepo")<
  AlertsRepo,
  {
    /** Newest first (created_at desc, id desc); `total` counts every match. */
    readonly list: (input: {
      readonly tenantId: string
      readonly filters: AlertFilters
      readonly offset: number
      readonly limit: number
    }) => Effect.Effect<{ readonly alerts: ReadonlyArray<Alert>; readonly total: number }>
    readonly setRead: (input: {
      readonly tenantId: string
      readonly id: string
      readonly read: boolean
    }) => Effect.Effect<Alert, AlertNotFound>
    /** Marks every unread alert of the tenant read; the number changed. */
    readonly markAllRead: (tenantId: string) => Effect.Effect<number>
    /** Whether the tenant owns this watchlist, deleted or not. */
    readonly ownsWatchlist: (input: {
      readonly tenantId: string
      readonly watchlistId: string
    }) => Effect.Effect<boolean>
  }
>() {}

interface AlertRow {
  readonly id: string
  readonly tender_id: string
  readonly tender_title: string
  readonly score: number
  readonly verdict: Verdict
  readonly watchlist_id: string
  readonly watchlist_name: string
  readonly read: boolean
  readonly created_at: Date
}

const toAlert = (row: AlertRow): Alert => ({
  id: row.id,
  tenderId: row.tender_id,
  tenderTitle: row.tender_title,
  score: row.score,
  verdict: row.verdict,
  watchlistId: row.watchlist_id,
  watchlistName: row.watchlist_name,
  read: row.read,
  createdAt: row.created_at
})

export const AlertsRepoLive = Layer.effect(
  AlertsRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const selectAlerts = sql`
      SELECT a.id, a.tender_id, t.title AS tender_title, a.score, a.verdict, a.watchlist_id,
             w.name AS watchlist_name, a.read, a.created_at
      FROM alerts a JOIN tenders t ON t.id = a.tender_id JOIN watchlists w ON w.id = a.watchlist_id`

    const list = (input: {
      readonly tenantId: string
      readonly filters: AlertFilters
      readonly offset: number
      readonly limit: number
    }) =>
      Effect.gen(function* () {
        const { filters } = input
        const where = sql.and([
          sql`a.tenant_id = ${input.tenantId}`,
          ...(filters.unread === undefined ? [] : [sql`a.read = ${!filters.unread}`]),
          ...(filters.watchlistId === undefined ? [] : [sql`a.watchlist_id = ${filters.watchlistId}`]),
          ...(filters.verdict === undefined ? [] : [sql`a.verdict = ${filters.verdict}`]),
          ...(filters.createdAfter === undefined ? [] : [sql`a.created_at > ${filters.createdAfter}`])
        ])
        const [{ total }] = yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM alerts a WHERE ${where}`
        const rows = yield* sql<AlertRow>`
          ${selectAlerts} WHERE ${where}
          ORDER BY a.created_at DESC, a.id DESC LIMIT ${input.limit} OFFSET ${input.offset}`
        return { alerts: rows.map(toAlert), total }
      }).pipe(Effect.orDie)

    const setRead = (input: { readonly tenantId: string; readonly id: string; readonly read: boolean }) =>
      Effect.gen(function* () {
        const updated = yield* sql<{ id: string }>`
          UPDATE alerts SET read = ${input.read} WHERE id = ${input.id} AND tenant_id = ${input.tenantId} RETURNING id`.pipe(
          Effect.orDie
        )
        if (updated.length === 0) return yield* new AlertNotFound({ id: input.id })
        const [row] = yield* sql<AlertRow>`${selectAlerts} WHERE a.id = ${input.id}`.pipe(Effect.orDie)
        return toAlert(row!)
      })

    const markAllRead = (tenantId: string) =>
      sql<{ id: string }>`UPDATE alerts SET read = true WHERE tenant_id = ${tenantId} AND NOT read RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )

    const ownsWatchlist = (input: { readonly tenantId: string; readonly watchlistId: string }) =>
      sql`SELECT 1 FROM watchlists WHERE id = ${input.watchlistId} AND tenant_id = ${input.tenantId}`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    return { list, setRead, markAllRead, ownsWatchlist }
  })
)
