/**
 * The key API list's answer as the bare baseline builds it (bench/baseline-server.ts, and the probe
 * bench/probe-httpapi-list.ts): the same JSON the service writes, from the same statement's rows.
 */
import { encodeCursor } from "../src/domain/Cursor.js"
import type { ListPageRow } from "../src/infra/scoring/ScoreListStatements.js"

export type ListRow = Extract<ListPageRow, { tender_id: string }>

/** The page's body: its items, and the cursor after the last served row when more follow. */
export const listPageBody = (page: {
  readonly secret: Buffer
  readonly query: string
  readonly rows: ReadonlyArray<ListRow>
  readonly served: ReadonlyArray<ListRow>
  readonly total: number
  readonly bound: string
  readonly limit: number
  readonly charge: { readonly charged: number; readonly remaining: number; readonly periodEndsAt: string }
}) => {
  const { served, charge } = page
  const last = served[served.length - 1]
  const hasMore = page.rows.length > served.length
  return {
    data: served.map((row) => ({
      tender_id: row.tender_id,
      title: row.title,
      score: row.score,
      verdict: row.verdict,
      cpv_codes: row.cpv_codes,
      contracting_authority: row.contracting_authority,
      deadline: row.deadline,
      estimated_value_ron: row.estimated_value_ron,
      estimated_value_eur: row.estimated_value_eur,
      publish_date: row.publish_date,
      source_url: row.source_url
    })),
    meta: {
      total: page.total,
      limit: page.limit,
      next_cursor:
        hasMore && last
          ? encodeCursor(page.secret, page.query, {
              key: [last.score, last.publish_key, last.tender_id],
              bound: page.bound
            })
          : null,
      has_more: hasMore,
      credits: { cost: charge.charged, remaining: charge.remaining, period_ends_at: charge.periodEndsAt }
    }
  }
}

/** The credit headers of a charged page. */
export const creditHeaders = (charge: { readonly charged: number; readonly remaining: number }) => ({
  "x-api-credits-cost": String(charge.charged),
  "x-api-credits-remaining": String(charge.remaining)
})
