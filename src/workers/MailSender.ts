import type { SqlClient } from "@effect/sql"
import { Duration, Effect, type Layer, Option } from "effect"
import { EmailOutbox, SendEmail } from "../infra/mail/EmailOutbox.js"
import { Mailer } from "../infra/mail/Mailer.js"
import type { JobQueue } from "../infra/queue/JobQueue.js"
import {
  drainDueJobs,
  handle,
  JobRunnerLive,
  PermanentFailure,
  type RunnerOptions,
  settleAfterRun
} from "../infra/queue/JobRunner.js"

export interface MailSenderOptions {
  /** Messages sent at once by this process. */
  readonly concurrency?: number
  readonly pollEvery?: Duration.DurationInput
  /** Longer than a send can take: the SMTP mailer gives a send up at MAIL_SEND_DEADLINE (60 s). */
  readonly lease?: Duration.DurationInput
}

/**
 * A `mail.send` job: hands its message to the SMTP server and records the outcome with the job's
 * completion (made by the runner, tried again while it fails). A failed send is retried by the queue after MailRetrySchedule's delay, unless the
 * server refused the message for good (5xx); the dead letter marks the message `failed`.
 */
export const sendEmailJob = handle(
  SendEmail,
  ({ emailId }, job) =>
    Effect.gen(function* () {
      const outbox = yield* EmailOutbox
      const message = yield* outbox.pending(emailId)
      if (Option.isNone(message)) return "completed" as const
      const { toAddress, subject, bodyText, bodyHtml } = message.value
      const outcome = yield* (yield* Mailer)
        .send({ id: emailId, to: toAddress, subject, text: bodyText, ...(bodyHtml === null ? {} : { html: bodyHtml }) })
        .pipe(
          Effect.mapError((error) => (error.permanent ? new PermanentFailure({ reason: error.reason }) : error.reason))
        )
      // Settled by the runner after the send, retried while the database fails it: a message the
      // server accepted is not sent again because its record failed.
      return yield* settleAfterRun(outbox.recordSent(job, emailId, outcome))
    }),
  ({ emailId }) => Effect.flatMap(EmailOutbox, (outbox) => outbox.recordFailed(emailId))
)

const runnerOptions = (options: MailSenderOptions): RunnerOptions => ({
  name: "mail",
  concurrency: options.concurrency ?? 4,
  lease: options.lease ?? Duration.minutes(2),
  pollEvery: options.pollEvery ?? Duration.seconds(5)
})

/** One pass of the sender (no loop): sends the due messages; how many it handled. */
export const sendDueMail = (options: MailSenderOptions = {}) => drainDueJobs([sendEmailJob], runnerOptions(options))

/** The mail runner of a worker process, on the one queue. */
export const MailSenderLive = (
  options: MailSenderOptions = {}
): Layer.Layer<never, never, EmailOutbox | Mailer | JobQueue | SqlClient.SqlClient> =>
  JobRunnerLive([sendEmailJob], runnerOptions(options))
