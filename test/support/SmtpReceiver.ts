import type { AddressInfo, Socket } from "node:net"
import { SMTPServer } from "smtp-server"

/** A message as the SMTP server received it: the envelope, the raw data and the decoded text part. */
export interface ReceivedMail {
  readonly envelopeFrom: string
  readonly envelopeTo: ReadonlyArray<string>
  /** The authenticated user, when the client logged in. */
  readonly user: string | undefined
  readonly headers: Readonly<Record<string, string>>
  /** The Subject header decoded (RFC 2047 encoded words, as a mail client shows it). */
  readonly subject: string
  /** The text part (of a multipart/alternative message: its text/plain part). */
  readonly text: string
  /** The text/html part of a multipart/alternative message, if it has one. */
  readonly html?: string
}

/**
 * What the server answers to the n-th DATA (0-based): accept, refuse with an SMTP code, or `drop`:
 * take the message (it is in `received`) and cut the connection before answering, so the client
 * cannot tell that it arrived.
 */
export type SmtpAnswer = (index: number) => "accept" | "drop" | { readonly code: number; readonly message: string }

export interface SmtpReceiver {
  /** `smtp://[user:pass@]127.0.0.1:<port>` (or smtps:// with `tls`). */
  readonly url: string
  readonly port: number
  readonly received: ReadonlyArray<ReceivedMail>
  /** How many messages reached DATA, accepted or refused. */
  readonly attempts: () => number
  waitFor(count: number, timeoutMs?: number): Promise<ReadonlyArray<ReceivedMail>>
  close(): Promise<void>
}

/** Quoted-printable (RFC 2045) to UTF-8 text: soft line breaks dropped, =XX octets decoded. */
const decodeQuotedPrintable = (body: string) => {
  const bytes: Array<number> = []
  const text = body.replace(/=\r?\n/g, "")
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "=" && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16))
      i += 2
    } else bytes.push(...Buffer.from(text[i]!, "utf8"))
  }
  return Buffer.from(bytes).toString("utf8")
}

/**
 * RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) to text: the white space between two of
 * them is dropped, as the RFC says, so a long subject split into several words reads as one.
 */
const decodeEncodedWords = (value: string) =>
  value
    .replace(/(\?=)\s+(?==\?)/g, "$1")
    .replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : decodeQuotedPrintable(text.replace(/_/g, " "))
    )

/** Headers (unfolded, names lower-cased) and the decoded body of a single-part message. */
const parsePart = (raw: string) => {
  const split = raw.indexOf("\r\n\r\n")
  const headers: Record<string, string> = {}
  for (const line of raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, " ")
    .split("\r\n")) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const body = raw.slice(split + 4)
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase()
  const text =
    encoding === "quoted-printable"
      ? decodeQuotedPrintable(body)
      : encoding === "base64"
        ? Buffer.from(body, "base64").toString("utf8")
        : body
  return { headers, text: text.replace(/\r\n/g, "\n").replace(/\n$/, "") }
}

/** A single-part message, or a multipart/alternative one read as its text/plain and text/html parts. */
const parseMessage = (raw: string): { headers: Record<string, string>; text: string; html?: string } => {
  const message = parsePart(raw)
  const boundary = /^multipart\/[^;]+;.*boundary="?([^";]+)"?/i.exec(message.headers["content-type"] ?? "")?.[1]
  if (boundary === undefined) return message
  const parts = raw
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => parsePart(part.replace(/^\r\n/, "")))
  const typed = (type: string) => parts.find((part) => (part.headers["content-type"] ?? "").startsWith(type))?.text
  const html = typed("text/html")
  return { headers: message.headers, text: typed("text/plain") ?? "", ...(html === undefined ? {} : { html }) }
}

/**
 * A real SMTP server (smtp-server) on an ephemeral loopback port. Without `tls` it offers no
 * STARTTLS (its built-in certificate is self-signed); with `tls` it speaks TLS from the first byte.
 */
export const startSmtpReceiver = async (
  options: {
    readonly answer?: SmtpAnswer
    readonly auth?: { readonly user: string; readonly pass: string }
    readonly tls?: { readonly key: string; readonly cert: string }
  } = {}
): Promise<SmtpReceiver> => {
  const received: Array<ReceivedMail> = []
  const waiters: Array<() => void> = []
  let attempts = 0
  const server = new SMTPServer({
    logger: false,
    secure: options.tls !== undefined,
    ...(options.tls ?? {}),
    disabledCommands: options.tls ? [] : ["STARTTLS"],
    authOptional: options.auth === undefined,
    allowInsecureAuth: true,
    onAuth: (auth, _session, callback) =>
      auth.username === options.auth?.user && auth.password === options.auth?.pass
        ? callback(null, { user: auth.username })
        : callback(new Error("Invalid username or password")),
    onData: (stream, session, callback) => {
      const chunks: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("end", () => {
        const verdict = (options.answer ?? (() => "accept"))(attempts++)
        if (typeof verdict === "object") {
          return callback(Object.assign(new Error(verdict.message), { responseCode: verdict.code }))
        }
        const message = parseMessage(Buffer.concat(chunks).toString("utf8"))
        received.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          ...message,
          subject: decodeEncodedWords(message.headers.subject ?? "")
        })
        for (const wake of waiters.splice(0)) wake()
        if (verdict === "drop") {
          for (const socket of sockets) if (socket.remotePort === session.remotePort) socket.destroy()
          return
        }
        callback()
      })
    }
  })
  // A client that gives up (e.g. refuses the certificate) is an expected event here, not a crash.
  server.on("error", () => {})
  // The clients' connections, for `drop`.
  const sockets = new Set<Socket>()
  server.server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.server.address() as AddressInfo).port
  const credentials = options.auth
    ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`
    : ""
  return {
    url: `${options.tls ? "smtps" : "smtp"}://${credentials}127.0.0.1:${port}`,
    port,
    received,
    attempts: () => attempts,
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${received.length} of ${count} messages arrived`)), timeoutMs)
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer)
            resolve(received)
          } else waiters.push(check)
        }
        check()
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
