import * as net from "node:net"
import { Context, Data, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js"
import { EmailAddress } from "../../domain/EmailAddress.js"
import { AppConfig } from "../config/AppConfig.js"

export interface MailMessage {
  /**
   * The outbox row's id. The Message-ID is made from it, so a message sent again (sending is at
   * least once) is the same message to the recipient's client and relays, which can drop the copy.
   */
  readonly id: string
  readonly to: string
  readonly subject: string
  readonly text: string
  /** An HTML alternative to `text` (multipart/alternative), when the message has one. */
  readonly html?: string
}

/** What became of a message: handed to the SMTP server, or only logged (no SMTP_URL). */
export type MailOutcome = "sent" | "logged"

/** The SMTP server could not be reached or did not accept the message; `reason` holds no credentials and no recipient address. */
export class MailSendFailed extends Data.TaggedError("MailSendFailed")<{
  readonly reason: string
  /** The server's reply code (nodemailer's `responseCode`); none when no reply caused the failure. */
  readonly responseCode?: number
  /**
   * The server refused this message with a 5xx reply to MAIL FROM, RCPT TO or DATA ("550 No such
   * user"): permanent (RFC 5321 4.2.1), sending it again cannot change it. A 5xx to the greeting or
   * the login is about our server settings, and is retried like a 4xx.
   */
  readonly permanent: boolean
}> {}

/** Hands one message to the outside world. The outbox sender decides about retries. */
export class Mailer extends Context.Tag("Mailer")<
  Mailer,
  { readonly send: (message: MailMessage) => Effect.Effect<MailOutcome, MailSendFailed> }
>() {}

/**
 * How long one send may take in all. The socket timeout restarts with every byte the server sends,
 * so a server trickling its answer would otherwise hold the send (and one of the sender's slots)
 * for good; the job's lease (2 minutes, MailSender) outlasts this deadline.
 */
export const MAIL_SEND_DEADLINE = Duration.seconds(60)

/** The commands whose refusal is a refusal of the message itself. */
const MESSAGE_COMMANDS = new Set(["MAIL FROM", "RCPT TO", "DATA"])

/**
 * The reason without the recipient's address: it is kept with the job (`jobs.last_error`) and logged,
 * and an SMTP refusal quotes the address ("550 5.1.1 <ana@firma.ro>: user unknown"); the message's
 * own row already says whom it was for.
 */
const withoutRecipient = (reason: string, to: string) =>
  to === "" ? reason : reason.replace(new RegExp(to.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi"), "<recipient>")

const sendFailed = (error: unknown, to: string) => {
  const { responseCode, command }: { responseCode?: unknown; command?: unknown } =
    typeof error === "object" && error !== null ? error : {}
  const code = typeof responseCode === "number" ? responseCode : undefined
  return new MailSendFailed({
    reason: withoutRecipient(error instanceof Error ? error.message : String(error), to),
    ...(code === undefined ? {} : { responseCode: code }),
    permanent: code !== undefined && code >= 500 && code < 600 && MESSAGE_COMMANDS.has(String(command))
  })
}

const isOneAddress = Schema.is(Schema.typeSchema(EmailAddress))

/** The domain of the From address (`no-reply@scoring.example` → `scoring.example`): the right side of our Message-IDs. */
const domainOf = (from: string) => /@([^@<>\s]+)>?\s*$/.exec(from)?.[1] ?? "localhost"

/**
 * nodemailer over SMTP_URL. `smtps://` is TLS from the first byte (port 465 by default);
 * `smtp://` upgrades with STARTTLS whenever the server offers it (`?requireTLS=true` insists on it).
 * Certificates are checked against the system CAs plus NODE_EXTRA_CA_CERTS. The timeouts keep a
 * silent server from holding a send for nodemailer's default minutes, the deadline a slow one.
 * nodemailer is imported only here, so a process without SMTP_URL (`npm start`) never loads it.
 */
export const SmtpMailer = (options: {
  readonly url: Redacted.Redacted
  readonly from: string
  /** MAIL_SEND_DEADLINE unless given (tests shorten it). */
  readonly deadline?: Duration.DurationInput
}) =>
  Layer.effect(
    Mailer,
    Effect.gen(function* () {
      const [{ default: nodemailer }, { default: SmtpTransport }] = yield* Effect.promise(() =>
        Promise.all([import("nodemailer"), import("nodemailer/lib/smtp-transport/index.js")])
      )
      const deadline = Duration.decode(options.deadline ?? MAIL_SEND_DEADLINE)
      const messageDomain = domainOf(options.from)
      return {
        send: ({ id, ...message }) => {
          // An address stored before the one-address rule (`victim,evil@x.ro`) would reach every
          // address nodemailer reads in it: such a message is refused for good, unsent.
          if (!isOneAddress(message.to)) {
            return Effect.fail(
              new MailSendFailed({ reason: "The recipient is not one e-mail address", permanent: true })
            )
          }
          // The TCP connection is ours (nodemailer's getSocket, made for proxies; TLS and STARTTLS
          // stay nodemailer's), one transport per send: a send past its deadline is cut there.
          let socket: net.Socket | undefined
          const settings: SMTPTransport.Options = {
            url: Redacted.value(options.url),
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 30_000,
            getSocket: (smtp, callback) => {
              socket = net.connect({
                host: smtp.host ?? "localhost",
                port: Number(smtp.port) || (smtp.secure ? 465 : 587)
              })
              socket.on("error", () => {}) // nodemailer reports it (its own listener)
              callback(null, { connection: socket })
            }
          }
          // Built directly: given a `url`, createTransport would drop every other option.
          const transport = nodemailer.createTransport(new SmtpTransport(settings))
          return Effect.tryPromise({
            try: () => transport.sendMail({ from: options.from, messageId: `<${id}@${messageDomain}>`, ...message }),
            catch: (error) => sendFailed(error, message.to)
          }).pipe(
            Effect.onInterrupt(() => Effect.sync(() => socket?.destroy())),
            Effect.timeoutFail({
              duration: deadline,
              onTimeout: () =>
                new MailSendFailed({
                  reason: `The SMTP server did not take the message within ${Duration.format(deadline)}`,
                  permanent: false
                })
            }),
            Effect.as("sent" as const)
          )
        }
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
