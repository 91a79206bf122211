import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, type Stream } from "effect"
import { delayAfterFailure, MailRetrySchedule } from "../../domain/Retries.js"
import { clockNow } from "../db/ClockNow.js"
import { wakeupsOn } from "../queue/Wakeups.js"
import type { MailOutcome } from "./Mailer.js"

export interface OutgoingMessage {
  readonly subject: string
  readonly bodyText: string
}

/** An outbox row claimed by one sender under a lease; `attempts` counts this one. */
export interface ClaimedMessage {
  readonly id: string
  readonly toAddress: string
  readonly subject: string
  readonly bodyText: string
  readonly attempts: number
  readonly claimedBy: string
}

/** NOTIFY channel of the outbox: a sender wakes when a transaction that queued mail commits. */
export const MAIL_CHANNEL = "mail"

/**
 * The e-mail outbox: messages are rows of `email_outbox`, written in the caller's transaction (so a
 * message exists exactly when the state change it reports commits) and sent later by the mail
 * sender. The outbox is the source of truth; sending is at-least-once. Senders claim due rows with
 * FOR UPDATE SKIP LOCKED under a lease; a crashed sender's rows are claimable again once the lease
 * runs out. Every time (next attempt, lease, sent_at) comes from Effect's `Clock`.
 */
export class EmailOutbox extends Context.Tag("EmailOutbox")<
  EmailOutbox,
  {
    /** One message to every user of the tenant; returns how many rows were queued. */
    readonly enqueueForTenant: (tenantId: string, message: OutgoingMessage) => Effect.Effect<number>
    /** Pending rows whose next attempt is due and that no live lease holds, oldest first. */
    readonly claimDue: (input: {
      readonly workerId: string
      readonly limit: number
      readonly lease: Duration.DurationInput
    }) => Effect.Effect<ReadonlyArray<ClaimedMessage>>
    readonly markDelivered: (message: ClaimedMessage, outcome: MailOutcome) => Effect.Effect<void>
    /**
     * Schedules the next attempt at now + `MailRetrySchedule`'s delay for this attempt count, or marks
     * the row `failed` when the schedule gives up; `last_error` records `error` either way.
     */
    readonly recordFailure: (message: ClaimedMessage, error: string) => Effect.Effect<"retrying" | "failed">
    /** One element per NOTIFY on the mail channel (a dedicated connection, reopened when it drops). */
    readonly wakeups: Stream.Stream<void>
  }
>() {}

const after = (now: Date, duration: Duration.DurationInput) => new Date(now.getTime() + Duration.toMillis(duration))

export const EmailOutboxLive = Layer.effect(
  EmailOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    return {
      enqueueForTenant: (tenantId, { subject, bodyText }) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const rows = yield* sql`
            INSERT INTO email_outbox (tenant_id, to_address, subject, body_text, created_at, next_attempt_at)
            SELECT tenant_id, email, ${subject}, ${bodyText}, ${now}, ${now}
            FROM users WHERE tenant_id = ${tenantId}
            ORDER BY email
            RETURNING id`
          // Delivered on commit: inside the caller's transaction, no sender wakes for rows that roll back.
          // A non-empty payload: PgClient.listen drops notifications whose payload is empty.
          if (rows.length > 0) yield* sql`SELECT pg_notify(${MAIL_CHANNEL}, 'queued')`
          return rows.length
        }).pipe(Effect.orDie),
      claimDue: ({ workerId, limit, lease }) =>
        Effect.flatMap(
          clockNow,
          (now) => sql<{ id: string; to_address: string; subject: string; body_text: string; attempts: number }>`
            UPDATE email_outbox SET attempts = attempts + 1, locked_by = ${workerId},
                   lease_until = ${after(now, lease)}
            WHERE id IN (
              SELECT id FROM email_outbox
              WHERE status = 'pending' AND next_attempt_at <= ${now}
                AND (lease_until IS NULL OR lease_until < ${now})
              ORDER BY next_attempt_at, id
              LIMIT ${limit}
              FOR UPDATE SKIP LOCKED
            )
            RETURNING id::text, to_address, subject, body_text, attempts`
        ).pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              id: r.id,
              toAddress: r.to_address,
              subject: r.subject,
              bodyText: r.body_text,
              attempts: r.attempts,
              claimedBy: workerId
            }))
          ),
          Effect.orDie
        ),
      // Not conditional on the lease: once the server has the message, `sent` is the truth.
      markDelivered: (message, outcome) =>
        Effect.flatMap(
          clockNow,
          (now) => sql`
            UPDATE email_outbox SET status = ${outcome}, sent_at = ${now}, locked_by = NULL, lease_until = NULL
            WHERE id = ${message.id} AND status = 'pending'`
        ).pipe(Effect.asVoid, Effect.orDie),
      recordFailure: (message, error) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const retryIn = yield* delayAfterFailure(MailRetrySchedule, message.attempts)
          // Only while the row is still ours: after a lost lease, the new holder's outcome counts.
          yield* sql`
            UPDATE email_outbox SET status = ${Option.isSome(retryIn) ? "pending" : "failed"},
                   last_error = ${error}, locked_by = NULL, lease_until = NULL,
                   next_attempt_at = ${Option.match(retryIn, { onNone: () => now, onSome: (delay) => after(now, delay) })}
            WHERE id = ${message.id} AND status = 'pending' AND locked_by = ${message.claimedBy}`
          return Option.isSome(retryIn) ? ("retrying" as const) : ("failed" as const)
        }).pipe(Effect.orDie),
      wakeups: wakeupsOn(pg, MAIL_CHANNEL)
    }
  })
)
