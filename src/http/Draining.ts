import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Duration } from "effect"
import * as ApiError from "../domain/ApiErrors.js"
import type { ServerReports } from "./ServerAnswers.js"
import { refuseRequest } from "./ServerAnswers.js"

/**
 * How long a stopping API (SIGTERM) lets the requests in flight finish before it closes their
 * connections and exits: like a worker's SCORING_SHUTDOWN_WAIT, under the 30 s after which
 * supervisors kill (Kubernetes' default), so the process ends on its own, its pool closed.
 */
export const DRAIN_DEADLINE = Duration.seconds(25)

export interface DrainOptions {
  readonly deadline?: Duration.DurationInput
  readonly reports?: ServerReports | undefined
}

/**
 * Makes `server` drain when the app leaves it. On shutdown the platform first detaches the app's
 * request handler, then closes the server, which waits for every connection to end. A client that
 * reuses a kept-alive connection in between would find no handler (and be held, unanswered, by
 * EarlyRequests), so the connection, and the shutdown, would never end. Once the app's handler is
 * gone the server is closing: a request that still arrives is answered 503 with `Connection: close`
 * (the uniform error body); the responses in flight go out with `Connection: close`, or, whose
 * headers are already sent, have their connection closed once they finish. When the server is
 * closed, the requests still in flight get until the deadline, then their connections are closed
 * (the platform interrupts their work) so that the close, and the process, end.
 */
export const drainOnClose = (server: Server, options: DrainOptions = {}): Server => {
  const deadline = Duration.decode(options.deadline ?? DRAIN_DEADLINE)
  // The request listeners that are not the app's (EarlyRequests' own): the app is attached above them.
  const baseListeners = server.listenerCount("request")
  let attached = false
  let closing = false
  const inFlight = new Set<ServerResponse>()

  const closeWhenIdle = () => setImmediate(() => server.closeIdleConnections())
  const startClosing = () => {
    if (closing) return
    closing = true
    for (const response of inFlight) {
      if (!response.headersSent) response.setHeader("connection", "close")
      else response.once("finish", closeWhenIdle)
    }
    server.closeIdleConnections()
  }

  server.on("newListener", (event) => {
    if (event === "request") attached = true
  })
  server.on("removeListener", (event) => {
    if (event === "request" && attached && server.listenerCount("request") <= baseListeners) startClosing()
  })

  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<any>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<any>): boolean => {
    if (event !== "request") return emit(event, ...args)
    const [request, response] = args as [IncomingMessage, ServerResponse]
    if (closing) {
      refuseRequest(
        request,
        response,
        new ApiError.ServiceUnavailable({ message: "The server is shutting down; send the request again" }),
        options.reports,
        performance.now()
      )
      return true
    }
    if (!inFlight.has(response)) {
      inFlight.add(response)
      response.once("close", () => inFlight.delete(response))
    }
    return emit(event, ...args)
  }) as typeof server.emit

  const close = server.close.bind(server)
  server.close = ((callback?: (error?: Error) => void) => {
    startClosing()
    const timer = setTimeout(() => {
      options.reports?.drainCut(inFlight.size, Duration.toSeconds(deadline))
      server.closeAllConnections()
    }, Duration.toMillis(deadline))
    // The open connections keep the process up while they last, not this timer.
    timer.unref()
    server.once("close", () => clearTimeout(timer))
    return close(callback)
  }) as typeof server.close

  return server
}
