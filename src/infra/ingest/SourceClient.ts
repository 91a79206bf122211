import {
  FetchHttpClient,
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse
} from "@effect/platform"
import { Clock, Duration, Effect, Option, Stream } from "effect"
import {
  LONGEST_WAIT_IN_REQUEST,
  parseRetryAfter,
  SourceFailure,
  type SourceName,
  sourceRetrySchedule
} from "../../domain/ingest/SourceFailure.js"

/** What the service says it is, to every source (an honest User-Agent, with where to reach us). */
export const userAgent = (publicBaseUrl: string) => `TenderScoringService/0.1 (+${publicBaseUrl})`

/**
 * Where a source's `Retry-After` is kept for every process (`IngestState.sourceBlock`): a notice job
 * on another worker must not ask the source before the wait its poll was given runs out.
 */
export interface SourceBlock {
  /** When the source's last `Retry-After` runs out (epoch ms; 0 when it gave none). */
  readonly until: Effect.Effect<number>
  /** A `Retry-After` running out at `until` (epoch ms); a later end already kept stays. */
  readonly extend: (until: number) => Effect.Effect<void>
}

export interface SourceClientOptions {
  readonly source: SourceName
  /** At least this long between two requests to the source (politeness; SEAP blocks fast clients). */
  readonly spacing: Duration.DurationInput
  readonly userAgent: string
  /** Headers every request carries (SEAP's mandatory same-site Referer). */
  readonly headers?: Readonly<Record<string, string>>
  readonly timeout?: Duration.DurationInput
  /**
   * Whether a URL is on the source's own hosts: a request there is sent, a redirect there followed;
   * anything else is refused unsent (what another host answers would be imported as the source's).
   * Default: the host each request names, and its `www.` twin.
   */
  readonly isOwnHost?: (url: URL) => boolean
  /** The source's `Retry-After` shared with other processes; unset, this client's own only. */
  readonly block?: SourceBlock
}

/** What a request expects back; anything else (SEAP's 200 HTML maintenance page) is not imported. */
type Expected = "json" | "xml"

const contentTypeMatches = (expected: Expected, contentType: string) =>
  expected === "json" ? /\bjson\b/i.test(contentType) : /\bxml\b/i.test(contentType)

/** Redirects followed within one request, as browsers and fetch allow (20) but fewer: a source redirects once, if at all. */
const MAX_REDIRECTS = 5

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * The most of an answer read: a notice XML is at most a few MB, a list page a few hundred kB. A
 * larger answer (a source gone wrong, a body that never ends) is `invalid`, not read into memory.
 */
const MAX_ANSWER_BYTES = 20 * 1024 * 1024

/** The answer's text, `limit` bytes at most; `undefined` past them (the rest is not read: the request is aborted). */
const readAtMost = (response: HttpClientResponse.HttpClientResponse, limit: number) =>
  response.stream.pipe(
    Stream.runFoldWhile(
      { chunks: [] as Array<Uint8Array>, bytes: 0 },
      (read) => read.bytes <= limit,
      (read, chunk) => {
        read.chunks.push(chunk)
        return { chunks: read.chunks, bytes: read.bytes + chunk.byteLength }
      }
    ),
    // A 200 with no body at all (fetch gives no stream for it) is an empty answer.
    Effect.catchIf(
      (error) => error.reason === "EmptyBody",
      () => Effect.succeed({ chunks: [], bytes: 0 })
    ),
    Effect.map((read) => (read.bytes > limit ? undefined : new TextDecoder().decode(Buffer.concat(read.chunks))))
  )

/** The request's own host, or its `www.` twin (e-licitatie.ro, www.e-licitatie.ro), never from https down to http. */
const sameHost = (from: URL, to: URL) =>
  (to.protocol === from.protocol || to.protocol === "https:") &&
  to.port === from.port &&
  to.hostname.replace(/^www\./, "") === from.hostname.replace(/^www\./, "")

/** Why a request never got an answer: fetch's "fetch failed" names the network error in its cause. */
const networkReason = (cause: unknown): string | undefined => {
  if (!(cause instanceof Error)) return undefined
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } }).cause
  const reason =
    typeof inner?.code === "string" ? inner.code : typeof inner?.message === "string" ? inner.message : undefined
  return reason === undefined ? cause.message : `${cause.message}: ${reason}`
}

