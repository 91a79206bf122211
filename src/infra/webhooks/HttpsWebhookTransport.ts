import * as fs from "node:fs"
import * as https from "node:https"
import * as tls from "node:tls"
import { Config, Duration, Effect, Layer, Option } from "effect"
import { classifyAddress } from "../../domain/webhooks/SpecialAddresses.js"
import { AppConfig } from "../config/AppConfig.js"
import { checkedLookup, systemResolveAll } from "./CheckedLookup.js"
import { type WebhookRequest, type WebhookResponse, WebhookSendFailed, WebhookTransport } from "./WebhookTransport.js"

export interface WebhookTransportOptions {
  /** PEM certificates trusted besides the default CAs and NODE_EXTRA_CA_CERTS (tests: a receiver's own). */
  readonly extraCaCertificates?: ReadonlyArray<string>
  /** Per attempt, from its start to the response's status line (spec 6.3: no answer). Default 30 s. */
  readonly timeout?: Duration.DurationInput
}

/**
 * How long the body is read after a status line before the connection is dropped: the status is the
 * outcome (a receiver answering 200 and keeping its body open has the delivery), the body only frees
 * the connection for reuse.
 */
const BODY_READ_LIMIT_MS = 5_000

/**
 * A connection slower to open than this has its delivery checked again (`stillDeliverable`) before
 * the first byte: its webhook may have been deleted meanwhile. Faster ones are written at once, as a
 * check per attempt cost a third of the delivery rate (BENCHMARKS.md, "Webhooks").
 */
const LATE_CONNECTION_MS = 1_000

/** The receiver's response body is read and thrown away; past this many bytes the socket is dropped. */
const RESPONSE_BODY_CAP = 64 * 1024

/**
 * The connection pool, one per process, with no socket limit of its own: the dispatcher already
 * bounds the attempts in flight (8 per webhook, 128 per worker), and a limit per origin or in all
 * would make webhooks that share a host (an integration platform, a tunnel) wait behind each other's
 * slow paths, or a new receiver wait for other receivers' idle sockets, unsent, until their attempts
 * time out. Keep-alive, so a burst to one receiver reuses its TLS connections; a few idle sockets
 * per origin, closed after 5 s (a reset reused socket is retried once).
 */
const AGENT_LIMITS = { maxFreeSockets: 8, idleTimeoutMs: 5_000 }

