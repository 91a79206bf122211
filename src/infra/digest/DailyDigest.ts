import { SqlClient, SqlSchema } from "@effect/sql"
import { Cause, Context, Data, Duration, Effect, Layer, Option, Schema } from "effect"
import { isEmptyDigest, renderDigest } from "../../domain/digest/DigestEmail.js"
import { DIGEST_FIRST_WINDOW, DIGEST_SETTLE, type DigestSlot, digestSlot } from "../../domain/digest/DigestSchedule.js"
import { AppConfig } from "../config/AppConfig.js"
import { clockNow } from "../db/ClockNow.js"
import { EmailOutbox } from "../mail/EmailOutbox.js"
import { DigestReads, DigestReadsLive } from "./DigestReads.js"

/** What one pass did with the users it found due. */
export interface DigestPass {
  /** Digests queued in the e-mail outbox. */
  readonly queued: number
  /** Users with nothing to report: their day is recorded, no e-mail is sent. */
  readonly empty: number
  /** Users another worker took first (its digest_sends row won). */
  readonly taken: number
  /** Users who turned the digest off (or moved its hour later) after the pass found them due. */
  readonly off: number
}

type Outcome = keyof DigestPass

/**
 * The daily digest: `sendDue` finds the users whose Bucharest hour has come and who have no digest
 * for today yet, and for each, in one transaction, claims the day (a `digest_sends` row, primary
 * key user and Bucharest date) and queues the e-mail in the outbox. A second worker running the
 * same pass waits on the first one's row and then finds it taken, so a user gets one digest a day
 * however many workers run. The claim is undone when the user no longer wants that digest by then.
 * Time is Effect's Clock.
 */
export class DailyDigest extends Context.Tag("DailyDigest")<
  DailyDigest,
  { readonly sendDue: Effect.Effect<DigestPass> }
>() {}

const DueUser = Schema.Struct({ id: Schema.String, tenant_id: Schema.String })

/** Rolls back a claim: the user turned the digest off, or moved its hour later, after the pass listed them. */
class NoLongerDue extends Data.TaggedError("NoLongerDue") {}

export const DailyDigestLive = Layer.effect(
  DailyDigest,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* DigestReads
    const outbox = yield* EmailOutbox
    const config = yield* AppConfig

    const dueUsers = SqlSchema.findAll({
      Request: Schema.Struct({ hour: Schema.Number, date: Schema.String }),
      Result: DueUser,
      execute: ({ hour, date }) => sql`
        SELECT u.id::text, u.tenant_id::text FROM users u
        WHERE u.digest_enabled AND u.digest_hour <= ${hour}
          AND NOT EXISTS (SELECT 1 FROM digest_sends d WHERE d.user_id = u.id AND d.bucharest_date = ${date}::date)
        ORDER BY u.id`
    })

    const previousEnd = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ covered_to: Schema.DateFromSelf, digest_enabled_at: Schema.NullOr(Schema.DateFromSelf) }),
      execute: (userId) => sql`
        SELECT d.covered_to, u.digest_enabled_at FROM digest_sends d JOIN users u ON u.id = d.user_id
        WHERE d.user_id = ${userId} ORDER BY d.bucharest_date DESC LIMIT 1`
    })

    // ON CONFLICT DO NOTHING waits for a concurrent insert of the same day to commit, then yields no row.
    const claimDay = SqlSchema.findAll({
      Request: Schema.Struct({
        userId: Schema.String,
        date: Schema.String,
        from: Schema.DateFromSelf,
        to: Schema.DateFromSelf
      }),
      Result: Schema.Struct({ claimed: Schema.Boolean }),
      execute: (input) => sql`
        INSERT INTO digest_sends (user_id, bucharest_date, covered_from, covered_to)
        VALUES (${input.userId}, ${input.date}::date, ${input.from}, ${input.to})
        ON CONFLICT DO NOTHING
        RETURNING true AS claimed`
    })

    // A statement after the claim, so it sees a change committed while the claim waited on another
    // worker's; FOR SHARE makes a change from here on wait for this digest's commit (it comes after it).
    const stillDue = SqlSchema.findAll({
      Request: Schema.Struct({ userId: Schema.String, hour: Schema.Number }),
      Result: Schema.Struct({ due: Schema.Boolean }),
      execute: ({ userId, hour }) => sql`
        SELECT true AS due FROM users WHERE id = ${userId} AND digest_enabled AND digest_hour <= ${hour} FOR SHARE`
    })

    const lookBack = (from: Date) => new Date(from.getTime() - Duration.toMillis(DIGEST_FIRST_WINDOW))

    const digestFor = (user: typeof DueUser.Type, { date, hour }: DigestSlot, now: Date) =>
      sql.withTransaction(
        Effect.gen(function* () {
          // From the previous digest's end, but after a pause no further back than a first digest
          // looks from when the digest was turned on again: the pause's tenders are not "new".
          const since = Option.match(yield* previousEnd(user.id), {
            onNone: () => lookBack(now),
            onSome: (row) =>
              row.digest_enabled_at === null || row.covered_to >= lookBack(row.digest_enabled_at)
                ? row.covered_to
                : lookBack(row.digest_enabled_at)
          })
          // The "new" window ends DIGEST_SETTLE before now: the next one starts there.
          const until = new Date(now.getTime() - Duration.toMillis(DIGEST_SETTLE))
          const claimed = yield* claimDay({ userId: user.id, date, from: since, to: until })
          if (claimed.length === 0) return "taken" as Outcome
          if ((yield* stillDue({ userId: user.id, hour })).length === 0) return yield* new NoLongerDue()
          const facts = yield* reads.forTenant({ tenantId: user.tenant_id, since, until, now })
          const content = { ...facts, now, appUrl: config.publicBaseUrl }
          if (isEmptyDigest(content)) return "empty" as Outcome
          const { subject, text, html } = renderDigest(content)
          const emailId = yield* outbox.enqueueForUser(user.id, { subject, bodyText: text, bodyHtml: html })
          yield* sql`UPDATE digest_sends SET email_id = ${emailId} WHERE user_id = ${user.id} AND bucharest_date = ${date}::date`
          return "queued" as Outcome
        })
      )

    return {
      sendDue: Effect.gen(function* () {
        const now = yield* clockNow
        const slot = digestSlot(now.getTime())
        const users = yield* dueUsers(slot)
        const pass: Record<Outcome, number> = { queued: 0, empty: 0, taken: 0, off: 0 }
        for (const user of users) {
          // One user's failure is logged and retried at the next pass; it does not stop the others.
          const outcome = yield* digestFor(user, slot, now).pipe(
            Effect.catchTag("NoLongerDue", () => Effect.succeed<Outcome>("off")),
            Effect.map(Option.some),
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.failCause(cause)
                : Effect.as(Effect.logWarning(`Daily digest of user ${user.id} failed`, cause), Option.none<Outcome>())
            )
          )
          if (Option.isSome(outcome)) pass[outcome.value]++
        }
        return pass
      }).pipe(Effect.orDie)
    }
  })
).pipe(Layer.provide(DigestReadsLive))