/**
 * The HTTP client of one source: requests spaced by `spacing` (one at a time), a timeout, and
 * answers checked before they are read: 429 and 5xx, time-outs and unreachable hosts are transient
 * failures retried by `sourceRetrySchedule` (honouring `Retry-After`), an answer of the wrong
 * content type is `maintenance`, another 4xx is `refused`.
 */
export const makeSourceClient = (options: SourceClientOptions) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const turn = yield* Effect.makeSemaphore(1)
    let nextAllowedAt = 0
    /** When the source's last `Retry-After` runs out. */
    let blockedUntil = 0
    const spacing = Duration.toMillis(options.spacing)
    const timeout = options.timeout ?? Duration.seconds(30)

    const failure = (
      reason: SourceFailure["reason"],
      message: string,
      status: number | null = null,
      retryAfter?: Duration.Duration
    ) => new SourceFailure({ source: options.source, reason, status, retryAfter, message })

    /**
     * Waits for this source's turn, so that requests leave at least `spacing` apart and none before
     * the `Retry-After` the source last gave (to this process or, with `block`, to any); a wait longer
     * than a request waits fails at once (the request is not sent), so the other reads of a poll, and
     * notice retries, do not ask early. The wait is outside the request's timeout: it is not the
     * source's slowness.
     */
    const awaitTurn: Effect.Effect<void, SourceFailure> = turn.withPermits(1)(
      Effect.gen(function* () {
        while (true) {
          const now = yield* Clock.currentTimeMillis
          const blocked = Math.max(blockedUntil, options.block === undefined ? 0 : yield* options.block.until)
          if (blocked - now > Duration.toMillis(LONGEST_WAIT_IN_REQUEST)) {
            return yield* failure(
              "rate-limited",
              `${options.source} asked for no request before ${new Date(blocked).toISOString()} (Retry-After)`,
              null,
              Duration.millis(blocked - now)
            )
          }
          const allowedAt = Math.max(nextAllowedAt, blocked)
          if (allowedAt <= now) break
          // Looked at again after the wait: another process may have met a longer Retry-After meanwhile.
          yield* Effect.sleep(Duration.millis(allowedAt - now))
        }
        nextAllowedAt = (yield* Clock.currentTimeMillis) + spacing
      })
    )

    const checked = (url: string, expected: Expected) => (response: HttpClientResponse.HttpClientResponse) =>
      Effect.gen(function* () {
        const status = response.status
        const where = `${options.source} ${new URL(url).pathname}`
        if (status === 429 || status === 503) {
          const now = yield* Clock.currentTimeMillis
          const retryAfter = parseRetryAfter(response.headers["retry-after"], now)
          if (retryAfter !== undefined) {
            blockedUntil = Math.max(blockedUntil, now + Duration.toMillis(retryAfter))
            if (options.block !== undefined) yield* options.block.extend(blockedUntil)
          }
          return yield* failure(
            status === 429 ? "rate-limited" : "server",
            `${where} answered ${status}${retryAfter === undefined ? "" : ` (Retry-After ${Duration.format(retryAfter)})`}`,
            status,
            retryAfter
          )
        }
        if (status >= 500) return yield* failure("server", `${where} answered ${status}`, status)
        if (status >= 400) {
          // Its first 200 characters say why; more than 64 kB of it is not read.
          const body = yield* readAtMost(response, 64 * 1024).pipe(Effect.orElseSucceed(() => undefined))
          return yield* failure("refused", `${where} answered ${status}: ${(body ?? "").slice(0, 200)}`, status)
        }
        const contentType = response.headers["content-type"] ?? ""
        if (!contentTypeMatches(expected, contentType)) {
          return yield* failure(
            "maintenance",
            `${where} answered ${status} with ${contentType || "no content type"}, not ${expected} (maintenance page?)`,
            status
          )
        }
        const text = yield* readAtMost(response, MAX_ANSWER_BYTES).pipe(
          Effect.mapError(() => failure("unreachable", `${where}: the answer was cut off`, status))
        )
        if (text === undefined) {
          return yield* failure(
            "invalid",
            `${where} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MB: not read further`,
            status
          )
        }
        return text
      })

    /** Where a redirect leads, when the source's own host: fetch does not follow redirects itself (`manual`). */
    const redirectTarget = (
      request: HttpClientRequest.HttpClientRequest,
      response: HttpClientResponse.HttpClientResponse
    ) =>
      Effect.gen(function* () {
        const from = new URL(request.url)
        const where = `${options.source} ${from.pathname}`
        const location = response.headers.location
        if (location === undefined || !URL.canParse(location, from.href)) {
          return yield* failure(
            "invalid",
            `${where} answered ${response.status} without a usable Location`,
            response.status
          )
        }
        const to = new URL(location, from)
        const own = options.isOwnHost?.(to) ?? sameHost(from, to)
        if (!own || !["http:", "https:"].includes(to.protocol)) {
          return yield* failure(
            "refused",
            `${where} answered ${response.status} to another host (${to.host.slice(0, 100)}): not followed`,
            response.status
          )
        }
        // 303, and 301/302 after a POST, are asked again with GET (as fetch does); 307/308 as they were.
        const again =
          response.status === 303 || ((response.status === 301 || response.status === 302) && request.method !== "GET")
        return again
          ? HttpClientRequest.get(to.href).pipe(HttpClientRequest.setHeaders(request.headers))
          : HttpClientRequest.setUrl(request, to.href)
      })

    type Answer = { readonly text: string } | { readonly next: HttpClientRequest.HttpClientRequest }

    /**
     * The answer's text, following redirects within the source's own hosts, each hop spaced like any
     * request and given `timeout` to be sent and read.
     */
    const exchange = (
      request: HttpClientRequest.HttpClientRequest,
      expected: Expected,
      hops: number
    ): Effect.Effect<string, SourceFailure | HttpClientError.HttpClientError> =>
      Effect.gen(function* () {
        const init = Option.getOrElse(yield* Effect.serviceOption(FetchHttpClient.RequestInit), () => ({}))
        yield* awaitTurn
        const answer = yield* client.execute(request).pipe(
          Effect.provideService(FetchHttpClient.RequestInit, { ...init, redirect: "manual" }),
          Effect.flatMap((response) =>
            REDIRECTS.has(response.status)
              ? Effect.map(redirectTarget(request, response), (next): Answer => ({ next }))
              : Effect.map(checked(request.url, expected)(response), (text): Answer => ({ text }))
          ),
          Effect.scoped,
          // Sending and reading only, not the wait for the turn (a Retry-After of minutes is no time-out).
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => failure("timeout", `${options.source} did not answer within ${Duration.format(timeout)}`)
          })
        )
        if ("text" in answer) return answer.text
        if (hops >= MAX_REDIRECTS) {
          return yield* failure(
            "invalid",
            `${options.source} ${new URL(request.url).pathname}: more than ${MAX_REDIRECTS} redirects`
          )
        }
        return yield* exchange(answer.next, expected, hops + 1)
      })

    const send = (request: HttpClientRequest.HttpClientRequest, expected: Expected) =>
      Effect.suspend(() => {
        const url = new URL(request.url)
        if (options.isOwnHost !== undefined && !options.isOwnHost(url)) {
          return failure("refused", `${options.source}: ${url.host.slice(0, 100)} is not the source's host; not asked`)
        }
        return exchange(
          request.pipe(
            HttpClientRequest.setHeaders({ "user-agent": options.userAgent, ...options.headers }),
            HttpClientRequest.accept(expected === "json" ? "application/json" : "application/xml")
          ),
          expected,
          0
        )
      }).pipe(
        Effect.catchTag("RequestError", (error) =>
          Effect.fail(
            failure("unreachable", `${options.source} unreachable: ${networkReason(error.cause) ?? error.message}`)
          )
        ),
        Effect.catchTag("ResponseError", (error) => Effect.fail(failure("unreachable", error.message)))
      )

    /** A JSON answer read, or `invalid` (not retried: the same answer would come again). */
    const sendJson = (request: HttpClientRequest.HttpClientRequest, retries: number) =>
      send(request, "json").pipe(
        Effect.flatMap((text) =>
          Effect.try({
            try: () => JSON.parse(text) as unknown,
            catch: () =>
              failure("invalid", `${options.source} ${new URL(request.url).pathname} answered JSON that does not parse`)
          })
        ),
        Effect.retry(sourceRetrySchedule(retries))
      )

    return {
      /** POSTs a JSON body and reads a JSON answer. */
      postJson: (url: string, body: unknown, retries = 4) =>
        sendJson(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUnsafeJson(body)), retries),
      /** GETs a JSON answer. */
      getJson: (url: string, retries = 4) => sendJson(HttpClientRequest.get(url), retries),
      /** GETs an XML document as text. */
      getXml: (url: string, retries = 4) =>
        send(HttpClientRequest.get(url), "xml").pipe(Effect.retry(sourceRetrySchedule(retries)))
    }
  })

export type SourceClient = Effect.Effect.Success<ReturnType<typeof makeSourceClient>>
