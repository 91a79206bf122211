import { type SqlClient, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import pg from "pg"
import type { Plan } from "../../domain/Plan.js"
import type { Verdict } from "../../domain/scoring/Verdict.js"
import { isoMicrosText, isoMillisText } from "./TimestampText.js"

/**
 * The key API's fast path: the process's `pg` pool and every named prepared statement a key-API
 * request runs (key lookup, company check, snapshot bound, list page, credit charge), with their
 * parameters and row types.
 *
 * Why they bypass @effect/sql: run through `SqlClient`, each query opens an Effect scope and is
 * parsed and planned again; straight on the pool, `pg` prepares a named statement once per
 * connection and afterwards sends only its parameters. Measured with `npm run bench -- api`, this
 * raised the service from 0.59x/0.72x to 0.73x/0.85x of the bare node:http baseline (BENCHMARKS.md,
 * "how the figures moved"). The baseline (bench/baseline-server.ts) runs these same statements.
 *
 * They ignore a surrounding `sql.withTransaction`: the pool hands them any connection, not the
 * transaction's. Inside a transaction, run a statement's text with `runOnSqlClient`.
 */

/** The `pg` pool under the process's PgClient; `PgLive` provides both, so they share the connections. */
export class PgPool extends Context.Tag("PgPool")<PgPool, pg.Pool>() {}

/** PgPool, PgClient and SqlClient over one pool of `maxConnections`, ended with the layer. */
export const PgLive = (options: {
  readonly url: Redacted.Redacted
  readonly maxConnections: number
  readonly applicationName?: string
}) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const pool = new pg.Pool({
            connectionString: Redacted.value(options.url),
            max: options.maxConnections,
            application_name: options.applicationName ?? "tender-scoring-service",
            // A connection attempt caught by a server restart can otherwise wait forever (a request
            // hung through a PostgreSQL restart in test/hardening/faults.test.ts); bounded, it is a
            // 503 the client may retry.
            connectionTimeoutMillis: 5_000,
            keepAlive: true
          })
          // An idle client's error (server restart) is reported on its next use, not here.
          pool.on("error", () => {})
          return pool
        }),
        (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption("1 second"))
      )
      // Fail at start, as PgClient.layer does, when the server cannot be reached.
      yield* Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        Effect.timeoutFail({
          duration: "5 seconds",
          onTimeout: () =>
            new SqlError.SqlError({
              cause: new Error("Connection timed out"),
              message: "PgClient: Connection timed out"
            })
        })
      )
      return Layer.merge(Layer.succeed(PgPool, pool), PgClient.layerFromPool({ acquire: Effect.succeed(pool) }))
    })
  )

/** A named prepared statement. A name always stands for the same text (each connection prepares it once). */
export interface Statement<Params extends ReadonlyArray<unknown>, Row> {
  readonly name: string
  readonly text: string
  /** Types only (never set): the parameters it takes and the rows it returns. */
  readonly signature?: (params: Params) => Row
}

const statement = <Params extends ReadonlyArray<unknown>, Row>(name: string, text: string): Statement<Params, Row> => ({
  name,
  text
})

/** Who owns a presented key (by its SHA-256); revoked keys are found too. */
export interface ApiKeyOwnerRow {
  readonly id: string
  readonly tenant_id: string
  readonly plan: Plan
  readonly revoked: boolean
  /** Compared again in constant time by the caller. */
  readonly key_hash: Buffer
}

/** One tender of a list page, timestamps already ISO 8601 UTC text. */
export interface TenderListRow {
  readonly tender_id: string
  readonly title: string
  readonly score: number
  readonly verdict: Verdict
  readonly cpv_codes: ReadonlyArray<string>
  readonly contracting_authority: string
  readonly deadline: string | null
  readonly estimated_value_ron: number | null
  readonly estimated_value_eur: number | null
  readonly publish_date: string
  readonly source_url: string
  /** The exact sort position (microseconds) for cursors. */
  readonly publish_key: string
}

/**
 * A row of the page statement: the company check, the snapshot bound and the total on every row,
 * and a tender, or none (`tender_id` null) in the one row of an empty page.
 */
export type ListPageRow = { readonly owned: boolean; readonly bound: string; readonly total: number } & (
  | TenderListRow
  | { readonly tender_id: null }
)

