import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { AlertNotFound } from "../../domain/Errors.js"
import { Verdict } from "../../domain/scoring/Verdict.js"

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
  /** The client company the alert is for (a consultant has several). */
  readonly companyId: string
  readonly companyName: string
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
    /**
     * Newest first: created_at desc; alerts raised together (one scoring pass) by score desc, then
     * id desc, so the order is total and stable across pages. `total` counts every match.
     */
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

const AlertRow = Schema.Struct({
  id: Schema.String,
  tender_id: Schema.String,
  tender_title: Schema.String,
  score: Schema.Number,
  verdict: Verdict,
  watchlist_id: Schema.String,
  watchlist_name: Schema.String,
  company_id: Schema.String,
  company_name: Schema.String,
  read: Schema.Boolean,
  created_at: Schema.DateFromSelf
})

/** A tenant's alerts matching AlertFilters. */
const AlertsMatching = Schema.Struct({
  tenantId: Schema.String,
  filters: Schema.Struct({
    unread: Schema.optionalWith(Schema.Boolean, { exact: true }),
    watchlistId: Schema.optionalWith(Schema.String, { exact: true }),
    verdict: Schema.optionalWith(Verdict, { exact: true }),
    createdAfter: Schema.optionalWith(Schema.DateFromSelf, { exact: true })
  })
})

const IdRow = Schema.Struct({ id: Schema.String })

const toAlert = (row: typeof AlertRow.Type): Alert => ({
  id: row.id,
  tenderId: row.tender_id,
  tenderTitle: row.tender_title,
  score: row.score,
  verdict: row.verdict,
  watchlistId: row.watchlist_id,
  watchlistName: row.watchlist_name,
  companyId: row.company_id,
  companyName: row.company_name,
  read: row.read,
  createdAt: row.created_at
})

export const AlertsRepoLive = Layer.effect(
  AlertsRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** An AlertRow of the alerts (or updated alerts) named `a`. */
    const alertRowsOf = (alerts: Statement.Fragment) => sql`
      SELECT a.id, a.tender_id, t.title AS tender_title, a.score, a.verdict, a.watchlist_id,
             w.name AS watchlist_name, a.company_id, c.name AS company_name, a.read, a.created_at
      FROM ${alerts} a JOIN tenders t ON t.id = a.tender_id JOIN watchlists w ON w.id = a.watchlist_id
        JOIN companies c ON c.id = a.company_id`
    const selectAlerts = alertRowsOf(sql`alerts`)

    const matching = ({ tenantId, filters }: typeof AlertsMatching.Encoded) =>
      sql.and([
        sql`a.tenant_id = ${tenantId}`,
        ...(filters.unread === undefined ? [] : [sql`a.read = ${!filters.unread}`]),
        ...(filters.watchlistId === undefined ? [] : [sql`a.watchlist_id = ${filters.watchlistId}`]),
        ...(filters.verdict === undefined ? [] : [sql`a.verdict = ${filters.verdict}`]),
        ...(filters.createdAfter === undefined ? [] : [sql`a.created_at > ${filters.createdAfter}`])
      ])

    const countAlerts = SqlSchema.single({
      Request: AlertsMatching,
      Result: Schema.Struct({ total: Schema.Number }),
      execute: (input) => sql`SELECT count(*)::int AS total FROM alerts a WHERE ${matching(input)}`
    })
    const alertsPage = SqlSchema.findAll({
      Request: Schema.Struct({ ...AlertsMatching.fields, offset: Schema.Number, limit: Schema.Number }),
      Result: AlertRow,
      execute: (input) => sql`
        ${selectAlerts} WHERE ${matching(input)}
        ORDER BY a.created_at DESC, a.score DESC, a.id DESC LIMIT ${input.limit} OFFSET ${input.offset}`
    })
    // One statement: an alert deleted between the update and a read of it (retention drops a closed
    // tender's alerts) would leave an update with nothing to answer; here it is no row, a 404.
    const markRead = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String, read: Schema.Boolean }),
      Result: AlertRow,
      execute: (input) => sql`
        WITH marked AS (
          UPDATE alerts SET read = ${input.read} WHERE id = ${input.id} AND tenant_id = ${input.tenantId} RETURNING *
        )
        ${alertRowsOf(sql`marked`)}`
    })
    const markUnreadRead = SqlSchema.findAll({
      Request: Schema.String,
      Result: IdRow,
      execute: (tenantId) => sql`UPDATE alerts SET read = true WHERE tenant_id = ${tenantId} AND NOT read RETURNING id`
    })

    const list = (input: {
      readonly tenantId: string
      readonly filters: AlertFilters
      readonly offset: number
      readonly limit: number
    }) =>
      // One snapshot for both statements: an alert written between them would make `total` disagree with the page.
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`
            const { total } = yield* countAlerts(input)
            const rows = yield* alertsPage(input)
            return { alerts: rows.map(toAlert), total }
          })
        )
        .pipe(Effect.orDie)

    const setRead = (input: { readonly tenantId: string; readonly id: string; readonly read: boolean }) =>
      Effect.gen(function* () {
        const updated = yield* markRead(input).pipe(Effect.orDie)
        if (Option.isNone(updated)) return yield* new AlertNotFound({ id: input.id })
        return toAlert(updated.value)
      })

    const markAllRead = (tenantId: string) =>
      markUnreadRead(tenantId).pipe(
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
