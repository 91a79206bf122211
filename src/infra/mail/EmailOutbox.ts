import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { MailRetrySchedule } from "../../domain/Retries.js"
import { clockNow } from "../db/ClockNow.js"
import { jobKind } from "../queue/JobKind.js"
import { type Job, JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import type { MailOutcome } from "./Mailer.js"

export interface OutgoingMessage {
  readonly subject: string
  readonly bodyText: string
  /** An HTML alternative to the text, sent beside it (the text stays the part every client can read). */
  readonly bodyHtml?: string
}

/** A message of the outbox still to be sent. */
export interface PendingMessage {
  readonly toAddress: string
  readonly subject: string
  readonly bodyText: string
  readonly bodyHtml: string | null
}

/**
 * "mail.send": one outbox message to hand to the SMTP server. Twelve attempts, at 0, +1, +3, +9 and
 * +27 minutes, then hourly (MailRetrySchedule), for 4xx replies and failed connections; then the
 * message is `failed`. A permanent (5xx) refusal of the message makes it `failed` at once (MailSender). An
 * attempt is one SMTP exchange under the mailer's 60 s deadline, so the kind's 5 minutes fail only
 * a hung one.
 */
export const SendEmail = jobKind("mail.send", Schema.Struct({ emailId: Schema.String }), {
  maxAttempts: 12,
  retry: MailRetrySchedule,
  timeout: Duration.minutes(5)
})

const PendingRow = Schema.Struct({
  to_address: Schema.String,
  subject: Schema.String,
  body_text: Schema.String,
  body_html: Schema.NullOr(Schema.String)
})

/**
 * The e-mail outbox: messages are rows of `email_outbox`, written in the caller's transaction with
 * a `mail.send` job each (so a message exists exactly when the state change it reports commits),
 * and sent later by the mail runner. The outbox is the source of truth; sending is at-least-once.
 */
export class EmailOutbox extends Context.Tag("EmailOutbox")<
  EmailOutbox,
  {
    /** One message to every user of the tenant; returns how many were queued. */
    readonly enqueueForTenant: (tenantId: string, message: OutgoingMessage) => Effect.Effect<number>
    /** One message to one user; returns the message's id (for the caller's own record of it). */
    readonly enqueueForUser: (userId: string, message: OutgoingMessage) => Effect.Effect<string>
    /** The message, while it is still to be sent. */
    readonly pending: (emailId: string) => Effect.Effect<Option.Option<PendingMessage>>
    /**
     * Records the outcome and completes the job in one statement; whether the job was still held. The
     * message's row is not conditional on the lease (once the server has the message, `sent` is the
     * truth) but on its being `pending`, so the statement may be made again after a failure.
     */
    readonly recordSent: (job: Job, emailId: string, outcome: MailOutcome) => Effect.Effect<boolean>
    /** The dead letter of a message: its attempts are used up. */
    readonly recordFailed: (emailId: string) => Effect.Effect<void>
  }
>() {}

export const EmailOutboxLive = Layer.effect(
  EmailOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* JobQueue

    const insertForTenant = SqlSchema.findAll({
      Request: Schema.Struct({
        tenantId: Schema.String,
        subject: Schema.String,
        bodyText: Schema.String,
        now: Schema.DateFromSelf
      }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: (input) => sql`
        INSERT INTO email_outbox (tenant_id, to_address, subject, body_text, created_at)
        SELECT tenant_id, email, ${input.subject}, ${input.bodyText}, ${input.now}
        FROM users WHERE tenant_id = ${input.tenantId}
        ORDER BY email
        RETURNING id::text`
    })

    const insertForUser = SqlSchema.single({
      Request: Schema.Struct({
        userId: Schema.String,
        subject: Schema.String,
        bodyText: Schema.String,
        bodyHtml: Schema.NullOr(Schema.String),
        now: Schema.DateFromSelf
      }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: (input) => sql`
        INSERT INTO email_outbox (tenant_id, to_address, subject, body_text, body_html, created_at)
        SELECT tenant_id, email, ${input.subject}, ${input.bodyText}, ${input.bodyHtml}, ${input.now}
        FROM users WHERE id = ${input.userId}
        RETURNING id::text`
    })

    const findPending = SqlSchema.findOne({
      Request: Schema.String,
      Result: PendingRow,
      execute: (emailId) =>
        sql`SELECT to_address, subject, body_text, body_html FROM email_outbox WHERE id = ${emailId} AND status = 'pending'`
    })

    return {
      enqueueForTenant: (tenantId, { subject, bodyText }) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const rows = yield* insertForTenant({ tenantId, subject, bodyText, now })
          return yield* queue.enqueueAll(
            SendEmail,
            rows.map((row) => ({ payload: { emailId: row.id } }))
          )
        }).pipe(Effect.orDie),
      enqueueForUser: (userId, { subject, bodyText, bodyHtml }) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const row = yield* insertForUser({ userId, subject, bodyText, bodyHtml: bodyHtml ?? null, now })
          yield* queue.enqueue(SendEmail, { emailId: row.id })
          return row.id
        }).pipe(Effect.orDie),
      pending: (emailId) =>
        findPending(emailId).pipe(
          Effect.map(
            Option.map((row) => ({
              toAddress: row.to_address,
              subject: row.subject,
              bodyText: row.body_text,
              bodyHtml: row.body_html
            }))
          ),
          Effect.orDie
        ),
      recordSent: (job, emailId, outcome) =>
        Effect.gen(function* () {
          const now = yield* clockNow
          const done = yield* queue.settlement(job, { _tag: "done" })
          const [row] = yield* sql<{ held: boolean }>`
            WITH held AS (${done}), recorded AS (
              UPDATE email_outbox SET status = ${outcome}, sent_at = ${now}
              WHERE id = ${emailId} AND status = 'pending'
              RETURNING 1
            )
            SELECT EXISTS (SELECT 1 FROM held) AS held`
          return row?.held === true
        }).pipe(Effect.orDie),
      recordFailed: (emailId) =>
        sql`UPDATE email_outbox SET status = 'failed' WHERE id = ${emailId} AND status = 'pending'`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    }
  })
).pipe(Layer.provide(JobQueueLive))