const REFUSED = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "EPIPE"])
const NETWORK = new Set(["ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "ETIMEDOUT"])
/** OpenSSL certificate verification codes as Node reports them. */
const CERTIFICATE = new Set([
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_CRL",
  "UNABLE_TO_DECRYPT_CERT_SIGNATURE",
  "UNABLE_TO_DECRYPT_CRL_SIGNATURE",
  "UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY",
  "CERT_SIGNATURE_FAILURE",
  "CRL_SIGNATURE_FAILURE",
  "CERT_NOT_YET_VALID",
  "CERT_HAS_EXPIRED",
  "CRL_NOT_YET_VALID",
  "CRL_HAS_EXPIRED",
  "ERROR_IN_CERT_NOT_BEFORE_FIELD",
  "ERROR_IN_CERT_NOT_AFTER_FIELD",
  "ERROR_IN_CRL_LAST_UPDATE_FIELD",
  "ERROR_IN_CRL_NEXT_UPDATE_FIELD",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_CHAIN_TOO_LONG",
  "CERT_REVOKED",
  "INVALID_CA",
  "PATH_LENGTH_EXCEEDED",
  "INVALID_PURPOSE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "HOSTNAME_MISMATCH",
  "EPROTO"
])

/** Maps what Node raised below HTTP to the failure vocabulary of WebhookSendFailed. */
export const failureOf = (error: NodeJS.ErrnoException): WebhookSendFailed => {
  const code = error.code ?? ""
  const reason =
    code === "ERR_WEBHOOK_FORBIDDEN_ADDRESS"
      ? "forbidden_address"
      : REFUSED.has(code)
        ? "refused"
        : NETWORK.has(code)
          ? "network"
          : CERTIFICATE.has(code) || code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_")
            ? "tls"
            : "network"
  return new WebhookSendFailed({ reason, message: code ? `${code}: ${error.message}` : error.message })
}

interface Target {
  readonly hostname: string
  readonly port: number
  readonly path: string
  readonly isIpLiteral: boolean
}

const targetOf = (url: string): Effect.Effect<Target, WebhookSendFailed> => {
  const invalid = (message: string) => Effect.fail(new WebhookSendFailed({ reason: "invalid_url", message }))
  if (!URL.canParse(url)) return invalid("not an absolute URL")
  const parsed = new URL(url)
  if (parsed.protocol !== "https:") return invalid(`only https:// URLs are delivered to, not ${parsed.protocol}//`)
  if (parsed.hostname === "") return invalid("the URL has no host")
  // WHATWG URL has already normalised IPv4 forms (0x7f.1, 2130706433) to dotted decimal; IPv6 keeps its brackets.
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, "$1")
  return Effect.succeed({
    hostname,
    port: parsed.port === "" ? 443 : Number(parsed.port),
    path: `${parsed.pathname}${parsed.search}`,
    isIpLiteral: classifyAddress(hostname)._tag !== "Invalid"
  })
}

/** CAs for the agent: undefined keeps Node's defaults; extra certificates must be added to them explicitly. */
const trustedCertificates = (extra: ReadonlyArray<string>) =>
  extra.length === 0
    ? Effect.succeed(undefined)
    : Config.option(Config.string("NODE_EXTRA_CA_CERTS")).pipe(
        Effect.orDie,
        Effect.map((file) => [
          ...tls.rootCertificates,
          // An explicit `ca` replaces the defaults, NODE_EXTRA_CA_CERTS included: keep it.
          ...Option.match(file, { onNone: () => [], onSome: (path) => [fs.readFileSync(path, "utf8")] }),
          ...extra
        ])
      )

export const makeWebhookTransportLayer = (options: WebhookTransportOptions = {}) =>
  Layer.scoped(
    WebhookTransport,
    Effect.gen(function* () {
      const { webhookAllowPrivateNetworks } = yield* AppConfig
      const timeout = Duration.decode(options.timeout ?? Duration.seconds(30))
      const ca = yield* trustedCertificates(options.extraCaCertificates ?? [])
      const agent = yield* Effect.acquireRelease(
        Effect.sync(
          () =>
            new https.Agent({
              keepAlive: true,
              scheduling: "lifo",
              maxFreeSockets: AGENT_LIMITS.maxFreeSockets,
              timeout: AGENT_LIMITS.idleTimeoutMs,
              // Agent options apply to every socket it opens: the checked lookup and the trusted CAs.
              lookup: checkedLookup(systemResolveAll, webhookAllowPrivateNetworks),
              // A prebuilt context, not `ca`: the agent keys its pool by every TLS option as text,
              // and 140 root certificates in that key cost more than the request itself.
              ...(ca ? { secureContext: tls.createSecureContext({ ca }) } : {})
            })
        ),
        (agent) => Effect.sync(() => agent.destroy())
      )

      /**
       * One POST, settled by the response's status line; a reset on a pooled socket (the receiver
       * closed it while idle) is retried once on a new one.
       */
      const post = (target: Target, request: WebhookRequest, body: Buffer, retryOnStaleSocket: boolean) =>
        Effect.async<WebhookResponse, WebhookSendFailed | "stale socket">((resume) => {
          let settled = false
          const settle = (outcome: Effect.Effect<WebhookResponse, WebhookSendFailed | "stale socket">) => {
            if (settled) return
            settled = true
            resume(outcome)
          }
          const req = https.request({
            agent,
            hostname: target.hostname,
            port: target.port,
            path: target.path,
            method: "POST",
            headers: { ...request.headers, "content-length": String(body.length) }
          })
          req.on("response", (res) => {
            settle(Effect.succeed({ status: res.statusCode ?? 0 }))
            // The body is read and thrown away, for BODY_READ_LIMIT_MS and RESPONSE_BODY_CAP at most.
            const cut = setTimeout(() => res.destroy(), BODY_READ_LIMIT_MS)
            let read = 0
            res.on("data", (chunk: Buffer) => {
              read += chunk.length
              if (read > RESPONSE_BODY_CAP) res.destroy()
            })
            res.on("error", () => {})
            res.on("close", () => clearTimeout(cut))
          })
          req.on("error", (error: NodeJS.ErrnoException) => {
            const stale =
              retryOnStaleSocket && req.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE")
            settle(Effect.fail(stale ? "stale socket" : failureOf(error)))
          })
          const stillDeliverable = request.stillDeliverable
          if (stillDeliverable === undefined) req.end(body)
          else {
            const startedAt = Date.now()
            // Nothing is sent before `end`: a new socket is only connecting, a pooled one only taken.
            req.once("socket", (socket) => {
              const connected = () => {
                if (Date.now() - startedAt < LATE_CONNECTION_MS) return void req.end(body)
                Effect.runPromise(stillDeliverable).then(
                  (deliverable) => {
                    if (deliverable) return void req.end(body)
                    settle(Effect.fail(new WebhookSendFailed({ reason: "cancelled", message: "withdrawn unsent" })))
                    req.destroy()
                  },
                  () => req.end(body)
                )
              }
              if (req.reusedSocket) connected()
              else socket.once("secureConnect", connected)
            })
          }
          // Interrupted (timeout, shutdown): drop the socket, it is not returned to the pool.
          return Effect.sync(() => req.destroy())
        })

      const send = (request: WebhookRequest) =>
        Effect.gen(function* () {
          const target = yield* targetOf(request.url)
          if (target.isIpLiteral && !webhookAllowPrivateNetworks) {
            const verdict = classifyAddress(target.hostname)
            if (verdict._tag === "Special") {
              return yield* new WebhookSendFailed({
                reason: "forbidden_address",
                message: `${target.hostname} is in ${verdict.range.cidr} (${verdict.range.name})`
              })
            }
          }
          const body = Buffer.from(request.body, "utf8")
          return yield* post(target, request, body, true).pipe(
            Effect.catchIf(
              (error) => error === "stale socket",
              () => post(target, request, body, false)
            ),
            Effect.mapError((error) =>
              error === "stale socket"
                ? new WebhookSendFailed({ reason: "refused", message: "connection reset" })
                : error
            )
          )
        }).pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () =>
              new WebhookSendFailed({ reason: "timeout", message: `no response within ${Duration.format(timeout)}` })
          })
        )

      return { send }
    })
  )

/** The process's transport: Node's default CAs plus NODE_EXTRA_CA_CERTS. */
export const WebhookTransportLive = makeWebhookTransportLayer()
