import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import * as ApiError from "../domain/ApiErrors.js"
import type { ServerReports } from "./ServerAnswers.js"
import { refuseRequest, refuseSocket, type ServerRefusal } from "./ServerAnswers.js"

/**
 * How much of a request the server reads: a body of at most `maxBodyBytes`, a URL of at most
 * MAX_URL_LENGTH characters, request headers of at most MAX_HEADER_BYTES. Anything larger is refused
 * here, at the node:http level, before the app sees the request and before the body is buffered, with
 * the uniform error body: 413 PAYLOAD_TOO_LARGE, 414 URI_TOO_LONG, 431 REQUEST_HEADERS_TOO_LARGE
 * (ServerAnswers.ts: with X-Request-Id, and logged and counted like the app's answers).
 */
export interface RequestLimits {
  readonly maxBodyBytes: number
}

/** The longest URL (path and query) served; ours stay far below it, browsers and proxies cap near it. */
export const MAX_URL_LENGTH = 8 * 1024

/**
 * The routers' options (the platform's, and RouteTemplates' for metric labels): a path parameter may
 * be as long as the URL. find-my-way's default (100 characters) answered 404 for a longer one before
 * the route's own check could (400 for an id that is no UUID, 410 for an unknown download token).
 */
export const ROUTER_CONFIG = { maxParamLength: MAX_URL_LENGTH }

/** The most bytes of request headers (names, values, separators) served: node's own default. */
export const MAX_HEADER_BYTES = 16 * 1024

/**
 * What node's HTTP parser reads of a request's head (request line and headers) before it gives up:
 * room for the two limits above, which are checked on the parsed request so each gets its own answer.
 */
export const PARSER_MAX_HEADER_SIZE = MAX_URL_LENGTH + MAX_HEADER_BYTES + 1024

/**
 * How long a client may take to send a request: its head, and the whole request with its body (1 MiB
 * at ~35 KB/s). node's defaults (60 s and 5 minutes, checked every 30 s) let a client trickling bytes
 * hold a socket, and up to a body's worth of memory, for minutes before any authentication; a few
 * thousand such would use up the process's file descriptors. Checked every second; answered 408.
 */
export const REQUEST_ARRIVAL_LIMITS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  connectionsCheckingInterval: 1_000
} as const

const tooLargeBody = (maxBodyBytes: number) =>
  new ApiError.PayloadTooLarge({
    message: `The request body is larger than ${maxBodyBytes} bytes (MAX_BODY_BYTES)`
  })

/** Bytes of the request's headers as they came on the wire: `name: value\r\n` each. */
const headerBytes = (request: IncomingMessage): number => {
  let bytes = 0
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    bytes += (request.rawHeaders[i]?.length ?? 0) + (request.rawHeaders[i + 1]?.length ?? 0) + 4
  }
  return bytes
}

/** The head's refusal, if any: a URL or headers over their limit, or a declared body over its own. */
const refusalOfHead = (request: IncomingMessage, limits: RequestLimits): ServerRefusal | undefined => {
  if ((request.url?.length ?? 0) > MAX_URL_LENGTH) {
    return new ApiError.UriTooLong({ message: `The URL is longer than ${MAX_URL_LENGTH} characters` })
  }
  if (headerBytes(request) > MAX_HEADER_BYTES) {
    return new ApiError.RequestHeadersTooLarge({
      message: `The request headers are larger than ${MAX_HEADER_BYTES} bytes`
    })
  }
  const declared = request.headers["content-length"]
  if (declared !== undefined && Number(declared) > limits.maxBodyBytes) return tooLargeBody(limits.maxBodyBytes)
  return undefined
}

/**
 * Reads a body of undeclared length (chunked) up to `maxBytes`. A body within the limit is put back
 * into the request, which the app then reads as if untouched; past the limit reading stops at once,
 * so at most `maxBytes` and one chunk are ever held.
 */
const readChunkedBody = (
  request: IncomingMessage,
  maxBytes: number,
  outcome: { readonly fits: () => void; readonly tooLarge: () => void }
) => {
  const chunks: Array<Buffer> = []
  let size = 0
  const onReadable = () => {
    while (request.readableLength > 0) {
      const chunk: Buffer = request.read()
      size += chunk.length
      if (size > maxBytes) {
        request.off("readable", onReadable)
        chunks.length = 0
        outcome.tooLarge()
        return
      }
      chunks.push(chunk)
    }
    // `complete`: node has parsed the whole message. The stream's end is not read yet (reading it
    // would emit `end` before the app listens), so putting the bytes back leaves it readable.
    if (request.complete) {
      request.off("readable", onReadable)
      if (size > 0) request.unshift(Buffer.concat(chunks))
      outcome.fits()
    }
  }
  request.on("readable", onReadable)
}

/**
 * Puts the limits in front of `server`'s app: every `request` event passes the checks first, and is
 * delivered to the app's listeners only when it is within them. A declared `Content-Length` over the
 * limit is refused before a byte of the body is read; a chunked body is counted while it arrives.
 * `Expect: 100-continue` requests are refused without the 100, so the client never sends the body.
 * Requests node cannot parse (a head over PARSER_MAX_HEADER_SIZE, a malformed request, a timeout)
 * get the uniform body too, instead of node's bare status line.
 */
export const limitRequests = (server: Server, limits: RequestLimits, reports?: ServerReports): Server => {
  const admitted = new WeakSet<IncomingMessage>()
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<any>) => boolean
  const refuse = (request: IncomingMessage, response: ServerResponse, refusal: ServerRefusal, since: number) =>
    refuseRequest(request, response, refusal, reports, since)

  const admit = (request: IncomingMessage, response: ServerResponse) => {
    const since = performance.now()
    const refusal = refusalOfHead(request, limits)
    if (refusal !== undefined) return refuse(request, response, refusal, since)
    const deliver = () => {
      admitted.add(request)
      emit("request", request, response)
    }
    if (request.headers["transfer-encoding"] === undefined) return deliver()
    readChunkedBody(request, limits.maxBodyBytes, {
      fits: deliver,
      tooLarge: () => refuse(request, response, tooLargeBody(limits.maxBodyBytes), since)
    })
  }

  // Node emits `request` itself; the app's listener (added later by the platform) must not see a
  // request before the checks, so the checks sit in `emit`. Requests replayed by EarlyRequests are
  // emitted again: those already admitted pass straight through.
  server.emit = ((event: string | symbol, ...args: Array<any>): boolean => {
    if (event !== "request" || admitted.has(args[0])) return emit(event, ...args)
    admit(args[0], args[1])
    return true
  }) as typeof server.emit

  server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    const refusal = refusalOfHead(request, limits)
    if (refusal !== undefined) return refuse(request, response, refusal, performance.now())
    response.writeContinue()
    server.emit("request", request, response)
  })

  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const inResponse = (socket as { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true
    if (error.code === "ECONNRESET" || !socket.writable || inResponse) return socket.destroy()
    const refusal =
      error.code === "HPE_HEADER_OVERFLOW"
        ? new ApiError.RequestHeadersTooLarge({
            message: `The request line and headers are larger than ${PARSER_MAX_HEADER_SIZE} bytes`
          })
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? new ApiError.RequestTimeout({ message: "The request did not arrive in time" })
          : new ApiError.ValidationError({ message: "The request is not valid HTTP/1.1" })
    refuseSocket(socket, refusal, reports)
  })

  return server
}