/** What a charge took and left. */
export interface CreditChargeRow {
  readonly charged: number
  readonly remaining: number
}

/** The columns of a served list row, from a score version `v` joined to its tender `t` and authority `a`. */
const listColumns = `v.tender_id, t.title, v.overall_score AS score, v.verdict,
             array_prepend(rtrim(t.main_cpv), t.additional_cpvs::text[]) AS cpv_codes,
             a.name AS contracting_authority, ${isoMillisText("t.deadline")} AS deadline,
             t.estimated_value_ron::float8 AS estimated_value_ron, t.estimated_value_eur::float8 AS estimated_value_eur,
             ${isoMillisText("v.tender_publish_date")} AS publish_date, t.source_url,
             ${isoMicrosText("v.tender_publish_date")} AS publish_key`

/** Company, least score, the snapshot of page 1 (pg_snapshot text; null on page 1), rows to read, tenant. */
type ListPageHead = readonly [
  companyId: string,
  minScore: number,
  snapshot: string | null,
  take: number,
  tenantId: string
]

const listOrder = "overall_score DESC, tender_publish_date DESC, tender_id"

/**
 * Page 1: checks that the company is the caller's ($5: tenant; `owned`, and nothing is read
 * otherwise) and returns, on every row, the statement's own snapshot (`pg_current_snapshot()`, the
 * cursor's bound: exactly what this page saw) and the total within it: one round trip per page.
 * Re-planning it on every request cost more than running it, hence prepared statements.
 */
const firstPageText = `
    WITH b AS (
      SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1 AND tenant_id = $5::uuid) AS owned
    )
    -- $3 is always null here (the head is shared with the later-page statement).
    SELECT b.owned, coalesce($3::pg_snapshot, pg_current_snapshot())::text AS bound, c.total, p.*
    FROM b
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total FROM tender_scores WHERE b.owned AND company_id = $1 AND overall_score >= $2
    ) c
    LEFT JOIN LATERAL (
      SELECT ${listColumns}
      FROM tender_scores v
      JOIN tenders t ON t.id = v.tender_id
      JOIN contracting_authorities a ON a.id = t.authority_id
      WHERE b.owned AND v.company_id = $1 AND v.overall_score >= $2
      ORDER BY v.overall_score DESC, v.tender_publish_date DESC, v.tender_id
      LIMIT $4
    ) p ON true
    -- publish_key is fixed-width ISO text, so it sorts as the instant does.
    ORDER BY p.score DESC, p.publish_key DESC, p.tender_id`

/**
 * The score versions of company $1 (score >= $2) that the snapshot `b.snap` saw: current rows whose
 * writer had committed by then, and replaced or removed versions whose replacer had not
 * (migration 0012). `extra` narrows both; with a `limit`, each branch reads its own ordered index.
 */
const snapshotVersions = (extra: string, limit?: string) => `
      (SELECT company_id, tender_id, overall_score, verdict, tender_publish_date FROM tender_scores
       WHERE company_id = $1 AND overall_score >= $2 AND pg_visible_in_snapshot(written_xid, b.snap) ${extra}
       ${limit === undefined ? "" : `ORDER BY ${listOrder} ${limit}`})
      UNION ALL
      (SELECT company_id, tender_id, overall_score, verdict, tender_publish_date FROM tender_score_history
       WHERE company_id = $1 AND overall_score >= $2 AND pg_visible_in_snapshot(written_xid, b.snap)
         AND NOT pg_visible_in_snapshot(superseded_xid, b.snap) ${extra}
       ${limit === undefined ? "" : `ORDER BY ${listOrder} ${limit}`})`

/** A later page: the rows after position ($6 score, $7 publish key, $8 tender id) within the snapshot $3 of page 1. */
const laterPageText = `
    WITH b AS (
      SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1 AND tenant_id = $5::uuid) AS owned, $3::pg_snapshot AS snap
    )
    SELECT b.owned, b.snap::text AS bound, c.total, p.*
    FROM b
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total FROM (${snapshotVersions("AND b.owned")}) v
    ) c
    LEFT JOIN LATERAL (
      SELECT ${listColumns}
      FROM (${snapshotVersions(
        `AND b.owned AND overall_score <= $6 AND (overall_score < $6 OR tender_publish_date < $7::timestamptz
             OR (tender_publish_date = $7::timestamptz AND tender_id > $8::uuid))`,
        "LIMIT $4"
      )}) v
      JOIN tenders t ON t.id = v.tender_id
      JOIN contracting_authorities a ON a.id = t.authority_id
      ORDER BY v.overall_score DESC, v.tender_publish_date DESC, v.tender_id
      LIMIT $4
    ) p ON true
    ORDER BY p.score DESC, p.publish_key DESC, p.tender_id`

