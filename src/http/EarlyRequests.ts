import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http"

/**
 * A node:http server that holds requests arriving before it has a request handler. The platform
 * listens before it attaches the app's handler, and node:http leaves a request that finds no
 * handler unanswered forever: a health check or load balancer probing a starting process would
 * hang. Held requests are replayed as soon as a handler is attached. Once the handler is gone again
 * (shutdown), Draining.ts answers the requests that still come, before they reach this hold.
 */
export const createServerHoldingEarlyRequests = (options: ServerOptions = {}): Server => {
  const server = createServer(options)
  const held: Array<readonly [IncomingMessage, ServerResponse]> = []
  const holdIfUnhandled = (request: IncomingMessage, response: ServerResponse) => {
    if (server.listenerCount("request") === 1) held.push([request, response])
  }
  server.on("request", holdIfUnhandled)
  server.on("newListener", (event) => {
    // Emitted before the listener is added: replay on the next turn, when it is there.
    if (event === "request" && held.length > 0) {
      setImmediate(() => {
        for (const [request, response] of held.splice(0)) server.emit("request", request, response)
      })
    }
  })
  return server
}
