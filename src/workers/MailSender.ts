import { randomUUID } from "node:crypto"
import { Duration, Effect, Layer } from "effect"
import { type ClaimedMessage, EmailOutbox } from "../infra/mail/EmailOutbox.js"
import { Mailer } from "../infra/mail/Mailer.js"
import { runOnWakeups } from "./WakeLoop.js"

export interface MailSenderOptions {
  /** Messages sent at once by this process. */
  readonly concurrency?: number
  readonly pollEvery?: Duration.DurationInput
  /** Longer than a send can take with the SMTP timeouts (10 s connect, 10 s greeting, 30 s idle). */
  readonly lease?: Duration.DurationInput
}

const defaults = { concurrency: 4, pollEvery: Duration.seconds(5), lease: Duration.minutes(2) }

/**
 * One pass of the outbox sender: claims the due messages (batches of `concurrency`, until none is
 * left), sends each, and records the outcome; returns how many it handled. A failed send is
 * retried by `MailRetrySchedule` and ends `failed` when the schedule gives up.
 */
export const sendDueMail = (workerId: string, options: MailSenderOptions = {}) =>
  Effect.gen(function* () {
    const outbox = yield* EmailOutbox
    const mailer = yield* Mailer
    const concurrency = options.concurrency ?? defaults.concurrency
    const lease = options.lease ?? defaults.lease

    const sendOne = (message: ClaimedMessage) =>
      mailer.send({ to: message.toAddress, subject: message.subject, text: message.bodyText }).pipe(
        Effect.matchEffect({
          onSuccess: (outcome) => outbox.markDelivered(message, outcome),
          onFailure: (error) =>
            outbox
              .recordFailure(message, error.reason)
              .pipe(
                Effect.tap((next) =>
                  Effect.logWarning(`E-mail ${message.id}, attempt ${message.attempts}: ${error.reason} (${next})`)
                )
              )
        })
      )

    let handled = 0
    while (true) {
      const batch = yield* outbox.claimDue({ workerId, limit: concurrency, lease })
      yield* Effect.forEach(batch, sendOne, { concurrency, discard: true })
      handled += batch.length
      if (batch.length < concurrency) return handled
    }
  })

/**
 * The outbox sender of a worker process: woken by NOTIFY on the mail channel when mail is queued,
 * with polling as the safety net and the clock for retries that come due.
 */
export const MailSenderLive = (options: MailSenderOptions = {}): Layer.Layer<never, never, EmailOutbox | Mailer> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const outbox = yield* EmailOutbox
      const workerId = `mail-${randomUUID()}`
      const pass = sendDueMail(workerId, options)
      yield* runOnWakeups("Mail sender", outbox.wakeups, options.pollEvery ?? defaults.pollEvery, pass).pipe(
        Effect.forkScoped
      )
    })
  )