export const KeyApiStatements = {
  /** Run on every key-API request; the index finds the row by the key's hash. */
  apiKeyOwner: statement<readonly [keyHash: Buffer], ApiKeyOwnerRow>(
    "tss_api_key_owner",
    `
  SELECT k.id, k.tenant_id, t.plan, k.revoked_at IS NOT NULL AS revoked, k.key_hash
  FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
  WHERE k.key_hash = $1`
  ),

  /** The tenant owning a company: the company check of the score and export routes. */
  companyTenant: statement<readonly [companyId: string], { readonly tenant_id: string }>(
    "tss_company_tenant",
    "SELECT tenant_id FROM companies WHERE id = $1"
  ),

  /** The snapshot of a new export pagination (pg_snapshot text): what later pages rebuild. */
  snapshotBound: statement<readonly [], { readonly bound: string }>(
    "tss_snapshot_bound",
    "SELECT pg_current_snapshot()::text AS bound"
  ),

  /** Page 1 (no position yet): takes the snapshot. Both page statements return at least one row. */
  listPage: statement<ListPageHead, ListPageRow>("tss_list_page", firstPageText),

  /** A page after the position (score, publish key, tender id) of the previous page's last row, in page 1's snapshot. */
  listPageAfter: statement<
    readonly [...ListPageHead, score: number, publishKey: string, tenderId: string],
    ListPageRow
  >("tss_list_page_after", laterPageText),

  /**
   * A charge in one statement (one implicit transaction): the conditional update of the period's
   * counter and its ledger row. It finds nothing when the period is not open yet or the balance is
   * below the least that allows the charge (`cost` for an exact charge, 1 for up-to).
   */
  creditCharge: statement<
    readonly [tenantId: string, periodStart: string, cost: number, leastBalance: number, reason: string],
    CreditChargeRow
  >(
    "tss_credit_charge",
    `
  WITH charged AS (
    UPDATE credit_periods cp
    SET remaining = cp.remaining - least(cp.remaining, $3::int)
    FROM (SELECT remaining AS before FROM credit_periods WHERE tenant_id = $1 AND period_start = $2 FOR UPDATE) old
    WHERE cp.tenant_id = $1 AND cp.period_start = $2 AND cp.remaining >= $4::int
    RETURNING old.before - cp.remaining AS charged, cp.remaining
  ), entry AS (
    INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after)
    SELECT $1, $2, -charged, 'charge', $5, remaining FROM charged
  )
  SELECT charged, remaining FROM charged`
  )
} as const

/**
 * Runs a statement by name straight on the pool (no Effect scope per query), outside any
 * transaction. SQL failures are defects: these statements take no user-shaped SQL.
 */
export const makeRunPrepared = Effect.map(
  PgPool,
  (pool) =>
    <Params extends ReadonlyArray<unknown>, Row>(
      statement: Statement<Params, Row>,
      params: Params
    ): Effect.Effect<ReadonlyArray<Row>> =>
      Effect.async<ReadonlyArray<Row>, SqlError.SqlError>((resume) => {
        pool.query(
          { name: statement.name, text: statement.text, values: params as ReadonlyArray<unknown> as Array<unknown> },
          (cause, result) =>
            resume(
              cause
                ? Effect.fail(new SqlError.SqlError({ cause, message: `Failed to execute ${statement.name}` }))
                : Effect.succeed(result.rows as ReadonlyArray<Row>)
            )
        )
      }).pipe(Effect.orDie)
)

/** Runs a statement's text (unnamed) through the SqlClient: inside `sql.withTransaction`, on its connection. */
export const runOnSqlClient = <Params extends ReadonlyArray<unknown>, Row extends object>(
  sql: SqlClient.SqlClient,
  statement: Statement<Params, Row>,
  params: Params
): Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError> => sql.unsafe<Row>(statement.text, params)
