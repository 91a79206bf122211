import type { Verdict } from "../../domain/scoring/Verdict.js"
import { statement } from "../db/PreparedStatements.js"
import { isoMicrosText, isoMillisText } from "../db/TimestampText.js"

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
 * Which tenders a list shows by their deadline: `open` ones can still be bid on (deadline strictly
 * after the instant `now`, or none, and the procedure not cancelled by then: AppTenderReads means the
 * same), `closed` ones are the rest, `all` is both. A cancellation counts from when it was ingested
 * (`cancelled_at`), so one that arrives between two pages moves no tender out of the pages that
 * follow page 1's instant.
 */
export type ListStatus = "all" | "open" | "closed"

/** The status condition on a score row's `tender_id`, `now` being the parameter holding the instant. */
const tenderFilter = (status: ListStatus, now: string) => {
  if (status === "all") return ""
  const open = `(t.cancelled_at IS NULL OR t.cancelled_at > ${now}::timestamptz)
    AND (t.deadline IS NULL OR t.deadline > ${now}::timestamptz)`
  return `AND ${status === "open" ? "" : "NOT "}EXISTS (SELECT 1 FROM tenders t WHERE t.id = tender_id AND ${open})`
}

/**
 * Page 1: checks that the company is the caller's ($5: tenant; `owned`, and nothing is read
 * otherwise) and returns, on every row, the statement's own snapshot (`pg_current_snapshot()`, the
 * cursor's bound: exactly what this page saw) and the total within it: one round trip per page.
 * Re-planning it on every request cost more than running it, hence prepared statements.
 */
const firstPageText = (status: ListStatus = "all") => `
    WITH b AS (
      SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1 AND tenant_id = $5::uuid) AS owned
    )
    -- $3 is always null here (the head is shared with the later-page statement).
    SELECT b.owned, coalesce($3::pg_snapshot, pg_current_snapshot())::text AS bound, c.total, p.*
    FROM b
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total FROM tender_scores WHERE b.owned AND company_id = $1 AND overall_score >= $2
        ${tenderFilter(status, "$6")}
    ) c
    LEFT JOIN LATERAL (
      SELECT ${listColumns}
      FROM tender_scores v
      JOIN tenders t ON t.id = v.tender_id
      JOIN contracting_authorities a ON a.id = t.authority_id
      WHERE b.owned AND v.company_id = $1 AND v.overall_score >= $2 ${tenderFilter(status, "$6")}
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
const laterPageText = (status: ListStatus = "all") => `
    WITH b AS (
      SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1 AND tenant_id = $5::uuid) AS owned, $3::pg_snapshot AS snap
    )
    SELECT b.owned, b.snap::text AS bound, c.total, p.*
    FROM b
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total FROM (${snapshotVersions(`AND b.owned ${tenderFilter(status, "$9")}`)}) v
    ) c
    LEFT JOIN LATERAL (
      SELECT ${listColumns}
      FROM (${snapshotVersions(
        `AND b.owned AND overall_score <= $6 AND (overall_score < $6 OR tender_publish_date < $7::timestamptz
             OR (tender_publish_date = $7::timestamptz AND tender_id > $8::uuid)) ${tenderFilter(status, "$9")}`,
        "LIMIT $4"
      )}) v
      JOIN tenders t ON t.id = v.tender_id
      JOIN contracting_authorities a ON a.id = t.authority_id
      ORDER BY v.overall_score DESC, v.tender_publish_date DESC, v.tender_id
      LIMIT $4
    ) p ON true
    ORDER BY p.score DESC, p.publish_key DESC, p.tender_id`

/** The key API's list statements, named and prepared (the measured hot path, db/PreparedStatements). */
export const ScoreListStatements = {
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
  listPage: statement<ListPageHead, ListPageRow>("tss_list_page", firstPageText()),

  /** A page after the position (score, publish key, tender id) of the previous page's last row, in page 1's snapshot. */
  listPageAfter: statement<
    readonly [...ListPageHead, score: number, publishKey: string, tenderId: string],
    ListPageRow
  >("tss_list_page_after", laterPageText()),

  /** Page 1 of the open or the closed tenders as of the instant $6. */
  listPageOf: {
    open: statement<readonly [...ListPageHead, now: Date], ListPageRow>("tss_list_page_open", firstPageText("open")),
    closed: statement<readonly [...ListPageHead, now: Date], ListPageRow>(
      "tss_list_page_closed",
      firstPageText("closed")
    )
  },

  /** A later page of the open or the closed tenders as of the instant $9 (page 1's). */
  listPageAfterOf: {
    open: statement<
      readonly [...ListPageHead, score: number, publishKey: string, tenderId: string, now: Date],
      ListPageRow
    >("tss_list_page_after_open", laterPageText("open")),
    closed: statement<
      readonly [...ListPageHead, score: number, publishKey: string, tenderId: string, now: Date],
      ListPageRow
    >("tss_list_page_after_closed", laterPageText("closed"))
  }
} as const
