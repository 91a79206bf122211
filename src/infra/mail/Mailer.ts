import { Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../config/AppConfig.js"

export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  /** An HTML alternative to `text` (multipart/alternative), when the message has one. */
  readonly html?: string
}

/** What became of a message: handed to the SMTP server, or only logged (no SMTP_URL). */
export type MailOutcome = "sent" | "logged"

/** The SMTP server could not be reached or did not accept the message; `reason` holds no credentials. */
export class MailSendFailed extends Data.TaggedError("MailSendFailed")<{ readonly reason: string }> {}

/** Hands one message to the outside world. The outbox sender decides about retries. */
export class Mailer extends Context.Tag("Mailer")<
  Mailer,
  { readonly send: (message: MailMessage) => Effect.Effect<MailOutcome, MailSendFailed> }
>() {}

/**
 * nodemailer over SMTP_URL. `smtps://` is TLS from the first byte (port 465 by default);
 * `smtp://` upgrades with STARTTLS whenever the server offers it (`?requireTLS=true` insists on it).
 * Certificates are checked against the system CAs plus NODE_EXTRA_CA_CERTS. The timeouts keep a
 * silent server from holding a send for nodemailer's default minutes. nodemailer is imported only
 * here, so a process without SMTP_URL (`npm start`) never loads it.
 */
export const SmtpMailer = (options: { readonly url: Redacted.Redacted; readonly from: string }) =>
  Layer.scoped(
    Mailer,
    Effect.gen(function* () {
      const { default: nodemailer } = yield* Effect.promise(() => import("nodemailer"))
      const transport = yield* Effect.acquireRelease(
        Effect.sync(() =>
          nodemailer.createTransport({
            url: Redacted.value(options.url),
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 30_000
          })
        ),
        (transport) => Effect.sync(() => transport.close())
      )
      return {
        send: (message) =>
          Effect.tryPromise({
            try: () => transport.sendMail({ from: options.from, ...message }),
            catch: (error) => new MailSendFailed({ reason: error instanceof Error ? error.message : String(error) })
          }).pipe(Effect.as("sent" as const))
      }
    })
  )

/** Without SMTP_URL: the message stays in the outbox (as `logged`) and goes to the log. */
export const LoggingMailer = Layer.succeed(Mailer, {
  send: (message) =>
    Effect.logInfo("E-mail not sent (no SMTP_URL); it stays in email_outbox").pipe(
      Effect.annotateLogs({ to: message.to, subject: message.subject, body: message.text }),
      Effect.as("logged" as const)
    )
})

/** SMTP when SMTP_URL is set, else the logging mailer. */
export const MailerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.smtpUrl, {
      onNone: () => LoggingMailer,
      onSome: (url) => SmtpMailer({ url, from: config.mailFrom })
    })
  )
)
