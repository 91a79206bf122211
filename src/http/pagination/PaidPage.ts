import { Effect } from "effect"
import type { ApiCallerShape } from "../ApiKeyAuth.js"
import { chargeCredits } from "../credits/CreditsReport.js"

/**
 * The paid listing step of tenders and export: charge one credit per row of the page (as many as the
 * balance pays for, 402 when it pays for none), serve only the rows paid for, and build the cursor
 * after the last served row. `rows` holds up to one row more than `limit`: that row only tells
 * whether another page exists.
 */
export const servePaidPage = <Row>(input: {
  readonly caller: ApiCallerShape
  readonly rows: ReadonlyArray<Row>
  readonly limit: number
  readonly reason: string
  readonly cursorAfter: (last: Row) => string
}) =>
  Effect.gen(function* () {
    const { caller, rows, limit } = input
    const page = rows.length > limit ? rows.slice(0, limit) : rows
    const charge = yield* chargeCredits({
      tenantId: caller.tenantId,
      report: caller.credits,
      cost: page.length,
      mode: "upTo",
      reason: input.reason
    })
    // Never serve more than was charged: a short balance shortens the page.
    const served = charge.charged < page.length ? page.slice(0, charge.charged) : page
    const last = served[served.length - 1]
    const hasMore = rows.length > served.length
    const nextCursor = hasMore && last !== undefined ? input.cursorAfter(last) : null
    return { served, hasMore, nextCursor, charge }
  })
