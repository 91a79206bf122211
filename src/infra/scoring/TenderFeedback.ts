import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { FeedbackTargetNotFound } from "../../domain/Errors.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { RescoreCompany, rescoreOnce } from "./ScoringJobKinds.js"

/**
 * Feedback marks (issue 21): a user says a tender scored for one of the account's companies is
 * relevant or not. A mark or its removal queues `company.rescore` in the same transaction; the
 * rescore reads the marks into the company's profile (ScoringReads, domain/scoring/Feedback.ts).
 * Only a pair that has a score can be marked, and only by the company's own account.
 */

export interface FeedbackMarkRow {
  readonly companyId: string
  readonly tenderId: string
  readonly relevant: boolean
  readonly markedAt: Date
}

export class TenderFeedback extends Context.Tag("TenderFeedback")<
  TenderFeedback,
  {
    /** Marks (or re-marks) the pair; fails when the company is not the tenant's or has no score for the tender. */
    readonly mark: (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly tenderId: string
      readonly relevant: boolean
      readonly now: Date
    }) => Effect.Effect<FeedbackMarkRow, FeedbackTargetNotFound>
    /** Removes the mark (idempotent); fails like `mark` when there is neither a mark nor a score. */
    readonly unmark: (input: {
      readonly tenantId: string
      readonly companyId: string
      readonly tenderId: string
    }) => Effect.Effect<void, FeedbackTargetNotFound>
    /** The company's marks, latest first; none when the company is not the tenant's. */
    readonly list: (input: {
      readonly tenantId: string
      readonly companyId: string
    }) => Effect.Effect<Option.Option<ReadonlyArray<FeedbackMarkRow>>>
  }
>() {}

interface Row {
  readonly company_id: string
  readonly tender_id: string
  readonly relevant: boolean
  readonly marked_at: Date
}

const toMark = (row: Row): FeedbackMarkRow => ({
  companyId: row.company_id,
  tenderId: row.tender_id,
  relevant: row.relevant,
  markedAt: row.marked_at
})

export const makeTenderFeedback = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const jobs = yield* JobQueue

  // A deactivated company is not scored (its scores are kept as they are): its marks apply when it
  // is reactivated, which queues its rescore.
  const rescoreIfActive = (companyId: string, active: boolean) =>
    active ? jobs.enqueue(RescoreCompany, { companyId }, rescoreOnce(companyId)) : Effect.void

  const mark: TenderFeedback["Type"]["mark"] = (input) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          // One statement checks the account and the score and writes the mark, so nothing is
          // written for another tenant's company or an unscored tender.
          const rows = yield* sql<Row & { readonly active: boolean }>`
            WITH marked AS (
              INSERT INTO tender_feedback (company_id, tender_id, tenant_id, relevant, marked_at)
              SELECT s.company_id, s.tender_id, c.tenant_id, ${input.relevant}, ${input.now.toISOString()}::timestamptz
              FROM tender_scores s JOIN companies c ON c.id = s.company_id
              WHERE s.company_id = ${input.companyId}::uuid AND s.tender_id = ${input.tenderId}::uuid
                AND c.tenant_id = ${input.tenantId}::uuid
              ON CONFLICT (company_id, tender_id)
                DO UPDATE SET relevant = EXCLUDED.relevant, marked_at = EXCLUDED.marked_at
              RETURNING company_id, tender_id, relevant, marked_at
            )
            SELECT m.*, c.active FROM marked m JOIN companies c ON c.id = m.company_id`
          const row = rows[0]
          if (row === undefined) {
            return yield* new FeedbackTargetNotFound({ companyId: input.companyId, tenderId: input.tenderId })
          }
          yield* rescoreIfActive(input.companyId, row.active)
          return toMark(row)
        })
      )
      .pipe(Effect.catchTag("SqlError", Effect.die))

  const unmark: TenderFeedback["Type"]["unmark"] = (input) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const deleted = yield* sql`
            DELETE FROM tender_feedback
            WHERE company_id = ${input.companyId}::uuid AND tender_id = ${input.tenderId}::uuid
              AND tenant_id = ${input.tenantId}::uuid
            RETURNING (SELECT active FROM companies WHERE id = company_id) AS active`
          if (deleted.length > 0) {
            yield* rescoreIfActive(input.companyId, deleted[0]!.active === true)
            return
          }
          // Nothing to undo: still a success for a pair that could be marked (idempotent undo).
          const scored = yield* sql`
            SELECT 1 FROM tender_scores s JOIN companies c ON c.id = s.company_id
            WHERE s.company_id = ${input.companyId}::uuid AND s.tender_id = ${input.tenderId}::uuid
              AND c.tenant_id = ${input.tenantId}::uuid`
          if (scored.length === 0) {
            return yield* new FeedbackTargetNotFound({ companyId: input.companyId, tenderId: input.tenderId })
          }
        })
      )
      .pipe(Effect.catchTag("SqlError", Effect.die))

  const list: TenderFeedback["Type"]["list"] = (input) =>
    Effect.gen(function* () {
      const owned = yield* sql`
        SELECT 1 FROM companies WHERE id = ${input.companyId}::uuid AND tenant_id = ${input.tenantId}::uuid`
      if (owned.length === 0) return Option.none()
      const rows = yield* sql<Row>`
        SELECT company_id, tender_id, relevant, marked_at FROM tender_feedback
        WHERE company_id = ${input.companyId}::uuid
        ORDER BY marked_at DESC, tender_id`
      return Option.some(rows.map(toMark))
    }).pipe(Effect.orDie)

  return TenderFeedback.of({ mark, unmark, list })
})

export const TenderFeedbackLive = Layer.effect(TenderFeedback, makeTenderFeedback).pipe(Layer.provide(JobQueueLive))
