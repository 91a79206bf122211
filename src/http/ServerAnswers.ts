import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http"
import type { Socket } from "node:net"
import { Schema } from "effect"
import type * as ApiError from "../domain/ApiErrors.js"
import { requestIdFrom } from "./RequestId.js"
import { wireError } from "./WireErrors.js"

/**
 * Answers the node:http server writes itself, before the app sees the request (the request limits'
 * refusals, a drain's 503): the uniform error body, X-Request-Id as the app answers it, and the
 * request's line and histogram observation like the app's (RequestObservability.ts), when the server
 * has `reports` (a process's server has; the tests' in-process server does not).
 */
export type ServerRefusal =
  | ApiError.PayloadTooLarge
  | ApiError.UriTooLong
  | ApiError.RequestHeadersTooLarge
  | ApiError.RequestTimeout
  | ApiError.ValidationError
  | ApiError.ServiceUnavailable

/**
 * A request the node:http server answered itself, before the app: a refusal of the request limits
 * (RequestLimits.ts), a 503 while the server drains (Draining.ts).
 */
export interface ServerAnswer {
  readonly requestId: string
  /** `_OTHER` (OpenTelemetry's value) when the request could not be parsed. */
  readonly method: string
  readonly status: number
  readonly seconds: number
}

/** What the node:http server reports into the process's logs and metrics. */
export interface ServerReports {
  /** A request it answered itself: the histogram (route `refused`) and a request line, like the app's. */
  readonly answered: (answer: ServerAnswer) => void
  /** The drain deadline passed with requests still in flight: their connections are being closed. */
  readonly drainCut: (inFlight: number, deadlineSeconds: number) => void
}

/** The uniform error body of a refusal, from the same wire schemas as the app's errors. */
const errorBody = (error: ServerRefusal): string => {
  const schema = wireError(error.constructor as ApiError.ApiErrorClass)
  return JSON.stringify(Schema.encodeSync(schema)(error))
}

const statusOf = (error: ServerRefusal): number => (error.constructor as ApiError.ApiErrorClass).status

const REFUSAL_HEADERS = {
  "content-type": "application/json",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // The rest of an oversized request may still be on the wire, and a draining server takes no more:
  // reading on is not worth the connection.
  connection: "close"
}

/** Answers a parsed request with `error`; `since` is when it arrived (performance.now()). */
export const refuseRequest = (
  request: IncomingMessage,
  response: ServerResponse,
  error: ServerRefusal,
  reports: ServerReports | undefined,
  since: number
) => {
  const body = errorBody(error)
  const requestId = requestIdFrom(request.headers["x-request-id"])
  const status = statusOf(error)
  response.writeHead(status, {
    ...REFUSAL_HEADERS,
    "x-request-id": requestId,
    "content-length": Buffer.byteLength(body)
  })
  response.end(body)
  reports?.answered({
    requestId,
    method: request.method ?? "_OTHER",
    status,
    seconds: (performance.now() - since) / 1000
  })
}

/**
 * Answers on a socket whose request node could not parse (no ServerResponse exists): a whole
 * HTTP/1.1 response, under a generated request id; then the socket is ended.
 */
export const refuseSocket = (socket: Socket, error: ServerRefusal, reports: ServerReports | undefined) => {
  const body = errorBody(error)
  const status = statusOf(error)
  const requestId = requestIdFrom(undefined)
  const headers = Object.entries({
    ...REFUSAL_HEADERS,
    "x-request-id": requestId,
    "content-length": Buffer.byteLength(body)
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n${headers}\r\n${body}`)
  // How long the client took is not known here (node measured it): 0, like any immediate refusal.
  reports?.answered({ requestId, method: "_OTHER", status, seconds: 0 })
}
