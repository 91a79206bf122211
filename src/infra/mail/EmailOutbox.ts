import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer } from "effect"

export interface OutgoingMessage {
  readonly subject: string
  readonly bodyText: string
}

/**
 * The e-mail outbox: messages are rows of `email_outbox`, written in the caller's transaction (so a
 * message exists exactly when the state change it reports commits) and sent later by the mail
 * sender. The outbox is the source of truth; sending is at-least-once.
 */
export class EmailOutbox extends Context.Tag("EmailOutbox")<
  EmailOutbox,
  {
    /** One message to every user of the tenant; returns how many rows were queued. */
    readonly enqueueForTenant: (tenantId: string, message: OutgoingMessage) => Effect.Effect<number>
  }
>() {}

export const EmailOutboxLive = Layer.effect(
  EmailOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      enqueueForTenant: (tenantId, { subject, bodyText }) =>
        Effect.gen(function* () {
          const now = new Date(yield* Clock.currentTimeMillis)
          const rows = yield* sql`
            INSERT INTO email_outbox (tenant_id, to_address, subject, body_text, created_at)
            SELECT tenant_id, email, ${subject}, ${bodyText}, ${now}
            FROM users WHERE tenant_id = ${tenantId}
            ORDER BY email
            RETURNING id`
          return rows.length
        }).pipe(Effect.orDie)
    }
  })
)
